/// ffmpeg's side of `segment-1080p`: its segment muxer, the tool people reach for to record in
/// files of a set length.
extension RecordPeer {
    /// `ffmpeg … -force_key_frames expr:gte(t,n_forced*T) -f segment -segment_time T
    /// -reset_timestamps 1 DIR/segment%03d.mp4`, encoding as `record-1080p` does.
    ///
    /// The segment muxer only cuts at a keyframe, at the first one at or after each multiple of
    /// T, so the keyframes are forced there: that is what CaptureKit's segmenter asks its
    /// encoder for, and without it ffmpeg's segments would end wherever `-g` put a keyframe.
    /// `-reset_timestamps 1` starts each segment at time zero, as CaptureKit's do.
    static func ffmpegSegments(inputs: RecordInputs, seconds: Int, keyframeInterval: Int, folder: String) -> RecordPeer {
        let pattern = "\(folder)/segment%03d.mp4"
        return RecordPeer(
            label: "ffmpeg -f segment -segment_time \(seconds) -reset_timestamps 1", tool: "ffmpeg",
            arguments: ffmpegEncoding(inputs: inputs, keyframeInterval: keyframeInterval)
                + ["-force_key_frames", "expr:gte(t,n_forced*\(seconds))",
                   "-f", "segment", "-segment_time", String(seconds), "-reset_timestamps", "1", "-segment_format", "mp4", pattern],
            keyframeInterval: keyframeInterval, outputPath: pattern, packages: "ffmpeg")
    }
}
