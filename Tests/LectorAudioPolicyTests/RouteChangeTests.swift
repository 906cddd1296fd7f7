import Foundation
import LectorTestKit
import XCTest

/// Becoming noisy: narration pauses when its device goes or its stream is moved, and never
/// resumes by itself; a new device changes nothing.
final class RouteChangeTests: XCTestCase {
    /// A Bluetooth headset (a null sink with its properties) is the default; narration plays on it.
    private func narrateOnHeadset(_ fixture: PolicyFixture) throws -> UInt32 {
        let module = try fixture.session.loadNullSink(name: "bt_headset",
                                                      properties: ["device.form_factor": "headphone",
                                                                   "device.bus": "bluetooth"])
        try fixture.session.setDefaultSink("bt_headset")
        // No book, no narration stream (one is opened to play, and let go at Stop).
        XCTAssertNil(try fixture.narrationStream(), "a narration stream while nothing is read\(fixture.context)")
        try fixture.narrate()
        XCTAssertEqual(try fixture.narrationStream()?.sinkName, "bt_headset", "narration does not play on the default sink\(fixture.context)")
        return module
    }

    func testHeadsetRemovedPausesSilentlyAndItsReturnDoesNotResume() throws {
        let fixture = try PolicyFixture()
        defer { fixture.shutdown() }
        let module = try narrateOnHeadset(fixture)
        let speakers = try fixture.session.record(sink: "lector_test")

        try fixture.session.unloadModule(module)
        let removed = Date()
        XCTAssertTrue(try poll(timeout: 5) { try fixture.status() == "Paused" }, "still \(String(describing: try? fixture.status()))\(fixture.context)")
        XCTAssertEqual(try fixture.pausedBecause(), "device-removed")
        // Our stream landed on the speakers: nothing may be heard there.
        XCTAssertEqual(try fixture.narrationStream()?.sinkName, "lector_test")
        XCTAssertTrue(speakers.staysSilent(after: removed.addingTimeInterval(0.1), for: 0.6),
                     "narration was heard from the speakers after the headset went away")

        // The headset comes back: still paused, still silent.
        _ = try fixture.session.loadNullSink(name: "bt_headset", properties: ["device.form_factor": "headphone",
                                                                             "device.bus": "bluetooth"])
        XCTAssertTrue(try holds(for: 1.5) { try fixture.status() == "Paused" && fixture.pausedBecause() == "device-removed" },
                      "the returning headset changed the pause\(fixture.context)")

        // The listener decides: play goes on, and PausedBecause clears.
        XCTAssertTrue(try fixture.playerctl("play").succeeded)
        XCTAssertTrue(try poll(timeout: 5) { try fixture.status() == "Playing" })
        XCTAssertEqual(try fixture.pausedBecause(), "")
    }

    func testStreamMovedToAnotherSinkPauses() throws {
        let fixture = try PolicyFixture()
        defer { fixture.shutdown() }
        try fixture.narrate()
        let own = try XCTUnwrap(fixture.narrationStream())
        try fixture.session.moveStream(own.index, to: "speakers")
        XCTAssertTrue(try poll(timeout: 5) { try fixture.status() == "Paused" }, "still \(String(describing: try? fixture.status()))\(fixture.context)")
        XCTAssertEqual(try fixture.pausedBecause(), "stream-moved")
        XCTAssertEqual(try fixture.narrationStream()?.corked, true)
    }

    func testDefaultSinkChangeMovesOurStreamAndPauses() throws {
        let fixture = try PolicyFixture()
        defer { fixture.shutdown() }
        try fixture.narrate()
        try fixture.session.setDefaultSink("speakers")
        // Streams that follow the default sink are moved by the server: a route change.
        XCTAssertTrue(try poll(timeout: 5) { try fixture.narrationStream()?.sinkName == "speakers" })
        XCTAssertTrue(try poll(timeout: 5) { try fixture.status() == "Paused" }, "still \(String(describing: try? fixture.status()))\(fixture.context)")
        XCTAssertEqual(try fixture.pausedBecause(), "stream-moved")
    }

    func testNewDeviceAppearingChangesNothing() throws {
        let fixture = try PolicyFixture()
        defer { fixture.shutdown() }
        try fixture.narrate()
        let recording = try fixture.session.record(sink: "lector_test")
        _ = try fixture.session.loadNullSink(name: "usb_headset", properties: ["device.form_factor": "headset",
                                                                              "device.bus": "usb"])
        let appeared = Date()
        XCTAssertTrue(try holds(for: 1.0) { try fixture.status() == "Playing" }, "a new device paused narration\(fixture.context)")
        XCTAssertEqual(try fixture.narrationStream()?.sinkName, "lector_test")
        XCTAssertNotNil(recording.firstSound(after: appeared), "narration went on\(fixture.context)")
    }

    func testRouteChangesWhilePausedLeaveItPausedByTheUser() throws {
        let fixture = try PolicyFixture()
        defer { fixture.shutdown() }
        try fixture.narrate()
        XCTAssertTrue(try fixture.playerctl("pause").succeeded)
        XCTAssertTrue(try poll(timeout: 5) { try fixture.status() == "Paused" })
        let own = try XCTUnwrap(fixture.narrationStream())
        try fixture.session.moveStream(own.index, to: "speakers")
        XCTAssertTrue(try holds(for: 0.5) { try fixture.pausedBecause() == "user" }, "a move while paused changed why\(fixture.context)")
        XCTAssertTrue(try fixture.playerctl("play").succeeded)
        XCTAssertTrue(try poll(timeout: 5) { try fixture.status() == "Playing" })
        XCTAssertEqual(try fixture.narrationStream()?.sinkName, "speakers", "plays where the listener put it")
    }
}
