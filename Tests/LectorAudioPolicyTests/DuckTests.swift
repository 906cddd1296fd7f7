import Foundation
import LectorTestKit
import XCTest

/// Ducking: other apps' streams on the announcement's sink go to 30 % of their volume while
/// Lector speaks and get exactly their own volume back, unless the listener changed it; no
/// ducked volume is left in the server's saved stream volumes, not even after `kill -9`.
final class DuckTests: XCTestCase {
    static let sentence = "Payment received: thirty five euros and twenty cents. Thank you for shopping with us today."

    /// Another app's music (a tone on its own sink input) at 80 % (52428 raw).
    private func startMusic(_ fixture: PolicyFixture, name: String = "music", role: String = "music",
                            sink: String? = nil) throws -> (ManagedProcess, PlaybackStreamInfo) {
        let process = try fixture.session.startPlayback(role: role, sink: sink, name: name)
        var found: PlaybackStreamInfo?
        XCTAssertTrue(try poll(timeout: 5) {
            found = try fixture.session.playbackStreams().first { $0.properties["media.name"] == name }
            return found != nil
        }, "\(name) did not start\(fixture.context)")
        let stream = try XCTUnwrap(found)
        _ = try fixture.session.pactl(["set-sink-input-volume", String(stream.index), "52428"])   // 80 %
        XCTAssertTrue(try poll(timeout: 5) { try fixture.stream(stream.index)?.volume == [52428] },
                      "\(String(describing: try? fixture.stream(stream.index)))")
        return (process, try XCTUnwrap(fixture.stream(stream.index)))
    }

    /// No ducked volume is left in what the server saved for `role`. PulseAudio: its
    /// stream-restore entry. PipeWire: WirePlumber keeps its own state, which the extension does
    /// not list, so a new stream of that role must start at `volume` (call only while no duck runs).
    /// `orNothing`: nothing saved at all is fine too (a server killed before it saved).
    private func assertSaved(_ fixture: PolicyFixture, role: String, is volume: [UInt32], orNothing: Bool = false,
                             file: StaticString = #filePath, line: UInt = #line) throws {
        switch fixture.session.soundServerKind {
        case .pulseaudio:
            XCTAssertTrue(try poll(timeout: 3) {
                let saved = try fixture.session.savedStreamVolumes()["sink-input-by-media-role:\(role)"]
                return saved == volume || (orNothing && saved == nil)
            }, "saved: \(String(describing: try? fixture.session.savedStreamVolumes()))", file: file, line: line)
        case .pipewire:
            // WirePlumber files a change a second or so later: ask with a new stream until then.
            let allowed = orNothing ? [volume, [65536]] : [volume]   // 100 %: nothing saved
            var started: [UInt32]?
            let deadline = Date(timeIntervalSinceNow: 8)
            repeat {
                Thread.sleep(forTimeInterval: 1)
                let probe = try fixture.session.startPlayback(role: role, name: "saved-volume-probe", tone: false)
                started = try fixture.session.playbackStreams(named: "saved-volume-probe").first?.volume
                probe.terminate()
                _ = try poll(timeout: 3) { try fixture.session.playbackStreams(named: "saved-volume-probe").isEmpty }
            } while !(started.map(allowed.contains) ?? false) && Date() < deadline
            XCTAssertTrue(started.map(allowed.contains) ?? false,
                          "a new \(role) stream starts at \(String(describing: started)), not at the saved \(volume)",
                          file: file, line: line)
        }
    }

    private static func scaled(_ volume: [UInt32], _ factor: Double) -> [UInt32] {
        volume.map { UInt32((Double($0) * factor).rounded()) }
    }

    func testOtherAppsAreDuckedWhileSpeakingAndRestoredExactly() throws {
        let fixture = try PolicyFixture()
        defer { fixture.shutdown() }
        let (_, music) = try startMusic(fixture)
        let original = music.volume
        let ducked = Self.scaled(original, 0.3)
        let key = "sink-input-by-media-role:music"

        let say = try fixture.sayAndWait(Self.sentence)
        XCTAssertTrue(try poll(timeout: 5) { try fixture.stream(music.index)?.volume == ducked },
                      "not ducked to 30 %: \(String(describing: try? fixture.stream(music.index)?.volume))\(fixture.context)")
        // What the server saved for this stream is its own volume, not the ducked one (PulseAudio
        // lists it; WirePlumber's own state is checked after the duck, see assertSaved).
        if fixture.session.soundServerKind == .pulseaudio {
            XCTAssertTrue(try poll(timeout: 3) { try fixture.session.savedStreamVolumes()[key] == original },
                          "saved: \(String(describing: try? fixture.session.savedStreamVolumes()))")
        }
        XCTAssertEqual(say.waitForExit(timeout: 30), 0)
        XCTAssertTrue(try poll(timeout: 3) { try fixture.stream(music.index)?.volume == original },
                      "not restored: \(String(describing: try? fixture.stream(music.index)?.volume))\(fixture.context)")
        try assertSaved(fixture, role: "music", is: original)
    }

    func testBackToBackAnnouncementsKeepOneDuck() throws {
        let fixture = try PolicyFixture()
        defer { fixture.shutdown() }
        let (_, music) = try startMusic(fixture)
        let ducked = Self.scaled(music.volume, 0.3)
        try fixture.say("First message.")
        try fixture.say("Second message.")
        let last = try fixture.sayAndWait("Third message.")
        XCTAssertTrue(try poll(timeout: 5) { try fixture.stream(music.index)?.volume == ducked })
        // A restore between two announcements shows as the original volume followed by a
        // ducked one again (the last restore may be seen before `say --wait` has exited).
        var seen: [[UInt32]] = []
        while last.isRunning {
            if let volume = try fixture.stream(music.index)?.volume, volume != seen.last { seen.append(volume) }
            usleep(20_000)
        }
        let restored = seen.firstIndex(of: music.volume)
        XCTAssertFalse(restored.map { seen[$0...].contains(ducked) } ?? false, "restored between announcements: \(seen)")
        XCTAssertTrue(try poll(timeout: 3) { try fixture.stream(music.index)?.volume == music.volume })
    }

    func testAVolumeTheListenerChangesDuringTheDuckIsKept() throws {
        let fixture = try PolicyFixture()
        defer { fixture.shutdown() }
        let (_, music) = try startMusic(fixture)
        let say = try fixture.sayAndWait(Self.sentence)
        XCTAssertTrue(try poll(timeout: 5) { try fixture.stream(music.index)?.volume == Self.scaled(music.volume, 0.3) })
        _ = try fixture.session.pactl(["set-sink-input-volume", String(music.index), "50%"])
        XCTAssertEqual(say.waitForExit(timeout: 30), 0)
        // The release comes after the announcement ends: the listener's 50 % must survive it.
        XCTAssertTrue(try holds(for: 1) { try fixture.stream(music.index)?.volume == [32768] },
                      "the listener's own change was undone: \(String(describing: try? fixture.stream(music.index)?.volume))")
    }

    func testStreamsStartingDuringTheDuckAreDuckedAndRestored() throws {
        let fixture = try PolicyFixture()
        defer { fixture.shutdown() }
        let (_, first) = try startMusic(fixture)
        let say = try fixture.sayAndWait(Self.sentence + " " + Self.sentence)
        XCTAssertTrue(try poll(timeout: 5) { try fixture.stream(first.index)?.volume == Self.scaled(first.volume, 0.3) })
        let late = try fixture.session.startPlayback(role: "video", name: "late-video")
        _ = late
        var lateStream: PlaybackStreamInfo?
        XCTAssertTrue(try poll(timeout: 5) {
            lateStream = try fixture.session.playbackStreams().first { $0.properties["media.name"] == "late-video" }
            return lateStream != nil
        })
        let index = try XCTUnwrap(lateStream).index
        // A new stream starts at 100 % (nothing saved for its role in a fresh session); the duck
        // may have lowered it before we first looked.
        let lateOriginal: [UInt32] = [65536]
        XCTAssertTrue(try poll(timeout: 5) { try fixture.stream(index)?.volume == Self.scaled(lateOriginal, 0.3) },
                      "late stream not ducked: \(String(describing: try? fixture.stream(index)))")
        XCTAssertTrue(say.isRunning, "the announcement ended before the check: make it longer")
        XCTAssertEqual(say.waitForExit(timeout: 60), 0)
        XCTAssertTrue(try poll(timeout: 3) { try fixture.stream(index)?.volume == lateOriginal })
        XCTAssertTrue(try poll(timeout: 3) { try fixture.stream(first.index)?.volume == first.volume })
    }

    func testCallsOtherSinksAndOurOwnNarrationAreNotDucked() throws {
        let fixture = try PolicyFixture()
        defer { fixture.shutdown() }
        // A narration stream exists only while a book plays or is paused: read one (the call pauses it).
        try fixture.narrate()
        let (_, call) = try startMusic(fixture, name: "call", role: "phone")
        XCTAssertTrue(try poll(timeout: 5) { try fixture.status() == "Paused" }, "the call did not pause narration\(fixture.context)")
        let (_, elsewhere) = try startMusic(fixture, name: "elsewhere", sink: "speakers")
        // Important: anything less waits while a call is on.
        let say = try fixture.sayAndWait(Self.sentence, ["--priority", "important"])
        XCTAssertTrue(try poll(timeout: 5) { try fixture.announcementStream()?.corked == false })
        XCTAssertTrue(try holds(for: 0.5) {
            try fixture.stream(call.index)?.volume == call.volume && fixture.stream(elsewhere.index)?.volume == elsewhere.volume
                && fixture.narrationStream()?.volume.allSatisfy { $0 == 65536 } == true
        }, "the call, another sink's stream or paused narration was ducked\(fixture.context)")
        XCTAssertEqual(say.waitForExit(timeout: 30), 0)
    }

    func testKilledMidDuckTheNextStartRestoresAndRepairsSavedVolumes() throws {
        let fixture = try PolicyFixture()
        defer { fixture.shutdown() }
        let (_, music) = try startMusic(fixture)
        let ducked = Self.scaled(music.volume, 0.3)
        try fixture.say(Self.sentence + " " + Self.sentence)
        XCTAssertTrue(try poll(timeout: 5) { try fixture.stream(music.index)?.volume == ducked })
        fixture.daemon.send(signal: SIGKILL)
        _ = fixture.daemon.waitForExit(timeout: 5)
        // The crash left it ducked, and the server saved the ducked volume as this role's volume.
        XCTAssertEqual(try fixture.stream(music.index)?.volume, ducked)
        let state = URL(fileURLWithPath: fixture.session.environment["XDG_STATE_HOME"]!)
        XCTAssertTrue(FileManager.default.fileExists(atPath: state.appendingPathComponent("lector/duck-journal.json").path))

        try fixture.startDaemon()
        XCTAssertTrue(try poll(timeout: 5) { try fixture.stream(music.index)?.volume == music.volume },
                      "not restored after restart: \(String(describing: try? fixture.stream(music.index)?.volume))\(fixture.context)")
        try assertSaved(fixture, role: "music", is: music.volume)
        XCTAssertTrue(poll(timeout: 3) {
            !FileManager.default.fileExists(atPath: state.appendingPathComponent("lector/duck-journal.json").path)
        }, "the journal stays after recovery")
    }

    /// The bus going away mid-duck ends the daemon through its teardown: the other app's volume
    /// is back before the process is gone (no restart needed to repair it).
    func testBusLostMidDuckRestoresVolumesBeforeExiting() throws {
        let fixture = try PolicyFixture()
        defer { fixture.shutdown() }
        let (_, music) = try startMusic(fixture)
        let ducked = Self.scaled(music.volume, 0.3)
        try fixture.say(Self.sentence + " " + Self.sentence)
        XCTAssertTrue(try poll(timeout: 5) { try fixture.stream(music.index)?.volume == ducked },
                      "not ducked\(fixture.context)")
        try fixture.session.restartBus()
        XCTAssertEqual(fixture.daemon.waitForExit(timeout: 10), 1,
                       "losing the bus is a failure exit\n\(fixture.daemon.output)")
        XCTAssertFalse(fixture.daemon.output.contains("Program crashed"), fixture.daemon.output)
        XCTAssertEqual(try fixture.stream(music.index)?.volume, music.volume,
                       "the duck was not released before the daemon exited\(fixture.context)")
        try assertSaved(fixture, role: "music", is: music.volume)
    }

    func testSoundServerRestartMidDuckLeavesNoDuckedVolumeSaved() throws {
        let fixture = try PolicyFixture()
        defer { fixture.shutdown() }
        let (_, music) = try startMusic(fixture)
        let say = try fixture.sayAndWait(Self.sentence + " " + Self.sentence)
        XCTAssertTrue(try poll(timeout: 5) { try fixture.stream(music.index)?.volume == Self.scaled(music.volume, 0.3) })
        try fixture.session.startSoundServer()   // restarts it
        _ = say.waitForExit(timeout: 30)
        XCTAssertTrue(fixture.daemon.isRunning, "the daemon died\(fixture.context)")
        // The new server's saved volume for music is not the ducked one.
        try assertSaved(fixture, role: "music", is: music.volume, orNothing: true)
        // And the daemon still speaks.
        let recording = try fixture.session.record(sink: "lector_test")
        let spoken = Date()
        XCTAssertTrue(poll(timeout: 5) { (try? fixture.say("Back again.")) != nil })
        XCTAssertNotNil(recording.waitForSound(after: spoken, timeout: 5), "\(fixture.context)")
    }
}
