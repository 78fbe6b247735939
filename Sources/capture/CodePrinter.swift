import CaptureKit
import CommandLineSupport
import Dispatch
import Foundation
import Synchronization

/// Prints each code the first time its identity appears.
final class CodePrinter: CaptureMetadataOutputObjectsDelegate {
    let done = DispatchSemaphore(value: 0)
    private let json: Bool
    private let once: Bool
    private struct State {
        var printed = Set<Int>()
        var finished = false
        var failure: Error?
    }
    private let state = Mutex(State())

    init(json: Bool, once: Bool) {
        self.json = json
        self.once = once
    }

    var printedCount: Int { state.withLock { $0.printed.count } }
    var failure: Error? { state.withLock { $0.failure } }

    func finish() {
        let first = state.withLock { state -> Bool in
            defer { state.finished = true }
            return !state.finished
        }
        if first { done.signal() }
    }

    func metadataOutput(_ output: CaptureMetadataOutput, didOutput metadataObjects: [MetadataObject], from connection: CaptureConnection) {
        for case let code as MachineReadableCodeObject in metadataObjects {
            let isNew = state.withLock { !$0.finished && $0.printed.insert(code.objectID).inserted }
            guard isNew else { continue }
            if json {
                let report = ScanCommand.Report(
                    id: code.objectID, type: code.type.rawValue, text: code.stringValue, bytes: code.data.count,
                    bounds: [code.bounds.minX, code.bounds.minY, code.bounds.width, code.bounds.height].map { Double($0) },
                    corners: code.corners.map { [Double($0.x), Double($0.y)] }, time: code.time.seconds)
                do {
                    let encoder = JSONEncoder()
                    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
                    Console.print(String(decoding: try encoder.encode(report), as: UTF8.self))
                } catch {
                    state.withLock { $0.failure = error }
                    finish()
                }
            } else {
                Console.print("\(code.type.rawValue)\t\(code.stringValue ?? "<\(code.data.count) bytes>")")
            }
            if once {
                finish()
                return
            }
        }
    }
}
