import CaptureKit
import CommandLineSupport
import Foundation
import Synchronization

/// `capture photo`: takes one photo and writes it.
enum PhotoCommand: Command {
    static let name = "photo"
    static let summary = "take a photo (JPEG, PNG or HEIF with EXIF, or raw DNG) and print its size and latency"
    /// What the command accepts; also the option lines of ``usage``.
    static let options: [CommandOption] = [
        .value("device", "ID", "camera unique ID or name (see 'capture devices')"),
        .value("format", "F", "jpeg, png, heif or dng (default: from OUT's extension, else jpeg); dng\nkeeps the sensor's raw samples and needs a camera with a Bayer format"),
        .value("quality", "Q", "compression quality 1...100 for JPEG and HEIF (default 90)"),
        .value("size", "WxH", "largest photo size: smaller scales the frame down, larger (up to the\ncamera's largest format) switches the camera for the shot"),
        .flag("overwrite", "replace OUT if it exists (default: refuse)"),
        .flag("save-to-library", "also save the photo into the media library (see 'capture library')\nand print its path there"),
        .value("root", "DIR", "the library under DIR instead of the user's"),
    ]

    static let usage = """
        usage: capture photo OUT [--device ID] [--format jpeg|png|heif|dng] [--quality Q] [--size WxH]
                                 [--overwrite] [--save-to-library [--root DIR]]

        Starts the default camera, or DEVICE, at its largest frame size, takes a photo from the
        next frame through a CapturePhotoOutput and writes it to OUT. Prints the path, the photo's
        dimensions, its size and the capture latency (request to encoded file). A DNG photo
        streams the camera's largest raw Bayer format (within --size) and keeps its samples.

        \(CommandOption.helpText(for: options))
        """

    static func run(_ words: [String]) throws -> ExitStatus {
        let arguments = try Arguments(words, accepting: options)
        if arguments.value("root") != nil, !arguments.has("save-to-library") { throw UsageError("--root goes with --save-to-library") }
        guard arguments.positional.count == 1 else {
            throw UsageError(arguments.positional.isEmpty ? "missing OUT, the file to write" : "unexpected argument '\(arguments.positional[1])'")
        }
        let overwrite = arguments.has("overwrite")
        let url = try CommandPath.output(arguments.positional[0], overwrite: overwrite)
        let path = url.path
        let fileType = try format(arguments.value("format"), path: path)
        if fileType.isRaw, arguments.has("save-to-library") { throw UsageError("the media library takes JPEG, PNG and HEIF photos, not DNG") }
        // The library is opened before the shot, so an unusable one costs nothing.
        let library = arguments.has("save-to-library") ? try CommandPath.library(arguments) : nil
        let quality = try arguments.integer("quality", default: 90, in: 1...100)
        let size = try arguments.size("size")

        let device = try DeviceLookup.find(arguments.value("device"), mediaType: .video)
        let session = CaptureSession()
        session.beginConfiguration()
        try session.addInput(CaptureDeviceInput(device: device))
        if fileType.isRaw {
            try streamRaw(on: device, within: size)
            try session.setSessionPreset(.inputPriority)
        } else {
            try session.setSessionPreset(session.canSetSessionPreset(.photo) ? .photo : .high)
        }
        let output = CapturePhotoOutput()
        try session.addOutput(output)
        try session.commitConfiguration()
        let available = output.availablePhotoFileTypes + output.availableRawPhotoFileTypes
        guard available.contains(fileType) else {
            throw CaptureError(.unsupportedFormat, "\(fileType) photos cannot be written on this machine (available: \(available.map(\.rawValue).joined(separator: ", ")))")
        }

        var settings = fileType.isRaw ? CapturePhotoSettings(rawPixelFormat: output.availableRawPhotoPixelFormatTypes[0])
            : CapturePhotoSettings(fileType: fileType)
        settings.quality = Double(quality) / 100
        settings.maxPhotoDimensions = size.map { PhotoDimensions(width: $0.width, height: $0.height) }
        try session.startRunning()
        defer { try? session.stopRunning() }
        let waiter = PhotoWaiter()
        let requested = MediaTime.now.value
        output.capturePhoto(with: settings, delegate: waiter)
        guard waiter.done.wait(timeout: .now() + .seconds(30)) == .success, let result = waiter.result else {
            throw CaptureError(.internalError, "the photo did not arrive within 30 s")
        }
        // Not destructured in the guard: Swift 6.3's optimizer crashes on that (MandatoryAllocBoxToStack).
        let (photo, finished) = result
        if let error = waiter.error { throw error }
        let latency = finished - requested
        try session.stopRunning()

        guard let data = photo.fileDataRepresentation() else { throw CaptureError(.internalError, "the photo has no file data") }
        do {
            try data.write(to: url, options: overwrite ? .atomic : .withoutOverwriting)
        } catch {
            throw CaptureError(.fileError, "cannot write the photo: \(error.localizedDescription)", path: path)
        }
        let dimensions = photo.resolvedSettings.photoDimensions
        Console.print(String(format: "%@: %dx%d %@, %.1f KB, latency %.1f ms (%@ frame %@, orientation %d%@)",
                             path, dimensions.width, dimensions.height, fileType.rawValue, Double(data.count) / 1024,
                             Double(latency) / 1e6, device.localizedName, photo.sourceSequenceNumber.map { String($0) } ?? "?",
                             photo.metadata.orientation.rawValue,
                             photo.resolvedSettings.switchesDeviceFormat ? ", format switched for the shot" : ""))
        if let library {
            let asset = try library.saveImage(data, fileExtension: fileType.fileExtension, creationDate: photo.metadata.dateTimeOriginal)
            Console.print("saved to the library: \(asset.fileURL.path) (id \(asset.id))")
        }
        return .success
    }

    private static func format(_ name: String?, path: String) throws(UsageError) -> PhotoFileType {
        if let name {
            guard let type = PhotoFileType(rawValue: name.lowercased()) else {
                throw UsageError("--format must be jpeg, png, heif or dng, not '\(name)'")
            }
            return type
        }
        switch (path as NSString).pathExtension.lowercased() {
        case "png": return .png
        case "heic", "heif": return .heif
        case "dng": return .dng
        default: return .jpeg
        }
    }

    /// Makes the camera's largest Bayer format within `size` (of the deepest samples at that
    /// size) its active format.
    private static func streamRaw(on device: CaptureDevice, within size: (width: Int, height: Int)?) throws {
        let bayer = device.formats.filter { format in
            format.pixelFormat?.isBayer == true && size.map { format.width <= $0.width && format.height <= $0.height } ?? true
        }
        // The most pixels, then the deepest samples.
        guard let largest = bayer.max(by: { ($0.width * $0.height, $0.pixelFormat?.bayerBitDepth ?? 0) < ($1.width * $1.height, $1.pixelFormat?.bayerBitDepth ?? 0) }) else {
            throw CaptureError(.unsupportedFormat, "\(device.localizedName) offers no raw Bayer format\(size.map { " within \($0.width)x\($0.height)" } ?? ""), "
                               + "so it cannot take DNG photos; 'capture formats' lists its formats", deviceID: device.uniqueID)
        }
        try device.lockForConfiguration()
        defer { device.unlockForConfiguration() }
        try device.setActiveFormat(largest)
    }
}

/// Waits for one photo: keeps it, its error and when it was ready (`CLOCK_MONOTONIC`).
final class PhotoWaiter: CapturePhotoCaptureDelegate {
    let done = DispatchSemaphore(value: 0)
    private let state = Mutex<(photo: (CapturePhoto, Int64)?, error: CaptureError?)>((nil, nil))

    var result: (CapturePhoto, Int64)? { state.withLock { $0.photo } }
    var error: CaptureError? { state.withLock { $0.error } }

    func photoOutput(_ output: CapturePhotoOutput, didFinishProcessingPhoto photo: CapturePhoto, error: (any Error)?) {
        let now = MediaTime.now.value
        state.withLock { $0 = ((photo, now), error as? CaptureError) }
    }

    func photoOutput(_ output: CapturePhotoOutput, didFinishCaptureFor resolvedSettings: CaptureResolvedPhotoSettings, error: (any Error)?) {
        done.signal()
    }
}
