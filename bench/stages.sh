#!/usr/bin/env bash
# Wall time of each stage of `gotchas check` (the `timing:` lines of `--verbose`) at several
# corpus sizes, and how much each stage grew from the first size to the last: the issue's
# "10x the records, at most 11x the time" as the clock sees it, where bench/instructions.sh
# counts the work alone. Unlike instructions, wall time includes cache misses and the kernel
# zeroing fresh memory, and this machine's clock drifts by a third within an hour: the sizes
# are run in turn, round after round, so that a slow spell falls on all of them, and each
# figure is the median of $RUNS rounds (default 5).
#
#   bench/stages.sh                                   # 10k and 100k JSON records
#   SIZES="30000 300000" FORMAT=yaml RUNS=7 bench/stages.sh
#
# Checks run with `--no-cache`, so every stage does its whole work. Corpora come from the
# synth example, into $BENCH_DIR (default /tmp/gotchas-bench), shared with bench/run.sh.
set -euo pipefail
cd "$(dirname "$0")/.."

SIZES=${SIZES:-"10000 100000"}
FORMAT=${FORMAT:-json}
RUNS=${RUNS:-5}
BENCH_DIR=${BENCH_DIR:-/tmp/gotchas-bench}

cargo build --release --quiet --bin gotchas --example synth
bin=${CARGO_TARGET_DIR:-target}/release
timings=$(mktemp)
trap 'rm -f "$timings"' EXIT

for size in $SIZES; do
  corpus="$BENCH_DIR/$size-$FORMAT"
  if [ ! -d "$corpus" ]; then
    "$bin/examples/synth" --records "$size" --format "$FORMAT" --seed 42 \
      --out "$corpus" --error-rate 0.01 2>/dev/null
  fi
done

# One line per stage and run: "SIZE<TAB>STAGE<TAB>MILLISECONDS".
for _ in $(seq "$RUNS"); do
  for size in $SIZES; do
    # A generated corpus has faults, so the check exits 1.
    { "$bin/gotchas" check --root "$BENCH_DIR/$size-$FORMAT" --no-cache --verbose --format json \
      2>&1 >/dev/null || true; } | awk -v size="$size" '
        /^timing: / {
          line = substr($0, 9)
          split_at = match(line, /: [0-9.]+(µs|ms|s)$/)
          if (!split_at) next
          stage = substr(line, 1, split_at - 1)
          value = substr(line, split_at + 2)
          unit = value; sub(/^[0-9.]+/, "", unit); sub(/(µs|ms|s)$/, "", value)
          ms = value * (unit == "µs" ? 0.001 : unit == "s" ? 1000 : 1)
          printf "%s\t%s\t%.3f\n", size, stage, ms
        }' >>"$timings"
  done
done

# median SIZE STAGE: the median of that stage's times at that size, in milliseconds.
median() {
  awk -F '\t' -v size="$1" -v stage="$2" '$1 == size && $2 == stage { print $3 }' "$timings" |
    sort -n | awk '{ v[NR] = $1 } END { if (NR == 0) print "-"; else if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

first=${SIZES%% *}
last=${SIZES##* }
printf '%-20s' "stage (ms)"
for size in $SIZES; do printf ' %10s' "$size"; done
printf '  growth\n'
awk -F '\t' '!seen[$2]++ { print $2 }' "$timings" | while IFS= read -r stage; do
  printf '%-20s' "$stage"
  for size in $SIZES; do printf ' %10s' "$(median "$size" "$stage")"; done
  awk -v a="$(median "$first" "$stage")" -v b="$(median "$last" "$stage")" \
    'BEGIN { if (a > 0) printf "  %.1fx\n", b / a; else print "  -" }'
done
awk -v a="$first" -v b="$last" -v runs="$RUNS" \
  'BEGIN { printf "records grew %.2fx; medians of %d runs, --no-cache\n", b / a, runs }'
