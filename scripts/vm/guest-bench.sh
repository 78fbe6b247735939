# Guest script (scripts/vm/bench.sh): capture-bench's V4L2 benchmark against vivid, CaptureKit
# and ffmpeg on the same device in the same VM run. The release build's directory is
# CAPTUREKIT_VM_BIN.
step bench "$CAPTUREKIT_VM_BIN/capture-bench" --only v4l2-latency --frames "${CAPTUREKIT_BENCH_FRAMES:-150}" $CAPTUREKIT_BENCH_ARGS
