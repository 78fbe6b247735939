#!/usr/bin/env bash
# Benchmarks: builds capture-bench in release and runs it; arguments go to capture-bench
# (try --help). Not part of the test run: timings need a release build and a quiet machine.
set -euo pipefail
cd "$(dirname "$0")/.."

# Build dependencies plus the peer tools the benchmarks race (later: zbar-tools…): cjpeg for the
# photo benchmark; gst-launch with rawvideoparse/videoconvert (base), qtmux (good), x264enc
# (ugly) and avenc_aac (libav) for the record benchmark (bad: the anchor's full peer set); nginx
# with its RTMP module, the server the stream benchmark publishes to (it runs its own instance
# on a free loopback port; the package's own service is left as Debian sets it up); time, the
# small parent record-1080p measures every child's peak RSS under.
scripts/install-deps.sh ffmpeg libjpeg-turbo-progs \
  gstreamer1.0-tools gstreamer1.0-plugins-base-apps gstreamer1.0-plugins-base gstreamer1.0-plugins-good gstreamer1.0-plugins-bad \
  gstreamer1.0-plugins-ugly gstreamer1.0-libav gstreamer1.0-opencv nginx libnginx-mod-rtmp time

# Build chatter goes to stderr so `scripts/bench.sh --json` prints only JSON on stdout.
# capture too: the startup benchmark times `capture devices` beside the peers.
swift build -c release --product capture-bench >&2
swift build -c release --product capture >&2
exec "$(swift build -c release --show-bin-path)/capture-bench" "$@"
