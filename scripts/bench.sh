#!/usr/bin/env bash
# Benchmarks: builds capture-bench in release and runs it; arguments go to capture-bench
# (try --help). Not part of the test run: timings need a release build and a quiet machine.
set -euo pipefail
cd "$(dirname "$0")/.."

# Build dependencies plus the peer tools the benchmarks race (later: gstreamer1.0-tools,
# libjpeg-turbo-progs, zbar-tools…).
scripts/install-deps.sh ffmpeg libjpeg-turbo-progs   # cjpeg: the photo benchmark's peer

# Build chatter goes to stderr so `scripts/bench.sh --json` prints only JSON on stdout.
swift build -c release --product capture-bench >&2
exec "$(swift build -c release --show-bin-path)/capture-bench" "$@"
