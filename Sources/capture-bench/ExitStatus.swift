/// Exit statuses, from sysexits.h (as the `capture` CLI uses).
enum ExitStatus: Int32 {
    case success = 0
    case failure = 1
    case usage = 64
}
