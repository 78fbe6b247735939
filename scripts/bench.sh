#!/usr/bin/env bash
# Benchmarks: builds capture-bench in release and runs it; arguments go to capture-bench
# (try --help). Installs the peer tools the benchmarks compare against when missing.
# Not part of the test run: timings need a release build and a quiet machine.
set -euo pipefail
cd "$(dirname "$0")/.."

# Build dependencies (and ffmpeg) as the test script installs them.
scripts/install-deps.sh

# Peer tools, as "command:debian-package"; later benchmarks add gst-launch-1.0, cjpeg, zbarimg...
peers=(
  ffmpeg:ffmpeg
)
missing=()
for peer in "${peers[@]}"; do
  command -v "${peer%%:*}" >/dev/null 2>&1 || missing+=("${peer#*:}")
done
if [ ${#missing[@]} -gt 0 ]; then
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  echo "bench: installing ${missing[*]}" >&2
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get update -qq
  $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# Build chatter goes to stderr so `scripts/bench.sh --json` prints only JSON on stdout.
swift build -c release --product capture-bench >&2
exec "$(swift build -c release --show-bin-path)/capture-bench" "$@"
