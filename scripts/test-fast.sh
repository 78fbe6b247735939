#!/usr/bin/env bash
# The fast loop: builds, then runs every test that needs no real time, no sound-server daemon,
# no child process, no browser and no VM (Swift Testing tags, see
# Tests/CaptureKitTests/Support/TestNeeds.swift), in parallel. Under a minute on 2 cores once
# built. Extra arguments go to `swift test` (e.g. --filter MediaTime).
set -euo pipefail
cd "$(dirname "$0")/.."
swift build --build-tests
start=$(date +%s.%N)
CAPTUREKIT_TEST_EXCLUDE=realTime,soundServer,childProcess,browser,vm swift test --skip-build --parallel "$@"
printf 'test-fast: tests ran in %.1f s\n' "$(echo "$(date +%s.%N) - $start" | bc)"
