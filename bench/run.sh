#!/usr/bin/env bash
# Whole-process benchmark: wall time and peak memory of `gotchas check` and `gotchas build`
# against the floor (examples/floor.rs: read and parse every record with the same parsers,
# nothing else), on generated corpora of 1k, 10k and 100k records in each format, so the
# ratio to the floor is measured in the same run. `build` has a floor of its own,
# `wfloor` (examples/write_floor.rs: write the built site's folders and files anew from
# memory, on as many threads), as creating 200,000 files is most of a build at 100k
# records. `check` runs with `--no-cache`, parsing every file as the floor does; `first` is
# a check with no cache yet, which writes one (a fresh clone in CI); `cached` is a check run
# again on the unchanged corpus, recalling what the first run left in `.gotchas-cache/`.
#
#   bench/run.sh                                  # all sizes and formats
#   SIZES="1000 10000" FORMATS=json bench/run.sh
#   BUILD=0 bench/run.sh                          # check and floor only
#
# Corpora are generated once into $BENCH_DIR (default /tmp/gotchas-bench) by the synth
# example and reused. Each figure is the best of $RUNS runs (default 3), after one warm-up
# run, so the file cache is warm for every contender alike. Sites are built into $SITE_DIR
# (default /dev/shm/gotchas-bench-site, a tmpfs), deleted before each build (outside the
# timing) so no run pays for replacing the previous one. Not on the ext4 /tmp: after a few
# hundred thousand files were created and deleted there, the kernel's search for a free
# inode (find_inode_bit, recently_deleted) took most of a build's time, 8 s instead of 1.4 s
# for 10k records, which measured the file system's age rather than gotchas.
set -euo pipefail
cd "$(dirname "$0")/.."

SIZES=${SIZES:-"1000 10000 100000"}
FORMATS=${FORMATS:-"json yaml md"}
RUNS=${RUNS:-3}
BUILD=${BUILD:-1}
BENCH_DIR=${BENCH_DIR:-/tmp/gotchas-bench}

cargo build --release --quiet --bin gotchas --example synth --example floor --example write_floor
bin=${CARGO_TARGET_DIR:-target}/release
mkdir -p "$BENCH_DIR"
site=${SITE_DIR:-/dev/shm/gotchas-bench-site}

# best_of CMD...: prints "seconds peak_kib" of the fastest of $RUNS runs, after a warm-up
# run. $BEFORE, when set, is run before each run, untimed. /usr/bin/time writes to a file
# of its own (-o), as the command's output is thrown away.
best_of() {
  ${BEFORE:-true}
  "$@" >/dev/null 2>&1 || true
  local best="" line measured
  measured=$(mktemp)
  for _ in $(seq "$RUNS"); do
    ${BEFORE:-true}
    /usr/bin/time -o "$measured" -f "%e %M" "$@" >/dev/null 2>&1 || true
    line=$(tail -n 1 "$measured")
    if [ -z "$best" ] || awk -v a="${line%% *}" -v b="${best%% *}" 'BEGIN { exit !(a < b) }'; then
      best=$line
    fi
  done
  rm -f "$measured"
  echo "$best"
}

# best_printed CMD...: prints the fewest seconds CMD said it took ("... in S s") over $RUNS
# runs, after a warm-up run, each after $BEFORE: for a floor that must not count reading
# what it then writes.
best_printed() {
  local best="" seconds round
  for round in $(seq 0 "$RUNS"); do
    ${BEFORE:-true}
    seconds=$("$@" 2>/dev/null | sed -n 's/.* in \([0-9.]*\) s$/\1/p')
    [ -n "$seconds" ] || continue
    if [ "$round" != 0 ] && { [ -z "$best" ] || awk -v a="$seconds" -v b="$best" 'BEGIN { exit !(a < b) }'; }; then
      best=$seconds
    fi
  done
  echo "${best:--}"
}

mib() { awk -v k="$1" 'BEGIN { printf "%.1f", k / 1024 }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "-" }'; }
remove_site() { rm -rf "$site"; }
remove_copy() { rm -rf "$site-floor"; }
remove_cache() { rm -rf "$corpus/.gotchas-cache"; }

printf '%-7s %-4s %8s %9s %8s %9s %6s %8s %9s %8s %9s %8s %9s %8s %7s %8s %9s\n' records fmt \
  check_s check_MiB floor_s floor_MiB ratio first_s first_MiB cached_s cached_MiB build_s \
  build_MiB pages pages/s wfloor_s b/wfloor
for size in $SIZES; do
  for format in $FORMATS; do
    corpus="$BENCH_DIR/$size-$format"
    if [ ! -d "$corpus" ]; then
      "$bin/examples/synth" --records "$size" --format "$format" --seed 42 --out "$corpus" --error-rate 0.01 2>/dev/null
    fi
    read -r check_s check_kib < <(best_of "$bin/gotchas" check --root "$corpus" --format json --no-cache)
    read -r floor_s floor_kib < <(best_of "$bin/examples/floor" "$corpus")
    read -r first_s first_kib < <(BEFORE=remove_cache best_of "$bin/gotchas" check --root "$corpus" --format json)
    # The warm-up run leaves the cache the timed runs recall from.
    rm -rf "$corpus/.gotchas-cache"
    read -r cached_s cached_kib < <(best_of "$bin/gotchas" check --root "$corpus" --format json)
    build_s=- build_mib=- pages=- per_s=- wfloor_s=- wfloor_ratio=-
    if [ "$BUILD" = 1 ]; then
      read -r build_s build_kib < <(BEFORE=remove_site best_of "$bin/gotchas" build --root "$corpus" --out "$site")
      build_mib=$(mib "$build_kib")
      pages=$(find "$site" -name '*.html' | wc -l)
      per_s=$(awk -v p="$pages" -v s="$build_s" 'BEGIN { if (s > 0) printf "%.0f", p / s; else print "-" }')
      wfloor_s=$(BEFORE=remove_copy best_printed "$bin/examples/write_floor" "$site" "$site-floor")
      wfloor_ratio=$(ratio "$build_s" "$wfloor_s")
      remove_copy
      remove_site
    fi
    printf '%-7s %-4s %8s %9s %8s %9s %6s %8s %9s %8s %9s %8s %9s %8s %7s %8s %9s\n' "$size" "$format" \
      "$check_s" "$(mib "$check_kib")" "$floor_s" "$(mib "$floor_kib")" \
      "$(ratio "$check_s" "$floor_s")" "$first_s" "$(mib "$first_kib")" "$cached_s" \
      "$(mib "$cached_kib")" "$build_s" "$build_mib" "$pages" "$per_s" "$wfloor_s" "$wfloor_ratio"
  done
done
