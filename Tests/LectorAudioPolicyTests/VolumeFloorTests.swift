import Foundation
import LectorTestKit
import XCTest

/// `ensure-audible` raises a too-quiet sink for the announcement and restores it; a muted sink
/// stays muted (the speech ends `muted`) unless the announcement is important.
final class VolumeFloorTests: XCTestCase {
    private func sink(_ fixture: PolicyFixture, _ name: String) throws -> SinkInfo {
        try XCTUnwrap(fixture.session.sinkInfos().first { $0.name == name })
    }

    func testEnsureAudibleRaisesAQuietSinkAndRestoresIt() throws {
        let fixture = try PolicyFixture()
        defer { fixture.shutdown() }
        _ = try fixture.session.pactl(["set-sink-volume", "lector_test", "5%"])
        let quiet = try sink(fixture, "lector_test").volume
        let say = try fixture.sayAndWait("Payment received.", ["--ensure-audible"])
        XCTAssertTrue(try poll(timeout: 5) { try sink(fixture, "lector_test").volume.max()! >= 13107 },
                      "not raised to the 20 % floor: \(String(describing: try? sink(fixture, "lector_test").volume))\(fixture.context)")
        XCTAssertEqual(say.waitForExit(timeout: 30), 0)
        XCTAssertTrue(try poll(timeout: 3) { try sink(fixture, "lector_test").volume == quiet })
    }

    func testWithoutTheOptionAQuietSinkStaysQuiet() throws {
        let fixture = try PolicyFixture()
        defer { fixture.shutdown() }
        _ = try fixture.session.pactl(["set-sink-volume", "lector_test", "5%"])
        let quiet = try sink(fixture, "lector_test").volume
        let say = try fixture.sayAndWait("Payment received.")
        var changed = false
        while say.isRunning {
            if try sink(fixture, "lector_test").volume != quiet { changed = true }
            usleep(20_000)
        }
        XCTAssertFalse(changed)
    }

    func testMutedSinkStaysMutedAndTheSpeechEndsMuted() throws {
        let fixture = try PolicyFixture()
        defer { fixture.shutdown() }
        _ = try fixture.session.pactl(["set-sink-mute", "lector_test", "1"])
        let watcher = try fixture.session.watchSignals(from: "io.github.lector.Lector1")
        XCTAssertTrue(watcher.waitUntilSubscribed(timeout: 10))
        let say = try fixture.sayAndWait("Nobody can hear this.", ["--ensure-audible"])
        XCTAssertNotEqual(say.waitForExit(timeout: 30), 0, "say --wait reports that it was not heard")
        XCTAssertTrue(say.output.contains("muted"), say.output)
        XCTAssertNotNil(watcher.wait(timeout: 5) { signal in
            signal.member == "SpeechFinished" && signal.arguments.contains { $0.contains("muted") }
        }, watcher.transcript)
        XCTAssertEqual(try sink(fixture, "lector_test").muted, true)
    }

    func testImportantUnmutesForItsDurationOnly() throws {
        let fixture = try PolicyFixture()
        defer { fixture.shutdown() }
        _ = try fixture.session.pactl(["set-sink-mute", "lector_test", "1"])
        let recording = try fixture.session.record(sink: "lector_test")
        let since = Date()
        let say = try fixture.sayAndWait("The building is on fire.", ["--priority", "important"])
        XCTAssertNotNil(recording.waitForSound(after: since, timeout: 5), "important speech not heard\(fixture.context)")
        XCTAssertEqual(say.waitForExit(timeout: 30), 0)
        XCTAssertTrue(try poll(timeout: 3) { try sink(fixture, "lector_test").muted })
    }
}
