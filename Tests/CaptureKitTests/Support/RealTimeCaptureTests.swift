import Testing

/// The parent of every suite that runs capture sessions in real time. Swift Testing runs
/// top-level suites in parallel; nesting the real-time suites here (each in its own file, as an
/// extension) makes them run one at a time, so one test's capture load does not add to
/// another's. Their assertions hold under any load all the same: they check what the library
/// promises (every frame delivered or reported dropped, exact timestamps), never a rate.
@Suite(.serialized, .timeLimit(.minutes(2)), .tags(.realTime), .excludable)
struct RealTimeCaptureTests {}
