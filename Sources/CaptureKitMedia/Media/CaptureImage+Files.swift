import CaptureKitCore
import Foundation
import Glibc

extension CaptureImage {
    /// The picture in the file at `url` (`UIImage(contentsOfFile:)`), upright, as
    /// ``init(data:)`` reads it. `.fileError` for a file that cannot be read, `.unsupportedFile`
    /// for one that is not a regular file or not a picture, `.corruptFile` for one that does not
    /// decode.
    public init(contentsOf url: URL) throws(CaptureError) {
        try self.init(data: try Self.read(url.path), path: url.path)
    }

    /// Writes the image to `url` as the extension says: `.jpg`/`.jpeg` (at `compressionQuality`,
    /// 0...1 as ``jpegData(compressionQuality:)``), `.png`, or `.heic`/`.heif` (where libheif has
    /// an HEVC encoder). An existing file is kept and `.fileError` (`EEXIST`) thrown unless
    /// `overwrite`; `.invalidArgument` for another extension, `.fileError` for a path that cannot
    /// be written, `.diskFull` when the disk is. Nothing is left behind when writing fails.
    public func write(to url: URL, compressionQuality: Double = 0.9, overwrite: Bool = false) throws(CaptureError) {
        let data: Data
        switch url.pathExtension.lowercased() {
        case "jpg", "jpeg": data = try jpeg(compressionQuality: compressionQuality)
        case "png": data = try png()
        case "heic", "heif":
            data = try HEIFEncoder.encode(pixelBuffer, quality: Self.encoderQuality(compressionQuality), metadata: nil)
        default:
            throw CaptureError(.invalidArgument, "cannot tell an image format from the extension of \(url.lastPathComponent); use .jpg, .png or .heic",
                               path: url.path)
        }
        try Self.write(data, to: url.path, overwrite: overwrite)
    }

    /// The whole regular file at `path`; a FIFO or device is refused rather than waited on.
    private static func read(_ path: String) throws(CaptureError) -> Data {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard descriptor >= 0 else { throw fileError("open", "cannot open the image", path: path) }
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { throw fileError("fstat", "cannot read the image", path: path) }
        guard info.st_mode & S_IFMT == S_IFREG else { throw CaptureError(.unsupportedFile, "not a regular file", path: path) }
        var data = Data(count: Int(info.st_size))
        let outcome = data.withUnsafeMutableBytes { (raw: UnsafeMutableRawBufferPointer) -> Result<Int, CaptureError> in
            var filled = 0
            while filled < raw.count {
                let count = Glibc.read(descriptor, raw.baseAddress! + filled, raw.count - filled)
                if count < 0, errno == EINTR { continue }
                if count < 0 { return .failure(fileError("read", "cannot read the image", path: path)) }
                if count == 0 { break }
                filled += count
            }
            return .success(filled)
        }
        // A file that shrank while being read ends where reading ended.
        data.count = try outcome.get()
        return data
    }

    private static func write(_ data: Data, to path: String, overwrite: Bool) throws(CaptureError) {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_CLOEXEC | (overwrite ? O_TRUNC : O_EXCL), 0o644)
        guard descriptor >= 0 else {
            throw fileError("open", errno == EEXIST ? "the file exists (pass overwrite: true to replace it)" : "cannot create the file", path: path)
        }
        let outcome = data.withUnsafeBytes { (raw: UnsafeRawBufferPointer) -> Result<Void, CaptureError> in
            var written = 0
            while written < raw.count {
                let count = Glibc.write(descriptor, raw.baseAddress! + written, raw.count - written)
                if count < 0, errno == EINTR { continue }
                if count < 0 { return .failure(fileError("write", "cannot write the file", path: path)) }
                written += count
            }
            return .success(())
        }
        let closed = close(descriptor) == 0 ? nil : fileError("close", "cannot write the file", path: path)
        do throws(CaptureError) {
            try outcome.get()
            if let closed { throw closed }
        } catch {
            unlink(path)
            throw error
        }
    }

    /// The error for the failed call `operation`, from `errno`: `.diskFull` for a full disk or
    /// quota, else `.fileError`.
    private static func fileError(_ operation: String, _ what: String, path: String) -> CaptureError {
        let number = errno
        return CaptureError([ENOSPC, EDQUOT, EFBIG].contains(number) ? .diskFull : .fileError, "\(what): \(String(cString: strerror(number)))",
                            errno: number, operation: operation, path: path)
    }
}
