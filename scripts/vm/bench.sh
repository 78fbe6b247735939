#!/usr/bin/env bash
# A capture-bench benchmark inside the test VM against the kernel's vivid cameras, beside ffmpeg
# on the same devices. By default the V4L2 benchmark (v4l2-latency): frame age at delivery
# (median, p99) and CPU per delivered frame. Release build. Figures are under qemu's software
# emulation, so compare the rows with each other, not with native numbers.
#   BENCH=name   the benchmark to run (default v4l2-latency); multicam-vivid runs 1, 2 and 4
#                vivid cameras in one multi-camera session, each to a data output and an H.264
#                recording, beside as many ffmpeg -f v4l2 → libx264 processes; pipewire-vivid
#                captures one vivid camera through PipeWire (WirePlumber's V4L2 monitor) and
#                directly, beside gst-launch pipewiresrc; libcamera-vimc captures vimc through
#                libcamera beside cam --capture; first-frame times a vivid camera's first frame
#                (session start, and a cold capture frames --count 1 beside ffmpeg and gst-launch)
#   FRAMES=n     measured frames per case (default 150: 6 s at 25 fps); for multicam-vivid the
#                frames each camera records
#   CAPTUREKIT_BENCH_MULTICAM_SIZE=WxH   multicam-vivid's vivid size (default 640x480; 320x180
#                offers 30 fps and is lighter under emulation)
#   extra arguments go to capture-bench (e.g. --json)
set -euo pipefail
cd "$(dirname "$0")/../.."
scripts/install-deps.sh ffmpeg
swift build -c release --product capture-bench >&2
swift build -c release --product CaptureKitLibCamera >&2   # libcamera-vimc: loaded beside the binary
swift build -c release --product capture >&2               # first-frame: runs capture frames beside the peers
bin=$(swift build -c release --show-bin-path)
share=.vm-cache/runs/guest-bench
status=0
CAPTUREKIT_VM_BIN="$bin" CAPTUREKIT_BENCH_NAME="${BENCH:-v4l2-latency}" CAPTUREKIT_BENCH_FRAMES="${FRAMES:-150}" CAPTUREKIT_BENCH_ARGS="$*" \
  scripts/vm/run.sh scripts/vm/guest-bench.sh || status=$?
grep -v '^capture-bench: warning' "$share/bench.log" 2>/dev/null || true
exit "$status"
