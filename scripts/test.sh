#!/usr/bin/env bash
# The test command: installs what is missing, builds, runs the V4L2, ALSA and libcamera suites
# inside a qemu VM with the kernel's virtual cameras and loopback sound card
# (scripts/vm/run.sh; only when no test filter is given), then every host test (unit, session
# and device tests against the built-in virtual camera and microphone). The host run comes
# last, so the log's last line is its runner's own summary (the VM's counts precede it). A
# failure anywhere fails the command.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
swift build --build-tests
vm=0 vm_summary="not run (a test filter was given)"
if [ $# -eq 0 ]; then
  scripts/vm/run.sh scripts/vm/guest-tests.sh || vm=$?
  # Each step's log ends with its runner's summary ("Test run with N tests … passed").
  vm_tests=$(cat .vm-cache/runs/guest-tests/*.log 2>/dev/null | grep -o 'Test run with [0-9]* test' | awk '{s += $4} END {print s + 0}')
  vm_summary="$([ "$vm" = 0 ] && echo "$vm_tests tests passed" || echo "FAILED (status $vm; their log is above)")"
fi
echo "test.sh: the VM suites: $vm_summary; the host suites follow."
# Serially: the real-time suites assert exact frame timing, which other suites running beside
# them on a 2-core machine would disturb. The bundle is run directly, as `swift test` runs it,
# so that the runner's own closing summary is the log's last line: under `swift test` the tail
# of swift-testing's output (its summary included) was lost when the log was a file.
results=.build/test-results
mkdir -p "$results"
rm -f "$results"/host*
bundle="$(swift build --show-bin-path)/CaptureKitPackageTests.xctest"
set +e
NO_COLOR=1 "$bundle" --testing-library swift-testing --no-parallel --xunit-output "$results/host.xml" "$@" 2>&1 | tee "$results/host.log"
host=${PIPESTATUS[0]}
set -e
if ! grep -aq 'Test run with [0-9]* test' "$results/host.log"; then
  # The bundle ended without its summary (it crashed, or its last output was lost): one from
  # its xunit report, in the runner's shape, says what ran.
  counts=$(grep -o -m1 'tests="[0-9]*" failures="[0-9]*" skipped="[0-9]*"' "$results/host.xml" 2>/dev/null || true)
  if [ "$host" = 0 ] && [ -n "$counts" ] && grep -q 'failures="0"' <<<"$counts"; then
    echo "✔ Test run with $(sed 's/tests="\([0-9]*\)".*/\1/' <<<"$counts") tests passed after $SECONDS seconds. (test.sh, from $results/host.xml: the runner's own summary did not reach this log)"
  else
    echo "✘ Test run failed: the host test runner ended without its summary (exit status $host; ${counts:-no xunit report})."
    [ "$host" != 0 ] || host=1
  fi
fi
[ "$host" = 0 ] || exit "$host"
if [ "$vm" != 0 ]; then
  echo "✘ Test run failed: the VM suites failed (status $vm; their log is above)."
fi
exit "$vm"
