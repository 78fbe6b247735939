#!/usr/bin/env bash
# The test command: installs what is missing, builds, runs the V4L2, ALSA and libcamera suites
# inside a qemu VM with the kernel's virtual cameras and loopback sound card
# (scripts/vm/run.sh; only when no test filter is given), then every host test (unit, session
# and device tests against the built-in virtual camera and microphone). The host run comes
# last, and the log closes with one summary in the test runner's shape counting both: the
# host's from swift-testing's xunit report (its console summary line does not always reach a
# redirected log), the VM's from its steps. A failure anywhere fails the command.
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
# Serially: the real-time suites assert exact frame timing, which other suites running beside
# them on a 2-core machine would disturb.
report=.build/test-results/host.xml
mkdir -p "$(dirname "$report")"
rm -f .build/test-results/host*.xml
host=0
swift test --skip-build --no-parallel --xunit-output "$report" "$@" || host=$?
counts=$(grep -o -m1 'tests="[0-9]*" failures="[0-9]*" skipped="[0-9]*"' .build/test-results/host-swift-testing.xml 2>/dev/null || true)
tests=$(sed -n 's/tests="\([0-9]*\)".*/\1/p' <<<"$counts")
failures=$(sed -n 's/.*failures="\([0-9]*\)".*/\1/p' <<<"$counts")
skipped=$(sed -n 's/.*skipped="\([0-9]*\)".*/\1/p' <<<"$counts")
# Closes with the runner's own summary shape, counting both runs, so that a log reader looking
# for "Test run with N tests passed" finds it whether or not swift test's line was flushed.
# Passed means ran and passed: the host's skipped tests (hardware absent) are not counted.
passed=$(( ${tests:-0} - ${failures:-0} - ${skipped:-0} + ${vm_tests:-0} ))
detail="test.sh: host ${tests:-?} tests, ${failures:-?} failed, ${skipped:-?} skipped (exit status $host; xunit report $report); the VM suites: $vm_summary"
if [ "$host" = 0 ] && [ "$vm" = 0 ] && [ -n "$tests" ]; then
  echo "✔ Test run with $passed tests passed after $SECONDS seconds. ($detail)"
else
  echo "✘ Test run failed after $SECONDS seconds. ($detail)"
fi
[ "$host" = 0 ] || exit "$host"
exit "$vm"
