#!/usr/bin/env bash
# The fuzz harness (not part of the tests): for MINUTES (default 10) makes fresh mutations of the
# hostile-file corpus (scripts/fuzz/corpus.py, a new seed each round) and runs each through the
# release `capture` (scripts/fuzz/run.py: probe, thumbnail, library import, record from a file
# device), then prints how many runs crashed, hung or misbehaved. Files that did are kept in
# fuzz-findings/ (git-ignored) with the seed that made them. CI runs the seed-1 corpus once
# (HostileFileTests).
set -euo pipefail
cd "$(dirname "$0")/.."
minutes=${1:-10}
scripts/install-deps.sh
swift build -c release --product capture >&2
capture="$(swift build -c release --show-bin-path)/capture"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
deadline=$(( $(date +%s) + minutes * 60 ))
rounds=0 runs=0 failed=0
while [ "$(date +%s)" -lt "$deadline" ]; do
  seed=$RANDOM$RANDOM
  rm -rf "$work/round"
  /usr/bin/python3 scripts/fuzz/corpus.py "$work/round" --mutations 20 --seed "$seed" --no-seeds > "$work/files"
  set +e
  /usr/bin/python3 scripts/fuzz/run.py "$capture" $(cat "$work/files") --timeout 30 --findings "fuzz-findings/seed-$seed" > "$work/report"
  status=$?
  set -e
  grep '^FAIL' "$work/report" || true
  summary=$(tail -n 1 "$work/report")
  runs=$(( runs + $(echo "$summary" | cut -d' ' -f1) ))
  failed=$(( failed + $(echo "$summary" | sed 's/.*: \([0-9]*\) failed/\1/') ))
  rounds=$(( rounds + 1 ))
  [ "$status" -le 1 ] || { echo "fuzz: run.py itself failed ($status)" >&2; exit 2; }
done
echo "fuzz: $rounds rounds, $runs runs in $minutes min: $failed crashed, hung or misbehaved"
[ "$failed" = 0 ]
