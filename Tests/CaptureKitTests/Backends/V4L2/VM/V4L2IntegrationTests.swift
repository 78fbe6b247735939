import Testing

extension RealTimeCaptureTests {
    /// The V4L2 backend against the kernel's own virtual cameras: four vivid instances and a
    /// v4l2loopback camera fed MJPEG, inside the qemu VM scripts/vm/run.sh boots (scripts/test.sh
    /// runs it after the host tests). Disabled elsewhere: the host has no camera and cannot load
    /// the drivers. Inside the VM nothing is skipped: a missing device fails the test.
    ///
    /// The disconnect suite leaves the second vivid device failing every call until the process
    /// lets go of it, so the harness runs it in a second process after everything else
    /// (scripts/vm/guest-tests.sh). Every suite asks v4l2-ctl (and some ffprobe) about the nodes.
    @Suite(.serialized, .tags(.vm, .childProcess), .enabled(if: VMEnvironment.isEnabled, "runs inside the V4L2 test VM (scripts/vm/run.sh)"))
    struct V4L2IntegrationTests {}
}
