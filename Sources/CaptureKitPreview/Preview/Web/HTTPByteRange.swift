import Foundation

/// The part of a file a `Range: bytes=…` request header asks for (RFC 9110 §14.1.2), which a
/// browser's `<video>` sends to read a movie's index wherever it lies in the file and to seek.
/// One range only: a multi-range request is answered with the whole file, as the RFC allows.
struct HTTPByteRange: Hashable, Sendable {
    /// The first byte.
    var start: Int
    /// How many bytes from `start`.
    var count: Int

    /// What a request's `Range` header means for a file of `size` bytes.
    enum Selection: Hashable, Sendable {
        /// No header, or one this server ignores (not `bytes`, several ranges): the whole file.
        case whole
        /// These bytes (206 Partial Content).
        case part(HTTPByteRange)
        /// The range lies outside the file (416 Range Not Satisfiable).
        case unsatisfiable
    }

    /// Reads `header` (`bytes=0-99`, `bytes=100-`, `bytes=-500`) against a file of `size` bytes.
    static func select(_ header: String?, size: Int) -> Selection {
        guard let header else { return .whole }
        let text = header.trimmingCharacters(in: .whitespaces)
        guard text.lowercased().hasPrefix("bytes="), !text.contains(",") else { return .whole }
        let spec = text.dropFirst("bytes=".count).trimmingCharacters(in: .whitespaces)
        guard let dash = spec.firstIndex(of: "-") else { return .unsatisfiable }
        let first = spec[..<dash].trimmingCharacters(in: .whitespaces)
        let last = spec[spec.index(after: dash)...].trimmingCharacters(in: .whitespaces)
        if first.isEmpty {
            // A suffix: the last N bytes.
            guard let suffix = Int(last), suffix > 0, size > 0 else { return .unsatisfiable }
            let count = min(suffix, size)
            return .part(HTTPByteRange(start: size - count, count: count))
        }
        guard let start = Int(first), start >= 0, start < size else { return .unsatisfiable }
        let end: Int
        if last.isEmpty {
            end = size - 1
        } else {
            guard let value = Int(last), value >= start else { return .unsatisfiable }
            end = min(value, size - 1)
        }
        return .part(HTTPByteRange(start: start, count: end - start + 1))
    }

    /// The `Content-Range` value for these bytes of a file of `size` bytes.
    func contentRange(of size: Int) -> String { "bytes \(start)-\(start + count - 1)/\(size)" }
}
