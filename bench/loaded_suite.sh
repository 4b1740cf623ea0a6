#!/usr/bin/env bash
# The suite on a loaded machine, as a new contributor's clone meets it: RUNS fresh
# clones of this repository (HEAD), each running ./scripts/test (its own .venv, its
# own installs) with HOGS busy-loop processes beside it the whole time. Prints one
# line per run (status, minutes, the pytest summary lines) and appends them to
# bench/out/loaded-suite.txt with the commit and the machine, for BENCHMARKS.md.
#
#   bench/loaded_suite.sh            10 runs, 2 hogs
#   RUNS=3 HOGS=2 bench/loaded_suite.sh
#
# Each run clones the HEAD of that moment (its commit is on its line), so a
# long series tests the commits made meanwhile too.
#
# A hog is a plain `while :; do :; done` shell loop: it takes a whole core and
# allocates nothing, the steady background load a busy laptop or a shared CI
# runner gives; the suite must stay green beside it (it may be slower).
set -uo pipefail
cd "$(dirname "$0")/.."
repo=$(pwd)
runs="${RUNS:-10}"
hogs="${HOGS:-2}"
out="$repo/bench/out/loaded-suite.txt"
mkdir -p "$repo/bench/out"
commit=$(git rev-parse --short HEAD)
machine="$(nproc) cores, $(uname -sr), $(python3 --version 2>&1)"
echo "== $(date -u +%FT%TZ) commit $commit: $runs fresh clones, $hogs CPU hogs; $machine" | tee -a "$out"
green=0
for run in $(seq 1 "$runs"); do
  work=$(mktemp -d "${TMPDIR:-/tmp}/svoyak-loaded.XXXXXX")
  git clone --quiet --no-hardlinks "$repo" "$work/svoyak"
  pids=()
  for _ in $(seq 1 "$hogs"); do
    bash -c 'while :; do :; done' &
    pids+=("$!")
  done
  # Stopped early (Ctrl-C, kill): the hogs go with the script.
  trap 'kill "${pids[@]}" 2>/dev/null; exit 130' INT TERM
  started=$(date +%s)
  (cd "$work/svoyak" && ./scripts/test) >"$work/log.txt" 2>&1
  status=$?
  ended=$(date +%s)
  kill "${pids[@]}" 2>/dev/null
  wait "${pids[@]}" 2>/dev/null
  minutes=$(awk -v s="$((ended - started))" 'BEGIN { printf "%d:%02d", s / 60, s % 60 }')
  summary=$(grep -E '^(=+ )?[0-9]+ (passed|failed)|^FAILED|^ERROR' "$work/log.txt" | tr '\n' ' ')
  [ "$status" -eq 0 ] && green=$((green + 1))
  cloned=$(git -C "$work/svoyak" rev-parse --short HEAD)
  echo "run $run ($cloned): exit $status in $minutes  $summary" | tee -a "$out"
  if [ "$status" -eq 0 ]; then
    rm -rf "$work"
  else
    echo "   log kept: $work/log.txt" | tee -a "$out"
  fi
done
echo "== $green of $runs green" | tee -a "$out"
[ "$green" -eq "$runs" ]
