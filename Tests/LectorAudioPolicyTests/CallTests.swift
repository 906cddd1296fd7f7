import Foundation
import LectorTestKit
import XCTest

/// Calls: a `media.role=phone` stream (playback or recording) pauses narration and holds
/// announcements below `important`; narration resumes after the call only if the listener did
/// nothing meanwhile and the call was shorter than the auto-resume timeout.
final class CallTests: XCTestCase {
    func testPhonePlaybackPausesAndNarrationResumesAfterIt() throws {
        let fixture = try PolicyFixture()
        defer { fixture.shutdown() }
        try fixture.narrate()
        let call = try fixture.session.startPlayback(role: "phone", name: "call")
        XCTAssertTrue(try poll(timeout: 5) { try fixture.status() == "Paused" }, "still \(String(describing: try? fixture.status()))\(fixture.context)")
        XCTAssertEqual(try fixture.pausedBecause(), "call")
        XCTAssertEqual(try fixture.narrationStream()?.corked, true)

        call.terminate()
        XCTAssertTrue(try poll(timeout: 5) { try fixture.status() == "Playing" }, "not resumed\(fixture.context)")
        XCTAssertEqual(try fixture.pausedBecause(), "")
    }

    func testPhoneRecordingCountsAsACall() throws {
        let fixture = try PolicyFixture()
        defer { fixture.shutdown() }
        try fixture.narrate()
        let microphone = try fixture.session.startCapture(role: "phone", name: "call-microphone")
        XCTAssertTrue(try poll(timeout: 5) { try fixture.status() == "Paused" }, "still \(String(describing: try? fixture.status()))\(fixture.context)")
        XCTAssertEqual(try fixture.pausedBecause(), "call")
        microphone.terminate()
        XCTAssertTrue(try poll(timeout: 5) { try fixture.status() == "Playing" }, "not resumed\(fixture.context)")
    }

    func testListenerActingDuringTheCallMeansNoResume() throws {
        let fixture = try PolicyFixture()
        defer { fixture.shutdown() }
        try fixture.narrate()
        let call = try fixture.session.startPlayback(role: "phone", name: "call")
        XCTAssertTrue(try poll(timeout: 5) { try fixture.status() == "Paused" })
        XCTAssertTrue(try fixture.playerctl("pause").succeeded)   // the listener says: stay paused
        XCTAssertTrue(try poll(timeout: 5) { try fixture.pausedBecause() == "user" })
        call.terminate()
        XCTAssertTrue(try holds(for: 1.0) { try fixture.status() == "Paused" }, "resumed after the listener paused\(fixture.context)")
    }

    func testNarrationPausedBeforeTheCallStaysPaused() throws {
        let fixture = try PolicyFixture()
        defer { fixture.shutdown() }
        try fixture.narrate()
        XCTAssertTrue(try fixture.playerctl("pause").succeeded)
        XCTAssertTrue(try poll(timeout: 5) { try fixture.status() == "Paused" })
        let call = try fixture.session.startPlayback(role: "phone", name: "call")
        XCTAssertTrue(try holds(for: 0.5) { try fixture.pausedBecause() == "user" })
        call.terminate()
        XCTAssertTrue(try holds(for: 1.0) { try fixture.status() == "Paused" && fixture.pausedBecause() == "user" },
                      "narration paused before the call did not stay paused\(fixture.context)")
    }

    func testAutoResumeTimeoutFromTheConfig() throws {
        // 0 minutes: a call of any length is too long to resume after.
        let fixture = try PolicyFixture(config: "[audio]\nauto-resume-timeout-minutes = 0\n")
        defer { fixture.shutdown() }
        try fixture.narrate()
        let call = try fixture.session.startPlayback(role: "phone", name: "call")
        XCTAssertTrue(try poll(timeout: 5) { try fixture.status() == "Paused" })
        Thread.sleep(forTimeInterval: 0.2)   // scenario time, not a wait: the call lasts longer than the 0-minute timeout
        call.terminate()
        XCTAssertTrue(try holds(for: 1.0) { try fixture.status() == "Paused" && fixture.pausedBecause() == "call" },
                      "resumed after a call longer than the timeout\(fixture.context)")
    }

    func testCallHoldsAnnouncementsButNotImportantOnes() throws {
        let fixture = try PolicyFixture()
        defer { fixture.shutdown() }
        let recording = try fixture.session.record(sink: "lector_test")
        let call = try fixture.session.startPlayback(role: "phone", sink: "speakers", name: "call")
        XCTAssertTrue(poll(timeout: 5) { fixture.daemon.output.contains("a call is on") }, "the call was not noticed\(fixture.context)")

        let held = Date()
        try fixture.say("This message waits for the call to end.")
        XCTAssertTrue(recording.staysSilent(after: held, for: 1.5), "a message was spoken during a call\(fixture.context)")

        let important = Date()
        try fixture.say("Important: the building is on fire.", ["--priority", "important"])
        XCTAssertNotNil(recording.waitForSound(after: important, timeout: 5), "important speech was held\(fixture.context)")
        XCTAssertTrue(recording.waitForSilence(quiet: 0.5, timeout: 15))

        let ended = Date()
        call.terminate()
        XCTAssertNotNil(recording.waitForSound(after: ended, timeout: 5), "the held message never came\(fixture.context)")
    }
}

/// module-role-cork (PulseAudio only: pipewire-pulse has no such module) asks music streams to
/// cork while a stream of a trigger role plays: narration honours that request like a call.
final class CorkRequestTests: XCTestCase {
    func testRequestCorkPausesAndRequestUncorkResumes() throws {
        let fixture = try PolicyFixture()
        defer { fixture.shutdown() }
        guard fixture.session.soundServerKind == .pulseaudio else {
            // pipewire-pulse has no module-role-cork, so nothing sends request-cork there: that is
            // what is checked on PipeWire.
            XCTAssertThrowsError(try fixture.session.pactl(["load-module", "module-role-cork", "trigger_roles=alarm",
                                                            "cork_roles=music"]),
                                 "pipewire-pulse loaded module-role-cork: run the whole test there too")
            return
        }
        _ = try fixture.session.pactl(["load-module", "module-role-cork", "trigger_roles=alarm", "cork_roles=music"])
        try fixture.narrate()
        let alarm = try fixture.session.startPlayback(role: "alarm", name: "alarm-clock")   // same sink: the module acts per sink
        XCTAssertTrue(try poll(timeout: 5) { try fixture.status() == "Paused" }, "still \(String(describing: try? fixture.status()))\(fixture.context)")
        XCTAssertEqual(try fixture.pausedBecause(), "call")
        alarm.terminate()
        XCTAssertTrue(try poll(timeout: 5) { try fixture.status() == "Playing" }, "not resumed\(fixture.context)")
    }
}
