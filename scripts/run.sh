#!/usr/bin/env bash
# The main job: captures from the default camera (the built-in virtual camera when the machine
# has none) and saves what CaptureKit can save so far into ${OUT:-out}/.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
swift build -c release --product capture
out="${OUT:-out}"
mkdir -p "$out"
capture=.build/release/capture
echo "== devices"
$capture devices
echo "== 90 frames from the default camera"
$capture frames --count 90 --output "$out/frames.y4m"
echo "saved: $out/frames.y4m (play with: ffplay $out/frames.y4m)"
