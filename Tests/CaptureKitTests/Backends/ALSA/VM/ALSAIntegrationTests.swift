import Testing

extension RealTimeCaptureTests {
    /// The ALSA backend against a real kernel sound driver: `snd-aloop`, ALSA's loopback card,
    /// loaded in the qemu VM scripts/vm/run.sh boots (scripts/vm/guest-tests.sh runs this suite in
    /// a step of its own). What `aplay` plays into `hw:Loopback,0,0` is captured from
    /// `hw:Loopback,1,0`, paced by the driver's timer, and the driver reports real overruns.
    /// Disabled elsewhere (the host has no sound card); inside the VM a missing card fails.
    /// The sound comes from `aplay` (and `sox` makes it).
    @Suite(.serialized, .tags(.vm, .childProcess), .enabled(if: VMEnvironment.isEnabled, "runs inside the test VM (scripts/vm/run.sh)"))
    struct ALSAIntegrationTests {}
}
