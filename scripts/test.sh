#!/usr/bin/env bash
# The test command: installs what is missing, builds, runs every test (unit, session and
# device tests against the built-in virtual camera and microphone), then the V4L2 and ALSA
# suites inside a qemu VM with the kernel's virtual cameras and loopback sound card
# (scripts/vm/run.sh; only when no test filter is given).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
swift build --build-tests
# Serially: the real-time suites assert exact frame timing, which other suites running beside
# them on a 2-core machine would disturb.
swift test --skip-build --no-parallel "$@"
if [ $# -eq 0 ]; then scripts/vm/run.sh scripts/vm/guest-tests.sh; fi
