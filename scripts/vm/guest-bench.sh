# Guest script (scripts/vm/bench.sh): one capture-bench benchmark against vivid, CaptureKit and
# ffmpeg on the same devices in the same VM run. The release build's directory is
# CAPTUREKIT_VM_BIN; the benchmark is CAPTUREKIT_BENCH_NAME (bench.sh's BENCH, default
# v4l2-latency).
# libcamera's camera: vimc, listed once udevd has processed it.
if [ "${CAPTUREKIT_BENCH_NAME:-}" = libcamera-vimc ]; then load_vimc && start_udev; fi
step bench "$CAPTUREKIT_VM_BIN/capture-bench" --only "${CAPTUREKIT_BENCH_NAME:-v4l2-latency}" --frames "${CAPTUREKIT_BENCH_FRAMES:-150}" $CAPTUREKIT_BENCH_ARGS
