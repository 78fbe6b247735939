import Foundation
import Testing
@testable import CaptureKit

/// A session's events also arrive as NotificationCenter notifications, as AVFoundation posts
/// them, with the session as their object and the error or reason in their user info.
@Suite(.serialized)
struct SessionNotificationTests {
    @Test func startStopAndRuntimeErrorsArePostedInOrder() async throws {
        let camera = try makeTestCamera("notifications")
        defer { CaptureDevice.removeVirtualDevice(camera) }
        let session = try makeSession(camera: camera, outputs: [CaptureVideoDataOutput()])
        let names = [CaptureSession.didStartRunningNotification, CaptureSession.runtimeErrorNotification, CaptureSession.didStopRunningNotification]
        let streams = names.map { NotificationCenter.default.notifications(named: $0, object: session) }
        let posted = Recorder<String>()
        let listeners = streams.map { stream in
            Task {
                for await note in stream {
                    let error = note.userInfo?[CaptureSessionErrorKey] as? CaptureError
                    posted.append(note.name.rawValue + (error.map { " \($0.code.rawValue)" } ?? ""))
                }
            }
        }
        defer { for listener in listeners { listener.cancel() } }

        try await session.start()
        #expect(await posted.wait(forCount: 1))
        session.reportRuntimeError(CaptureError(.deviceDisconnected, "a test's error"))
        #expect(await posted.wait(forCount: 2))
        try await session.stop()
        #expect(await posted.wait(forCount: 3))
        #expect(posted.items == ["CaptureSessionDidStartRunning", "CaptureSessionRuntimeError deviceDisconnected", "CaptureSessionDidStopRunning"])

        // Another session's notifications carry it as their object, not this one. Posting is
        // serial, so once the other session's stop is seen, its start has been delivered to every
        // observer, ours included, had it been misaddressed.
        let mine = Recorder<String>(), theirs = Recorder<String>()
        let other = try makeSession(camera: try makeTestCamera("notifications other"), outputs: [])
        let tokens = [
            NotificationCenter.default.addObserver(forName: CaptureSession.didStartRunningNotification, object: session, queue: nil) { mine.append($0.name.rawValue) },
            NotificationCenter.default.addObserver(forName: CaptureSession.didStopRunningNotification, object: other, queue: nil) { theirs.append($0.name.rawValue) },
        ]
        defer { for token in tokens { NotificationCenter.default.removeObserver(token) } }
        try await other.start()
        try await other.stop()
        #expect(await theirs.wait(forCount: 1))
        #expect(mine.items.isEmpty)
    }

    @Test func thePreferredCameraFollowsTheUsersChoiceWhileItIsConnected() throws {
        let camera = try makeTestCamera("preferred")
        defer { CaptureDevice.userPreferredCamera = nil }
        #expect(CaptureDevice.systemPreferredCamera == CaptureDevice.default(for: .video))
        CaptureDevice.userPreferredCamera = camera
        #expect(CaptureDevice.systemPreferredCamera == camera)
        CaptureDevice.removeVirtualDevice(camera)
        #expect(CaptureDevice.systemPreferredCamera == CaptureDevice.default(for: .video))
    }
}
