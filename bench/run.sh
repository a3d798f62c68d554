#!/usr/bin/env bash
# Whole-process benchmark: wall time and peak memory of `gotchas check` against the floor
# (examples/floor.rs: read and parse every record with the same parsers, nothing else), on
# generated corpora of 1k, 10k and 100k records in each format.
#
#   bench/run.sh                 # all sizes
#   SIZES="1000 10000" bench/run.sh
#
# Corpora are generated once into $BENCH_DIR (default /tmp/gotchas-bench) by the synth
# example and reused. Each figure is the best of $RUNS runs (default 3), after one warm-up
# run, so the file cache is warm for every contender alike.
set -euo pipefail
cd "$(dirname "$0")/.."

SIZES=${SIZES:-"1000 10000 100000"}
FORMATS=${FORMATS:-"json yaml md"}
RUNS=${RUNS:-3}
BENCH_DIR=${BENCH_DIR:-/tmp/gotchas-bench}

cargo build --release --quiet --bin gotchas --example synth --example floor
bin=target/release
mkdir -p "$BENCH_DIR"

# best_of CMD...: prints "seconds peak_kib" of the fastest of $RUNS runs. /usr/bin/time
# writes to a file of its own (-o), as the command's output is thrown away.
best_of() {
  "$@" >/dev/null 2>&1 || true
  local best="" line measured
  measured=$(mktemp)
  for _ in $(seq "$RUNS"); do
    /usr/bin/time -o "$measured" -f "%e %M" "$@" >/dev/null 2>&1 || true
    line=$(tail -n 1 "$measured")
    if [ -z "$best" ] || awk -v a="${line%% *}" -v b="${best%% *}" 'BEGIN { exit !(a < b) }'; then
      best=$line
    fi
  done
  rm -f "$measured"
  echo "$best"
}

printf '%-8s %-5s %12s %12s %12s %12s %7s\n' records format check_s check_MiB floor_s floor_MiB ratio
for size in $SIZES; do
  for format in $FORMATS; do
    corpus="$BENCH_DIR/$size-$format"
    if [ ! -d "$corpus" ]; then
      "$bin/examples/synth" --records "$size" --format "$format" --seed 42 --out "$corpus" --error-rate 0.01 2>/dev/null
    fi
    read -r check_s check_kib < <(best_of "$bin/gotchas" check --root "$corpus" --format json)
    read -r floor_s floor_kib < <(best_of "$bin/examples/floor" "$corpus")
    ratio=$(awk -v a="$check_s" -v b="$floor_s" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "-" }')
    printf '%-8s %-5s %12s %12.1f %12s %12.1f %7s\n' "$size" "$format" "$check_s" \
      "$(awk -v k="$check_kib" 'BEGIN { print k / 1024 }')" "$floor_s" \
      "$(awk -v k="$floor_kib" 'BEGIN { print k / 1024 }')" "$ratio"
  done
done
