#!/usr/bin/env bash
# Instructions per stage of `gotchas check` at several corpus sizes, counted by callgrind
# with every stage on one thread (examples/one_thread.rs). The count of one binary on one
# corpus is the same on every run, where this machine's clock drifts by a third within an
# hour, so it tells whether a stage's work grows linearly with the corpus: the issue's
# "10x the records, at most 11x the time". What it leaves out, cache misses and the
# kernel zeroing fresh memory, grows faster than the work once a stage's data outgrows the
# caches; `gotchas check --verbose` times those in.
#
#   bench/instructions.sh                                 # 10k and 100k JSON records
#   SIZES="10000 30000 100000" FORMAT=yaml bench/instructions.sh
#
# Needs valgrind (`apt-get install valgrind`). Corpora come from the synth example, into
# $BENCH_DIR (default /tmp/gotchas-bench), shared with bench/run.sh. 100k JSON records
# take about half a minute under callgrind.
set -euo pipefail
cd "$(dirname "$0")/.."

SIZES=${SIZES:-"10000 100000"}
FORMAT=${FORMAT:-json}
BENCH_DIR=${BENCH_DIR:-/tmp/gotchas-bench}

command -v valgrind >/dev/null || { echo "instructions.sh: needs valgrind" >&2; exit 2; }
cargo build --release --quiet --example synth
cargo build --profile profiling --quiet --example one_thread
target=${CARGO_TARGET_DIR:-target}
counts=$(mktemp -d)
trap 'rm -rf "$counts"' EXIT

# The stages, each as a label and the function whose inclusive count is the stage's work.
# `locate` is inlined into its caller; its closure, which reads and maps the files
# reported on, is most of it.
stages='load|gotchas::corpus::Corpus<F>::load_for_report
record rules|gotchas::check::record_findings
index|gotchas::index::IdIndex<F>::new
resolve|gotchas::index::IdIndex<F>::resolve_all
references|gotchas::check::refs::check
  suggestion index|gotchas::candidates::NameIndex::with_distinct_groups
  look-ups|gotchas::index::IdIndex<F>::suggest
graph|gotchas::check::graph::check
locate|gotchas::project::locate::{{closure}}
whole run|PROGRAM TOTALS'

for size in $SIZES; do
  corpus="$BENCH_DIR/$size-$FORMAT"
  if [ ! -d "$corpus" ]; then
    "$target/release/examples/synth" --records "$size" --format "$FORMAT" --seed 42 \
      --out "$corpus" --error-rate 0.01 2>/dev/null
  fi
  valgrind --tool=callgrind --callgrind-out-file="$counts/$size.out" \
    "$target/profiling/examples/one_thread" "$corpus" >/dev/null 2>&1
  callgrind_annotate --inclusive=yes --threshold=100 "$counts/$size.out" >"$counts/$size.txt" 2>/dev/null
done

# inclusive FUNCTION FILE: the function's inclusive count, from its own line or from a
# line calling it, whichever is larger (an inlined function has only the second).
inclusive() {
  awk -v f="$1" '
    index($0, ":" f " [") || index($0, ":" f " (") || (f == "PROGRAM TOTALS" && index($0, f)) {
      n = $1; gsub(",", "", n); if (n + 0 > best) best = n + 0
    }
    END { printf "%.0f", best }' "$2"
}

printf '%-18s' stage
for size in $SIZES; do printf ' %16s' "$size"; done
printf '  growth\n'
first=${SIZES%% *}
last=${SIZES##* }
while IFS='|' read -r label function; do
  printf '%-18s' "$label"
  for size in $SIZES; do
    printf ' %16s' "$(inclusive "$function" "$counts/$size.txt" | sed ':a;s/\B[0-9]\{3\}\>/,&/;ta')"
  done
  awk -v a="$(inclusive "$function" "$counts/$first.txt")" \
    -v b="$(inclusive "$function" "$counts/$last.txt")" \
    'BEGIN { if (a > 0) printf "  %.2fx\n", b / a; else print "  -" }'
done <<<"$stages"
awk -v a="$first" -v b="$last" 'BEGIN { printf "records grew %.2fx\n", b / a }'
