import Foundation
import Glibc
@testable import CaptureKit

// The XDG desktop Camera portal for the tests, on the private PipeWire stack
// (`AudioDaemons.startPipeWire(portal: true)`): a private session bus without service activation
// (so nothing the machine installed starts behind a test's back), the permission store,
// xdg-desktop-portal with a test Access backend standing in for the desktop's permission dialog
// (Tests/Portal/portal_access_backend.py), and a camera whose formats a portal connection can
// read: GStreamer's pipewiresink publishing a live test pattern as a Video/Source node with the
// Camera role ("portalcam", "Portal Camera", YUY2 320x240 at 30 fps) — a pw_stream, which
// answers its formats on the node as V4L2 and libcamera nodes do (a portal connection sees no
// ports).

extension AudioDaemons {
    /// The tools the portal stack needs beside the sound servers'.
    static let portalTools = ["dbus-daemon", "dbus-send", "/usr/libexec/xdg-desktop-portal", "/usr/libexec/xdg-permission-store",
                              "/usr/bin/python3", "gst-launch-1.0"]

    /// A private session bus at `<directory>/xdg/bus` that activates no services.
    static func startSessionBus(_ daemon: AudioDaemon) throws {
        let config = "\(daemon.directory)/session-bus.conf"
        try """
            <!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
             "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
            <busconfig>
              <type>session</type>
              <listen>unix:path=\(daemon.directory)/xdg/bus</listen>
              <auth>EXTERNAL</auth>
              <policy context="default">
                <allow send_destination="*" eavesdrop="true"/>
                <allow eavesdrop="true"/>
                <allow own="*"/>
              </policy>
            </busconfig>

            """.write(toFile: config, atomically: true, encoding: .utf8)
        try launch(daemon, "dbus-daemon", ["--config-file=\(config)", "--nofork", "--nopidfile"])
        try poll("the session bus", check: { try daemon.checkAlive("dbus-daemon") }) {
            FileManager.default.fileExists(atPath: "\(daemon.directory)/xdg/bus")
        }
    }

    /// The portal's camera, the permission store, the test Access backend (granting until told
    /// otherwise) and the portal; returns once the portal sees the camera.
    static func startCameraPortal(_ daemon: AudioDaemon) throws {
        try launch(daemon, "gst-launch-1.0", ["-q", "videotestsrc", "is-live=true", "!",
                                              "video/x-raw,format=YUY2,width=320,height=240,framerate=30/1", "!",
                                              "pipewiresink", "mode=provide", "client-name=portalcam",
                                              #"stream-properties="props,media.class=Video/Source,media.role=Camera,node.name=portalcam,node.description=\"Portal Camera\"""#])
        // Before the portal, whose own connection to PipeWire (WirePlumber 0.4 grants it no
        // permissions of its own) sees the nodes present when it connects.
        try poll("the camera node", check: { try daemon.checkAlive("gst-launch-1.0") }) {
            ((try? run("pw-cli", ["ls", "Node"], environment: daemon.environment)) ?? "").contains("node.name = \"portalcam\"")
        }
        try daemon.setPortalAnswer(granted: true)
        try launch(daemon, "/usr/libexec/xdg-permission-store", ["--replace"])
        try daemon.waitForBusName("org.freedesktop.impl.portal.PermissionStore", owner: "xdg-permission-store")
        let backend = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Portal/portal_access_backend.py").path
        try launch(daemon, "/usr/bin/python3", [backend, daemon.portalAnswerFile, daemon.portalPromptFile])
        try daemon.waitForBusName("org.freedesktop.impl.portal.desktop.capturekit", owner: "python3")
        let portals = "\(daemon.directory)/portals"
        try FileManager.default.createDirectory(atPath: portals, withIntermediateDirectories: true)
        try """
            [portal]
            DBusName=org.freedesktop.impl.portal.desktop.capturekit
            Interfaces=org.freedesktop.impl.portal.Access;
            UseIn=capturekit-test

            """.write(toFile: "\(portals)/capturekit-test.portal", atomically: true, encoding: .utf8)
        var environment = daemon.environment
        environment["XDG_DESKTOP_PORTAL_DIR"] = portals
        environment["XDG_CURRENT_DESKTOP"] = "capturekit-test"
        try launch(daemon, "/usr/libexec/xdg-desktop-portal", ["--verbose"], environment: environment)
        try daemon.waitForBusName("org.freedesktop.portal.Desktop", owner: "xdg-desktop-portal")

        try poll("the portal to see the camera", check: { try daemon.checkAlive("gst-launch-1.0") }) {
            let answer = try? run("dbus-send", ["--session", "--print-reply", "--dest=org.freedesktop.portal.Desktop", "/org/freedesktop/portal/desktop",
                                                "org.freedesktop.DBus.Properties.Get", "string:org.freedesktop.portal.Camera", "string:IsCameraPresent"],
                                  environment: daemon.environment)
            return answer?.contains("boolean true") == true
        }
    }
}

extension AudioDaemon {
    /// The file the test Access backend reads its answer from.
    var portalAnswerFile: String { "\(directory)/portal-answer" }
    /// The file the test Access backend notes each prompt in.
    var portalPromptFile: String { "\(directory)/portal-prompts" }

    /// How the stand-in for the desktop's permission dialog answers from now on.
    func setPortalAnswer(granted: Bool) throws {
        try (granted ? "0\n" : "1\n").write(toFile: portalAnswerFile, atomically: true, encoding: .utf8)
    }

    /// The prompts the portal showed (one line each: the app id, the title, the answer).
    var portalPrompts: [String] {
        ((try? String(contentsOfFile: portalPromptFile, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
    }

    /// Stores a camera decision for applications outside a sandbox (app id "") in the permission
    /// store, as the desktop's privacy settings do.
    func storeCameraPermission(_ value: String) throws {
        try AudioDaemons.run("dbus-send", ["--session", "--print-reply", "--dest=org.freedesktop.impl.portal.PermissionStore",
                                           "/org/freedesktop/impl/portal/PermissionStore", "org.freedesktop.impl.portal.PermissionStore.SetPermission",
                                           "string:devices", "boolean:true", "string:camera", "string:", "array:string:\(value)"],
                             environment: environment)
    }

    /// The stored camera decisions: the permission store's `devices`/`camera` entry as dbus-send prints it.
    func storedCameraPermissions() throws -> String {
        try AudioDaemons.run("dbus-send", ["--session", "--print-reply", "--dest=org.freedesktop.impl.portal.PermissionStore",
                                           "/org/freedesktop/impl/portal/PermissionStore", "org.freedesktop.impl.portal.PermissionStore.Lookup",
                                           "string:devices", "string:camera"], environment: environment)
    }

    /// Waits until `name` has an owner on the private bus; the child `owner` dying stops the wait.
    func waitForBusName(_ name: String, owner: String) throws {
        try AudioDaemons.poll("\(name) on the session bus", check: { try checkAlive(owner) }) {
            let answer = try? AudioDaemons.run("dbus-send", ["--session", "--print-reply", "--dest=org.freedesktop.DBus", "/org/freedesktop/DBus",
                                                             "org.freedesktop.DBus.NameHasOwner", "string:\(name)"], environment: environment)
            return answer?.contains("boolean true") == true
        }
    }
}
