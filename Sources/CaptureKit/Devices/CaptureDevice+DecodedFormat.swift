internal import CFFmpeg

extension CaptureDevice.Format {
    /// The one format of a camera that decodes `stream` (a file's, a network camera's): its
    /// frame size and rate in the decoder's pixel layout, or I420 when CaptureKit has no such
    /// layout. Throws `failure` (naming `path`) when FFmpeg has no decoder for the codec or the
    /// stream has no usable frame size. A `coded` format says what codec the device sends (a
    /// network camera's); a file device's says only what it decodes to.
    static func decoding(_ stream: UnsafeMutablePointer<AVStream>, path: String, failure: CaptureError.Code,
                         coded: Bool = false) throws(CaptureError) -> CaptureDevice.Format {
        guard let parameters = stream.pointee.codecpar else {
            throw CaptureError(failure, "the video stream has no codec parameters", path: path)
        }
        let codec = parameters.pointee.codec_id
        guard avcodec_find_decoder(codec) != nil else {
            throw CaptureError(failure, "no decoder for the video codec \(String(cString: avcodec_get_name(codec)))",
                               operation: "avcodec_find_decoder", path: path)
        }
        let width = Int(parameters.pointee.width), height = Int(parameters.pointee.height)
        guard width > 0, height > 0, width <= 16384, height <= 16384 else {
            throw CaptureError(failure, "the video stream has no usable frame size (\(width)x\(height))", path: path)
        }
        let decoded = AVPixelFormat(rawValue: parameters.pointee.format)
        let pixelFormat = FileFrameConverter.pixelFormat(exactly: decoded) ?? .yuv420p
        let frameDuration = [stream.pointee.avg_frame_rate, stream.pointee.r_frame_rate]
            .first(where: \.isPositive).map { MediaTime(value: Int64($0.den), timescale: $0.num) }
            ?? MediaTime(value: 1, timescale: 30)
        let encoding: Encoding
        switch codec {
        case _ where !coded: encoding = .uncompressed
        case AV_CODEC_ID_H264: encoding = .h264
        case AV_CODEC_ID_HEVC: encoding = .hevc
        case AV_CODEC_ID_MJPEG: encoding = .mjpeg
        case AV_CODEC_ID_RAWVIDEO: encoding = .uncompressed
        default: encoding = .otherCodec
        }
        return CaptureDevice.Format(pixelFormat: pixelFormat, width: width, height: height,
                                    frameRateRanges: [CaptureDevice.FrameRateRange(minFrameDuration: frameDuration, maxFrameDuration: frameDuration)],
                                    encoding: encoding, fourCC: nil)
    }
}

extension CaptureDevice.Format {
    /// The formats of a microphone that decodes `stream` (a file's, a network camera's): the
    /// stream's rate and channel count as interleaved `s16` and `f32`, the one closer to the
    /// decoder's output first. Throws `failure` (naming `path`) when FFmpeg has no decoder for
    /// the codec or the stream has no usable rate and channel count.
    static func decodingSound(_ stream: UnsafeMutablePointer<AVStream>, path: String,
                              failure: CaptureError.Code) throws(CaptureError) -> [CaptureDevice.Format] {
        guard let parameters = stream.pointee.codecpar else {
            throw CaptureError(failure, "the audio stream has no codec parameters", path: path)
        }
        let codec = parameters.pointee.codec_id
        guard avcodec_find_decoder(codec) != nil else {
            throw CaptureError(failure, "no decoder for the audio codec \(String(cString: avcodec_get_name(codec)))",
                               operation: "avcodec_find_decoder", path: path)
        }
        let rate = Int(parameters.pointee.sample_rate), channels = Int(parameters.pointee.ch_layout.nb_channels)
        let probe = AudioFormat(sampleRate: rate, channelCount: channels, sampleFormat: .s16)
        guard probe.isValid, rate <= Int(Int32.max) else {
            throw CaptureError(failure, "the audio stream has no usable rate and channel count (\(rate) Hz, \(channels) channels)",
                               path: path)
        }
        let decoded = AVSampleFormat(rawValue: parameters.pointee.format)
        let integer = decoded == AV_SAMPLE_FMT_S16 || decoded == AV_SAMPLE_FMT_S16P || decoded == AV_SAMPLE_FMT_U8 || decoded == AV_SAMPLE_FMT_U8P
        let order: [AudioFormat.SampleFormat] = integer ? [.s16, .f32] : [.f32, .s16]
        return order.map { CaptureDevice.Format(audioFormat: AudioFormat(sampleRate: rate, channelCount: channels, sampleFormat: $0)) }
    }
}
