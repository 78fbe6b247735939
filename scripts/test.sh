#!/usr/bin/env bash
# The test command: installs what is missing, builds, runs the V4L2, ALSA and libcamera suites
# inside a qemu VM with the kernel's virtual cameras and loopback sound card
# (scripts/vm/run.sh; only when no test filter is given), then every host test (unit, session
# and device tests against the built-in virtual camera and microphone). The host run comes
# last so that its summary closes the log; a VM failure still fails the command.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
swift build --build-tests
vm=0
if [ $# -eq 0 ]; then scripts/vm/run.sh scripts/vm/guest-tests.sh || vm=$?; fi
# Serially: the real-time suites assert exact frame timing, which other suites running beside
# them on a 2-core machine would disturb.
swift test --skip-build --no-parallel "$@"
if [ "$vm" != 0 ]; then echo "test: the VM suites FAILED (status $vm; their log is above)" >&2; fi
exit "$vm"
