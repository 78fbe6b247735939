# Guest script (scripts/vm/run.sh scripts/vm/guest-tests.sh): the V4L2 integration suites of
# the debug test bundle scripts/test.sh built, then the ALSA suites on snd-aloop, libcamera's on
# vimc, its raw role's on vimc_raw and the camera both it and V4L2 reach on vivid_uvc, each in a
# process of its own. Among the V4L2 ones, the disconnect suite leaves the second vivid device
# failing every call until CaptureKit lets go of it, so it runs after the other V4L2 suites and
# alone; so does the replug suite, which unplugs it again and waits for it to come back.
bundle="$CAPTUREKIT_VM_BIN/CaptureKitPackageTests.xctest"

# suites NAME SWIFT-TESTING-ARGS...: a step that also fails (status 3) when no test ran, since a
# filter that matches nothing passes.
suites() {
  name=$1; shift
  step "$name" "$bundle" --testing-library swift-testing "$@"
  if [ "$(cat "$name.rc")" = 0 ] && ! grep -Eq 'Test run with [1-9][0-9]* tests? .*passed' "$name.log"; then
    echo "no test ran" >> "$name.log"; echo 3 > "$name.rc"
  fi
}

suites integration --filter V4L2IntegrationTests --skip 'DisconnectTests|ReplugTests'
suites disconnect --filter 'V4L2IntegrationTests/DisconnectTests'
# A camera lost and back mid-recording (vivid's Disconnect again, on a fresh process).
suites replug --filter 'V4L2IntegrationTests/ReplugTests'
# The ALSA backend on snd-aloop's loopback sound card.
suites alsa --filter 'ALSAIntegrationTests'
# libcamera's backend on vimc (loaded now, so the suites above never saw it), with udevd, which
# libcamera needs to list cameras: last, in a process of its own.
if load_vimc && start_udev; then
  export CAPTUREKIT_VM_LIBCAMERA=1
  suites libcamera --filter 'LibCameraIntegrationTests'
else
  echo "cannot load vimc or start udevd" > libcamera.log; echo 1 > libcamera.rc; echo libcamera >> steps
fi
# libcamera's raw role, on vimc_raw's sensors through the simple pipeline handler.
if load_vimc_raw && [ -S /run/udev/control ]; then
  export CAPTUREKIT_VM_LIBCAMERA_RAW=1
  suites libcamera-raw --filter 'LibCameraRawIntegrationTests'
else
  echo "cannot load vimc_raw, or udevd is not running" > libcamera-raw.log; echo 1 > libcamera-raw.rc; echo libcamera-raw >> steps
fi
# One camera both backends reach: vivid_uvc, which libcamera's uvcvideo pipeline handler lists.
if load_vivid_uvc && [ -S /run/udev/control ]; then
  export CAPTUREKIT_VM_LIBCAMERA_UVC=1
  suites libcamera-uvc --filter 'LibCameraUVCIntegrationTests'
else
  echo "cannot load vivid_uvc, or udevd is not running" > libcamera-uvc.log; echo 1 > libcamera-uvc.rc; echo libcamera-uvc >> steps
fi
