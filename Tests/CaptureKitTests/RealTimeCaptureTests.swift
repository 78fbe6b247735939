import Testing

/// The parent of every suite that runs capture sessions in real time. Swift Testing runs
/// top-level suites in parallel; nesting the real-time suites here (each in its own file, as an
/// extension) makes them run one at a time, so one test's capture load cannot make another
/// test's timing assertions flaky on a loaded 2-core machine.
@Suite(.serialized, .timeLimit(.minutes(2)))
struct RealTimeCaptureTests {}
