import Foundation
import LectorAudio
import LectorLoop
import LectorTestKit
import XCTest

/// `SoundServer.sendWaitingRequests` against the real sound server of a private session
/// (PulseAudio or pipewire-pulse, as `LECTOR_TEST_SOUND_SERVER` says): a pause's cork reaches the
/// server with the loop not running again, which is how a Pause handler's cork leaves before its
/// signals and reply; and inside a libpulse callback nothing is run, since libpulse is not
/// reentrant.
final class SoundServerFlushTests: XCTestCase {
    func testACorkReachesTheServerWithoutAnotherLoopTurn() throws {
        let session = try TestSession()
        defer { session.shutdown() }
        let overridden = EnvironmentOverride(["PULSE_SERVER": session.pulseServer])
        defer { overridden.restore() }

        try MainActor.assumeIsolated {
            let loop = try EventLoop()
            defer { loop.close() }
            let server = try SoundServer(loop: loop, properties: ["application.name": "lector-flush-test"])
            defer { server.close() }
            var stream: PlaybackStream?
            var ranInCallback: Int?
            server.onStateChange = { state in
                guard state == .ready, stream == nil else { return }
                // A request is waiting now (the stream's connect), yet this is libpulse's callback.
                stream = try? server.makeStream(sampleRate: 22_050, properties: [:], buffering: .narration)
                ranInCallback = server.sendWaitingRequests()
            }
            server.connect()

            var playingSince: Date?
            var ranForCork: Int?
            var corkSeen = false
            var paused = false
            var failure: String?
            let deadline = Date().addingTimeInterval(20)
            var tick: EventSource?
            tick = try loop.timer {
                defer { if paused || failure != nil || Date() > deadline { loop.exit(0) } else { tick?.schedule(after: 10_000) } }
                guard let stream, stream.state == .ready else { return }
                guard let since = playingSince else {
                    // Three seconds of a tone: still playing when it is paused below.
                    stream.enqueue((0..<66_150).map { Int16(8_000 * sin(Double($0) * 0.12)) })
                    playingSince = Date()
                    return
                }
                guard Date().timeIntervalSince(since) > 0.3 else { return }
                do {
                    guard try Self.sinkInputCorked(session) == false else {
                        failure = "the stream was not playing before the pause"
                        return
                    }
                    stream.pause()
                    paused = true
                    ranForCork = server.sendWaitingRequests()
                    // The loop stays blocked here: only a request already sent can cork the input.
                    let waitUntil = Date().addingTimeInterval(5)
                    while Date() < waitUntil, !corkSeen {
                        corkSeen = try Self.sinkInputCorked(session) == true
                        if !corkSeen { usleep(20_000) }
                    }
                } catch {
                    failure = "\(error)"
                }
            }
            tick?.schedule(after: 0)
            _ = try loop.run()
            tick?.close()

            XCTAssertNil(failure)
            XCTAssertEqual(ranInCallback, 0, "inside a libpulse callback nothing is run")
            XCTAssertGreaterThanOrEqual(ranForCork ?? 0, 1, "the connection's waiting write was run")
            XCTAssertTrue(corkSeen, "the server corked the stream while the loop was not running")
        }
    }

    /// The Corked field of the one sink input in the session (nil: none yet).
    private static func sinkInputCorked(_ session: TestSession) throws -> Bool? {
        let listing = try session.pactl(["list", "sink-inputs"])
        guard let line = listing.split(separator: "\n").first(where: { $0.contains("Corked:") }) else { return nil }
        return line.contains("yes")
    }
}
