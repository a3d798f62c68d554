#!/usr/bin/env bash
# Compares two commands run in turn, in ABBA order (A B, then B A, round after round), and
# prints each one's median wall time, system time and peak memory, with every wall time
# sorted. On the development machine the second run of a pair meets the memory the first
# one freed and wins, by 15-25% (bench/HISTORY.md, the session of 2026-12-04 evening):
# alternating A B A B favours B, and ABBA cancels that.
#
#   bench/compare.sh 'target/release/gotchas check --root /tmp/c --no-cache' \
#                    '/tmp/old/gotchas check --root /tmp/c --no-cache'
#   ROUNDS=6 BEFORE='rm -rf /dev/shm/site' bench/compare.sh 'gotchas build --out /dev/shm/site' \
#       'MIMALLOC_ALLOW_THP=0 gotchas build --out /dev/shm/site'
#
# Each command is run by the shell (so `VAR=value command` works); its output is thrown
# away and its exit status ignored (a generated corpus has faults, so `check` exits 1).
# $BEFORE, when set, runs before each run, untimed, and once more at the end, so that what
# it clears (a site built into tmpfs, gigabytes of memory at 100k records) is not left
# behind to weigh on the next measurement. $ROUNDS (default 10) is the number of runs of
# each command.
set -euo pipefail

if [ $# -ne 2 ]; then
  echo "usage: bench/compare.sh 'COMMAND A' 'COMMAND B'" >&2
  exit 2
fi
ROUNDS=${ROUNDS:-10}
BEFORE=${BEFORE:-}
measured=$(mktemp)
runs=$(mktemp)
trap 'rm -f "$measured" "$runs"; if [ -n "$BEFORE" ]; then bash -c "$BEFORE"; fi' EXIT

# run LABEL COMMAND: appends "LABEL wall system peak_kib" to $runs.
run() {
  if [ -n "$BEFORE" ]; then bash -c "$BEFORE"; fi
  /usr/bin/time -o "$measured" -f "%e %S %M" bash -c "$2" >/dev/null 2>&1 || true
  echo "$1 $(tail -n 1 "$measured")" >>"$runs"
}

for round in $(seq "$ROUNDS"); do
  if [ $((round % 2)) = 1 ]; then
    run A "$1"
    run B "$2"
  else
    run B "$2"
    run A "$1"
  fi
done

# median LABEL COLUMN: the median of that column (2 wall, 3 system, 4 peak) of LABEL's runs.
median() {
  awk -v label="$1" -v column="$2" '$1 == label { print $column }' "$runs" | sort -n |
    awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

for label in A B; do
  command=$1
  [ "$label" = B ] && command=$2
  printf '%s: %s\n' "$label" "$command"
  printf '   median wall %s s, system %s s, peak %s MiB; wall: %s\n' \
    "$(median "$label" 2)" "$(median "$label" 3)" \
    "$(awk -v k="$(median "$label" 4)" 'BEGIN { printf "%.1f", k / 1024 }')" \
    "$(awk -v label="$label" '$1 == label { print $2 }' "$runs" | sort -n | tr '\n' ' ')"
done
