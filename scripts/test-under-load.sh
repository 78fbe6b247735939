#!/usr/bin/env bash
# Runs the README's test command (scripts/test.sh) RUNS times in a row (default 3) with two CPU
# hogs (busy loops, one per core of a 2-core machine) running beside it the whole time, then once
# on a quiet machine unless QUIET=0; prints how long each run took. Stops at the first failing
# run. The tests assert what the library promises under any load, so every run must pass.
#   RUNS=n    loaded runs (default 3)
#   HOGS=n    busy loops (default 2)
#   QUIET=0   skip the quiet run
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${RUNS:-3} hogs=${HOGS:-2} quiet=${QUIET:-1}
logs=$(mktemp -d)
hog_pids=()
stop_hogs() { for pid in "${hog_pids[@]}"; do kill "$pid" 2>/dev/null || true; done; hog_pids=(); }
trap stop_hogs EXIT
scripts/install-deps.sh
swift build --build-tests    # built once, before the clock starts

run() {  # run LABEL: one scripts/test.sh run, timed, its log kept
  local label=$1 start end status=0
  start=$(date +%s)
  scripts/test.sh > "$logs/$label.log" 2>&1 || status=$?
  end=$(date +%s)
  printf '%-8s %s  %4d s  load %s  (log: %s)\n' "$label" "$([ $status = 0 ] && echo passed || echo FAILED)" \
    $((end - start)) "$(cut -d' ' -f1-3 /proc/loadavg)" "$logs/$label.log"
  if [ $status != 0 ]; then grep -E '✘|error:|failed' "$logs/$label.log" | tail -30; exit 1; fi
}

for _ in $(seq "$hogs"); do ( while :; do :; done ) & hog_pids+=($!); done
echo "test-under-load: $hogs busy loops running (pids ${hog_pids[*]})"
for i in $(seq "$runs"); do run "loaded-$i"; done
stop_hogs
if [ "$quiet" = 1 ]; then run quiet; fi
echo "test-under-load: all runs passed"
