import Dispatch
import Glibc

/// Turns signals into a callback instead of process death, so a recording interrupted with
/// Ctrl-C or `kill` still finishes its file.
final class SignalWatcher {
    private let sources: [any DispatchSourceSignal]

    init(signals: [Int32], handler: @escaping @Sendable () -> Void) {
        sources = signals.map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler(handler: handler)
            source.resume()
            return source
        }
    }

    func cancel() {
        for source in sources { source.cancel() }
    }
}
