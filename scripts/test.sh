#!/usr/bin/env bash
# The test command: installs what is missing, builds, runs every test (unit, session and
# device tests against the built-in virtual camera and microphone).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
swift build --build-tests
swift test --skip-build "$@"
