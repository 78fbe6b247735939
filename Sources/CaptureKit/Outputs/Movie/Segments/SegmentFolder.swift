import Foundation

/// The folder of a segmented recording: its segments' names, their index and their retention.
/// The index, `segments.jsonl`, has one JSON line per finished segment still in the folder (its
/// file name, start as Unix seconds and ISO 8601, duration, frames, bytes): what a player or a
/// sync job reads instead of probing every file. Used on one thread at a time.
struct SegmentFolder {
    /// The index's file name.
    static let indexName = "segments.jsonl"

    let url: URL
    let segmentation: MovieSegmentation

    /// The name of a segment starting at `date`.
    func name(startingAt date: Date) -> URL {
        DatedMovieName.next(in: url, prefix: segmentation.namePrefix, date: date, extension: segmentation.fileExtension)
    }

    /// Adds `segment` to the index. Wraps write(2) in append mode: a crash leaves whole lines.
    func index(_ segment: MovieSegment) throws(CaptureError) {
        let iso = ISO8601DateFormatter()
        iso.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        let entry: [String: Any] = [
            "file": segment.url.lastPathComponent, "start": segment.startDate.timeIntervalSince1970,
            "startISO8601": iso.string(from: segment.startDate), "duration": segment.duration.seconds,
            "videoFrames": segment.videoFrameCount, "bytes": segment.fileSize,
        ]
        guard let data = try? JSONSerialization.data(withJSONObject: entry, options: [.sortedKeys]) else {
            throw .internalError("cannot describe segment \(segment.url.lastPathComponent) in JSON")
        }
        try append(data + Data("\n".utf8))
    }

    /// Deletes the oldest finished segments until the folder is within the retention limits;
    /// `current` (the segment being written) is never deleted, nor counted. Returns what it
    /// deleted, oldest first, and drops them from the index.
    func applyRetention(sparing current: URL?) -> [URL] {
        guard segmentation.maximumAge != nil || segmentation.maximumBytes != nil else { return [] }
        let prefix = segmentation.namePrefix
        let names = (try? FileManager.default.contentsOfDirectory(at: url, includingPropertiesForKeys: [.fileSizeKey])) ?? []
        let segments = names.filter { $0.pathExtension == segmentation.fileExtension && DatedMovieName.date(of: $0, prefix: prefix) != nil
            && $0.lastPathComponent != current?.lastPathComponent }
            .sorted { $0.lastPathComponent < $1.lastPathComponent }
        var doomed = Set<String>()
        if let age = segmentation.maximumAge, let newest = (segments + [current].compactMap { $0 }).compactMap({ DatedMovieName.date(of: $0, prefix: prefix) }).max() {
            let limit = newest.addingTimeInterval(-Double(age.components.seconds) - Double(age.components.attoseconds) / 1e18)
            for segment in segments where (DatedMovieName.date(of: segment, prefix: prefix) ?? newest) < limit { doomed.insert(segment.lastPathComponent) }
        }
        if let budget = segmentation.maximumBytes {
            var total: Int64 = 0
            for segment in segments.reversed() {
                total += Int64((try? segment.resourceValues(forKeys: [.fileSizeKey]).fileSize) ?? 0)
                if total > budget { doomed.insert(segment.lastPathComponent) }
            }
        }
        let deleted = segments.filter { doomed.contains($0.lastPathComponent) && (try? FileManager.default.removeItem(at: $0)) != nil }
        if !deleted.isEmpty { dropFromIndex(Set(deleted.map(\.lastPathComponent))) }
        return deleted
    }

    private var indexURL: URL { url.appendingPathComponent(Self.indexName) }

    private func append(_ data: Data) throws(CaptureError) {
        let fd = open(indexURL.path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw CaptureError(.fileError, "cannot open the segment index", errno: errno, path: indexURL.path) }
        defer { close(fd) }
        let written = data.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        guard written == data.count else {
            throw CaptureError(written < 0 && errno == ENOSPC ? .diskFull : .fileError, "cannot write the segment index", errno: errno, path: indexURL.path)
        }
    }

    /// Rewrites the index without the lines of `files` (a new file renamed over the old one).
    private func dropFromIndex(_ files: Set<String>) {
        guard let text = try? String(contentsOf: indexURL, encoding: .utf8) else { return }
        let kept = text.split(separator: "\n").filter { line in
            guard let data = line.data(using: .utf8), let entry = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
                  let file = entry["file"] as? String else { return true }
            return !files.contains(file)
        }
        let temporary = url.appendingPathComponent(".\(Self.indexName).new")
        guard (try? (kept.joined(separator: "\n") + (kept.isEmpty ? "" : "\n")).write(to: temporary, atomically: false, encoding: .utf8)) != nil else { return }
        _ = rename(temporary.path, indexURL.path)
    }
}
