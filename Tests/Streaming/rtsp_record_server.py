#!/usr/bin/python3
"""An RTSP server that accepts RECORD (a client pushing with ANNOUNCE/RECORD) at /cam and
writes what it receives — H.264 video, and AAC audio with --audio — into an MPEG-TS file per
session in FOLDER (session-N.ts). For CaptureKit's stream output tests.

Usage: rtsp_record_server.py PORT FOLDER [--audio]     (Debian's python3, with gi and
GstRtspServer: python3-gst-1.0 gir1.2-gst-rtsp-server-1.0 gstreamer1.0-plugins-good/bad)
"""
import itertools
import os
import signal
import sys

import gi
gi.require_version("Gst", "1.0")
gi.require_version("GstRtsp", "1.0")
gi.require_version("GstRtspServer", "1.0")
from gi.repository import GLib, Gst, GstRtsp, GstRtspServer  # noqa: E402

port, folder = sys.argv[1], sys.argv[2]
audio = "--audio" in sys.argv[3:]
Gst.init(None)
sessions = itertools.count(1)


class RecordFactory(GstRtspServer.RTSPMediaFactory):
    """Each RECORD session gets a pipeline of its own and a file of its own."""

    def do_create_element(self, url):
        path = os.path.join(folder, "session-%d.ts" % next(sessions))
        description = "( rtph264depay name=depay0 ! h264parse ! queue ! mux. "
        if audio:
            # FFmpeg's RTSP muxer sends AAC as mpeg4-generic.
            description += "rtpmp4gdepay name=depay1 ! aacparse ! queue ! mux. "
        description += "mpegtsmux name=mux ! filesink location=%s sync=false )" % path
        return Gst.parse_launch(description)


server = GstRtspServer.RTSPServer()
server.set_address("127.0.0.1")
server.set_service(port)
factory = RecordFactory()
factory.set_transport_mode(GstRtspServer.RTSPTransportMode.RECORD)
factory.set_protocols(GstRtsp.RTSPLowerTrans.TCP | GstRtsp.RTSPLowerTrans.UDP)
factory.set_latency(100)
server.get_mount_points().add_factory("/cam", factory)
server.attach(None)
loop = GLib.MainLoop()
for number in (signal.SIGTERM, signal.SIGINT):
    GLib.unix_signal_add(GLib.PRIORITY_DEFAULT, number, loop.quit)
print("ready", port, flush=True)
loop.run()
