#!/usr/bin/env bash
# Site benchmark: wall time, CPU time and peak memory of `gotchas build` on generated
# corpora (JSON records, with the generator's prose pages), and the pages written per second.
#
#   bench/site.sh                  # 10k and 100k records
#   SIZES="10000" bench/site.sh
#
# Corpora are generated once into $BENCH_DIR (default /tmp/gotchas-bench) by the synth
# example and reused; each site is built into a fresh folder there ($OUT_DIR, default
# $BENCH_DIR, so on the same file system), which is deleted before each run so that no run
# pays for deleting the previous site. Each figure is the best of $RUNS runs (default 1).
set -euo pipefail
cd "$(dirname "$0")/.."

SIZES=${SIZES:-"10000 100000"}
RUNS=${RUNS:-1}
BENCH_DIR=${BENCH_DIR:-/tmp/gotchas-bench}
OUT_DIR=${OUT_DIR:-$BENCH_DIR}

cargo build --release --quiet --bin gotchas --example synth
bin=target/release
if [ -n "${CARGO_TARGET_DIR:-}" ]; then
  bin=$CARGO_TARGET_DIR/release
fi
mkdir -p "$BENCH_DIR" "$OUT_DIR"

printf '%-8s %8s %10s %10s %10s %10s %12s\n' records pages wall_s user_s sys_s peak_MiB pages_per_s
for size in $SIZES; do
  corpus="$BENCH_DIR/$size-json"
  if [ ! -d "$corpus" ]; then
    "$bin/examples/synth" --records "$size" --format json --seed 42 --out "$corpus" --error-rate 0.01 2>/dev/null
  fi
  site="$OUT_DIR/site-$size"
  best=""
  pages=0
  for _ in $(seq "$RUNS"); do
    rm -rf "$site"
    log=$(mktemp)
    times=$(mktemp)
    /usr/bin/time -o "$times" -f "%e %U %S %M" "$bin/gotchas" build --root "$corpus" --out "$site" >"$log" 2>/dev/null
    line=$(tail -n 1 "$times")
    pages=$(sed -n 's/^built \([0-9]*\) pages.*/\1/p' "$log")
    rm -f "$log" "$times"
    if [ -z "$best" ] || awk -v a="${line%% *}" -v b="${best%% *}" 'BEGIN { exit !(a < b) }'; then
      best=$line
    fi
  done
  read -r wall user sys kib <<<"$best"
  printf '%-8s %8s %10s %10s %10s %10.1f %12.0f\n' "$size" "$pages" "$wall" "$user" "$sys" \
    "$(awk -v k="$kib" 'BEGIN { print k / 1024 }')" "$(awk -v p="$pages" -v w="$wall" 'BEGIN { print (w > 0 ? p / w : 0) }')"
  rm -rf "$site"
done
