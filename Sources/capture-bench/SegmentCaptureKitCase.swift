import CaptureKit

/// CaptureKit's side of `segment-1080p`: the `record-1080p` job recording into a folder of
/// segments through `startRecording(toFolder:segmentation:)`.
extension RecordCaptureKitCase {
    /// Segments of `seconds` cut at its multiples from the recording's start
    /// (`alignsToClock = false`), as ffmpeg's `-segment_time` cuts them: on the wall clock the
    /// boundaries of an unpaced file, read many times faster than real time, would fall
    /// wherever the run happened to start. The keyframe interval is set to what a segmented
    /// recording uses by default (2 s, since segments are not one fragmented file), so ffmpeg's
    /// `-g` can be spelled the same.
    static func segmented(inputs: RecordInputs, seconds: Int, keyframeInterval: Int, folder: String) -> RecordCaptureKitCase {
        var segmentation = MovieSegmentation()
        segmentation.duration = MediaTime(value: Int64(seconds), timescale: 1)
        segmentation.alignsToClock = false
        segmentation.fileExtension = "mp4"
        return RecordCaptureKitCase(label: "CaptureKit startRecording(toFolder:), \(seconds) s segments", keyframeInterval: keyframeInterval,
                                    outputPath: folder, inputs: inputs, fragmentInterval: nil, setsKeyframeInterval: true,
                                    segmentation: segmentation)
    }
}
