#!/usr/bin/env bash
# The V4L2 benchmark (capture-bench's v4l2-latency) inside the test VM against the kernel's
# vivid camera, beside ffmpeg on the same device: frame age at delivery (median, p99) and CPU
# per delivered frame. Release build. Figures are under qemu's software emulation, so compare
# the two rows with each other, not with native numbers.
#   FRAMES=n   measured frames per case (default 150: 6 s at 25 fps)
#   extra arguments go to capture-bench (e.g. --json)
set -euo pipefail
cd "$(dirname "$0")/../.."
scripts/install-deps.sh ffmpeg
swift build -c release --product capture-bench >&2
bin=$(swift build -c release --show-bin-path)
share=.vm-cache/runs/guest-bench
status=0
CAPTUREKIT_VM_BIN="$bin" CAPTUREKIT_BENCH_FRAMES="${FRAMES:-150}" CAPTUREKIT_BENCH_ARGS="$*" \
  scripts/vm/run.sh scripts/vm/guest-bench.sh || status=$?
grep -v '^capture-bench: warning' "$share/bench.log" 2>/dev/null || true
exit "$status"
