/// The camera of `network-frame-age`: a GStreamer RTSP server (run through ``BenchRTSPServer``)
/// whose frames carry the moment they were made. A Python thread paces a 640x480 30 fps picture
/// into an `appsrc`, and paints into each one, just before pushing it, the CLOCK_MONOTONIC
/// nanoseconds it read (Python's `time.monotonic_ns()`: the clock of CaptureKit's
/// `MediaTime.now` on the same machine) as ``FrameStamp``'s blocks. A frame's age at a reader is
/// then that reader's clock minus the picture's stamp: generation, encoding, RTP/RTSP over
/// loopback, the reader's buffering and decode, and its hand-over to the application.
enum StampedRTSPCamera {
    /// The picture's size and rate: small enough that encoding and decoding it take a few ms.
    static let width = 640
    static let height = 480
    static let fps = 30

    /// The elements ``pipeline`` is made of, for ``BenchRTSPServer/isAvailable(scratchDirectory:elements:)``.
    static let elements = ["appsrc", "openh264enc", "h264parse", "rtph264pay"]

    /// What the server encodes. The appsrc is live and timestamps each buffer as it is pushed
    /// (`do-timestamp`), so nothing downstream waits for a clock. openh264enc (GStreamer has no
    /// x264enc here) never buffers frames — no B-frames, no lookahead — and `complexity=low`
    /// keeps its per-frame time short; 1 Mbit/s is far more than the flat picture needs, so the
    /// rate control never blurs the stamp. A keyframe every 30 frames (1 s), SPS and PPS with
    /// every keyframe (`config-interval=1`), as cameras send them.
    static let pipeline = "( appsrc name=stamp is-live=true do-timestamp=true format=time "
        + "caps=video/x-raw,format=I420,width=\(width),height=\(height),framerate=\(fps)/1 "
        + "! openh264enc gop-size=30 bitrate=1000000 complexity=low ! h264parse "
        + "! rtph264pay name=pay0 pt=96 config-interval=1 )"

    /// The server, run as `python3 -c SCRIPT PORT PIPELINE`: ``BenchRTSPServer/serverSetup``
    /// (the same mount and the same shared, unseekable media: see there why), then the thread
    /// that makes and pushes the frames.
    static let script = BenchRTSPServer.serverSetup + "\n" + """
        import threading
        import time
        WIDTH, HEIGHT, FPS, BLOCK, COLUMNS, CHECK = \(width), \(height), \(fps), \(FrameStamp.block), \(FrameStamp.columns), \(FrameStamp.check)
        # The picture without its stamp: mid-grey luma, neutral chroma (I420), made once.
        luma = bytes([0x80]) * (WIDTH * HEIGHT)
        chroma = bytes([0x80]) * (WIDTH * HEIGHT // 2)
        # The shared media's appsrc, set when the first client makes the media.
        current = {'source': None}

        def stamped(nanoseconds):
            # Three lines of 32 blocks, a bit each, most significant first: the stamp's high and
            # low words, then their check word (see FrameStamp.swift).
            high, low = nanoseconds >> 32, nanoseconds & 0xFFFFFFFF
            picture = bytearray(luma)
            for line, word in enumerate((high, low, high ^ low ^ CHECK)):
                row = b''.join((b'\\xff' if (word >> (COLUMNS - 1 - bit)) & 1 else b'\\x00') * BLOCK for bit in range(COLUMNS))
                for y in range(line * BLOCK, (line + 1) * BLOCK):
                    picture[y * WIDTH:y * WIDTH + len(row)] = row
            return bytes(picture) + chroma

        def configure(factory, media):
            current['source'] = media.get_element().get_by_name('stamp')

        def pace():
            # Absolute deadlines, so the rate does not drift; the stamp is read after the sleep,
            # when the frame is made, not at its deadline.
            period = 1000000000 // FPS
            deadline = time.monotonic_ns()
            while True:
                deadline += period
                delay = deadline - time.monotonic_ns()
                if delay > 0:
                    time.sleep(delay / 1e9)
                source = current['source']
                if source is not None:
                    source.emit('push-buffer', Gst.Buffer.new_wrapped(stamped(time.monotonic_ns())))

        # Connected before the main loop runs, so before any client can make the media.
        factory.connect('media-configure', configure)
        threading.Thread(target=pace, daemon=True).start()
        GLib.MainLoop().run()
        """
}
