import Foundation
import LectorTestKit
import XCTest

/// `lector sleep` (issue 13) against the real bus and sound server: the fade is heard on the
/// sink's monitor (the amplitude falls), only narration's own stream volume moves (another
/// app's stream and the sinks keep theirs), then narration pauses (PausedBecause "sleep-timer"),
/// the bookmark is written and the listener's volume is back. Short durations throughout: a
/// timer under 20 s fades from its start.
final class SleepTimerTests: XCTestCase {
    private func sleepTimer(_ fixture: PlayerFixture) throws -> [String: Any] {
        let value = try fixture.property("SleepTimer", interface: PlayerFixture.narrator, path: PlayerFixture.narratorPath)
        guard value.type == "a{sv}", let dictionary = value.data as? [String: Any] else { throw FixtureError("SleepTimer is \(value)") }
        return dictionary.mapValues { ($0 as? [String: Any])?["data"] ?? $0 }
    }

    private func pausedBecause(_ fixture: PlayerFixture) throws -> String {
        let value = try fixture.property("PausedBecause", interface: PlayerFixture.narrator, path: PlayerFixture.narratorPath)
        return value.data as? String ?? "?"
    }

    private func narrationVolume(_ fixture: PlayerFixture) throws -> [UInt32]? { try fixture.narrationStream()?.volume }

    func testTheFadeIsHeardOnNarrationOnlyThenItPausesAndWritesTheBookmark() throws {
        let fixture = try PlayerFixture()
        defer { fixture.shutdown() }
        _ = try fixture.session.loadNullSink(name: "other_output")
        try fixture.session.startPlayback(role: "music", sink: "other_output", name: "OtherPlayer")
        let other = try XCTUnwrap(try fixture.session.playbackStreams(named: "OtherPlayer").first)
        let sinksBefore = try fixture.session.sinkInfos().map { [$0.name: $0.volume] }
        let book = try TextBooks.write(TextBooks.runOnChapters, named: "river.txt", in: fixture.session.directory)
        try fixture.openAndHear(book)
        XCTAssertTrue(try poll(timeout: 5) { try fixture.narrationStream() != nil }, fixture.context)
        let fullVolume = try XCTUnwrap(try narrationVolume(fixture))
        Thread.sleep(forTimeInterval: 1)

        let setAt = Date()
        let set = try fixture.cli("sleep", "8s")
        XCTAssertEqual(set.status, 0, "\(set)\(fixture.context)")
        XCTAssertTrue(set.stdout.contains("Narration pauses in 0:0"), "\(set)")
        let timer = try sleepTimer(fixture)
        XCTAssertEqual(timer["mode"] as? String, "duration", "\(timer)")
        XCTAssertEqual(timer["fading"] as? Bool, true, "8 s is within the last 20 s: fading at once \(timer)")
        XCTAssertEqual(Double((timer["remaining"] as? NSNumber)?.int64Value ?? 0) / 1e6, 8, accuracy: 1, "\(timer)")
        let status = try fixture.cli("status")
        XCTAssertTrue(status.stdout.contains("Sleep:    0:0"), "lector status shows the timer: \(status)")

        // Half way: narration's own volume is lower, nobody else's moved.
        Thread.sleep(until: setAt.addingTimeInterval(4))
        let halfway = try XCTUnwrap(try narrationVolume(fixture), fixture.context)
        XCTAssertLessThan(halfway.max() ?? 0, fullVolume.max()! * 3 / 4, "narration stream volume mid-fade: \(halfway)")
        XCTAssertEqual(try fixture.session.playbackStreams(named: "OtherPlayer").first?.volume, other.volume, "another app was touched")
        XCTAssertEqual(try fixture.session.sinkInfos().map { [$0.name: $0.volume] }, sinksBefore, "a sink volume was touched")

        XCTAssertTrue(try poll(timeout: 8) { try fixture.status() == "Paused" }, "not paused by the timer\(fixture.context)")
        let pausedAt = Date()
        XCTAssertEqual(pausedAt.timeIntervalSince(setAt), 8, accuracy: 1.5, "paused \(pausedAt.relative(to: setAt)) after sleep 8s")
        XCTAssertEqual(try pausedBecause(fixture), "sleep-timer")
        let early = fixture.recording.peakAmplitude(from: setAt.addingTimeInterval(0.3), to: setAt.addingTimeInterval(2.3))
        let late = fixture.recording.peakAmplitude(from: setAt.addingTimeInterval(5.3), to: setAt.addingTimeInterval(7.3))
        print("sleep fade on the monitor: peak \(early) in the fade's first 2 s, \(late) in its last 2 s; paused \(pausedAt.relative(to: setAt))")
        XCTAssertGreaterThan(early, 2_000, "narration heard at the start of the fade")
        XCTAssertLessThan(late, early / 3, "the amplitude falls: peak \(early) early, \(late) late\(fixture.context)")
        XCTAssertTrue(fixture.recording.waitForSilence(quiet: 0.5, timeout: 3), "heard after the pause")

        // Afterwards: the listener's volume is back (the stream is corked, so it is not heard), the
        // bookmark is written, the timer is gone.
        XCTAssertTrue(try poll(timeout: 3) { try narrationVolume(fixture) == fullVolume }, "volume not restored: \((try? narrationVolume(fixture)) as Any)")
        XCTAssertNil(fixture.sound(after: pausedAt.addingTimeInterval(0.3), timeout: 1), "sound after the pause\(fixture.context)")
        // The server saves stream volumes (PulseAudio's stream-restore): no faded one may stick.
        let key = "sink-input-by-application-id:io.github.lector.Lector.narration"
        XCTAssertTrue(try poll(timeout: 3) { try fixture.session.savedStreamVolumes()[key].map { $0 == fullVolume } ?? true },
                      "a faded volume was saved: \((try? fixture.session.savedStreamVolumes()[key]) as Any)")
        XCTAssertTrue(poll(timeout: 3) { fixture.anyBookmarkOffset() > 0 },
                      "no bookmark written at the pause")
        XCTAssertTrue(try sleepTimer(fixture).isEmpty, "the timer is over")
        XCTAssertFalse(try fixture.cli("status").stdout.contains("Sleep:"))
        XCTAssertEqual(try fixture.session.playbackStreams(named: "OtherPlayer").first?.volume, other.volume)

        // Play again: full loudness, no timer.
        let played = Date()
        XCTAssertTrue(try fixture.playerctl("play").succeeded)
        XCTAssertNotNil(fixture.sound(after: played, timeout: 3), fixture.context)
        Thread.sleep(forTimeInterval: 1.5)
        XCTAssertGreaterThan(fixture.recording.peakAmplitude(from: played.addingTimeInterval(0.3), to: Date()), early / 2,
                             "full loudness after the timer")
    }

    func testAnActionWhileFadingBringsTheVolumeBackTheTimerStillEndsAndANewOneReplacesIt() throws {
        let fixture = try PlayerFixture()
        defer { fixture.shutdown() }
        let book = try TextBooks.write(TextBooks.runOnChapters, named: "river.txt", in: fixture.session.directory)
        try fixture.openAndHear(book)
        XCTAssertTrue(try poll(timeout: 5) { try fixture.narrationStream() != nil }, fixture.context)
        let fullVolume = try XCTUnwrap(try narrationVolume(fixture))

        let setAt = Date()
        XCTAssertEqual(try fixture.cli("sleep", "10s").status, 0)
        Thread.sleep(until: setAt.addingTimeInterval(4))
        XCTAssertLessThan(try narrationVolume(fixture)?.max() ?? .max, fullVolume.max()!, "fading")
        XCTAssertTrue(try fixture.playerctl("position", "2+").succeeded)
        XCTAssertTrue(try poll(timeout: 2) { try narrationVolume(fixture) == fullVolume }, "a seek did not cancel the fade")
        XCTAssertEqual(try sleepTimer(fixture)["fading"] as? Bool, false)
        XCTAssertEqual(try sleepTimer(fixture)["mode"] as? String, "duration", "the timer is kept")
        XCTAssertTrue(try holds(for: 2) { try narrationVolume(fixture) == fullVolume }, "faded again after the seek")
        XCTAssertTrue(try poll(timeout: 6) { try fixture.status() == "Paused" }, "the timer did not end\(fixture.context)")
        XCTAssertEqual(Date().timeIntervalSince(setAt), 10, accuracy: 1.5)
        XCTAssertEqual(try pausedBecause(fixture), "sleep-timer")

        // A new timer replaces the one fading: the volume comes back, the new time counts.
        XCTAssertTrue(try fixture.playerctl("play").succeeded)
        XCTAssertEqual(try fixture.cli("sleep", "9s").status, 0)
        Thread.sleep(forTimeInterval: 3)
        XCTAssertLessThan(try narrationVolume(fixture)?.max() ?? .max, fullVolume.max()!, "fading")
        let replaced = try fixture.cli("sleep", "1h")
        XCTAssertEqual(replaced.status, 0, "\(replaced)")
        XCTAssertTrue(replaced.stdout.contains("Narration pauses in 1:00:00") || replaced.stdout.contains("Narration pauses in 59:5"), "\(replaced)")
        XCTAssertTrue(try poll(timeout: 2) { try narrationVolume(fixture) == fullVolume }, "replacing did not end the fade")
        XCTAssertTrue(try holds(for: 7) { try fixture.status() == "Playing" }, "the replaced timer still paused")
        XCTAssertEqual(Double((try sleepTimer(fixture)["remaining"] as? NSNumber)?.int64Value ?? 0) / 1e6, 3590, accuracy: 5)

        // Pausing holds the count; off ends it.
        XCTAssertTrue(try fixture.playerctl("pause").succeeded)
        let held = (try sleepTimer(fixture)["remaining"] as? NSNumber)?.int64Value ?? 0
        Thread.sleep(forTimeInterval: 1)
        XCTAssertEqual((try sleepTimer(fixture)["remaining"] as? NSNumber)?.int64Value, held, "counted while paused")
        let off = try fixture.cli("sleep", "off")
        XCTAssertEqual(off.status, 0)
        XCTAssertTrue(off.stdout.contains("No sleep timer"), "\(off)")
        XCTAssertTrue(try sleepTimer(fixture).isEmpty)
    }

    func testChapterPausesAtTheStartOfTheNextChapter() throws {
        let fixture = try PlayerFixture()
        defer { fixture.shutdown() }
        let book = try TextBooks.write(TextBooks.threeShortChapters, named: "short.txt", in: fixture.session.directory)
        try fixture.openAndHear(book)
        let set = try fixture.cli("sleep", "chapter")
        XCTAssertEqual(set.status, 0, "\(set)")
        XCTAssertTrue(set.stdout.contains("end of this chapter"), "\(set)")
        XCTAssertEqual(try sleepTimer(fixture)["mode"] as? String, "chapter")
        XCTAssertTrue(try fixture.cli("status").stdout.contains("Sleep:    end of chapter"))
        let follow = try fixture.session.spawn(fixture.lector, ["status", "--follow"])
        defer { follow.terminate(grace: 1) }
        XCTAssertTrue(poll(timeout: 3) { follow.standardOutput.contains(" sleep: end of chapter") }, "--follow: \(follow.output)")
        XCTAssertTrue(try poll(timeout: 15) { try fixture.status() == "Paused" }, "did not pause at the chapter's end\(fixture.context)")
        XCTAssertEqual(try fixture.trackNumber(), 2, "paused at the next chapter, ready to go on")
        XCTAssertLessThan(try fixture.position(), 500_000)
        XCTAssertEqual(try pausedBecause(fixture), "sleep-timer")
        XCTAssertTrue(fixture.recording.waitForSilence(quiet: 0.5, timeout: 2))
        XCTAssertTrue(try sleepTimer(fixture).isEmpty)
    }

    func testBadDurationsAreRefusedAndChangeNothing() throws {
        let fixture = try PlayerFixture()
        defer { fixture.shutdown() }
        let book = try TextBooks.write(TextBooks.runOnChapters, named: "river.txt", in: fixture.session.directory)
        try fixture.openAndHear(book)
        XCTAssertEqual(try fixture.cli("sleep", "20m").status, 0)
        for (argument, words) in [("0", "pause at once"), ("-5m", "negative"), ("99999h", "at most 24h"), ("20", "no unit"),
                                  ("soon", "not a duration")] {
            let result = try fixture.cli("sleep", argument)
            XCTAssertEqual(result.status, 64, "lector sleep \(argument): \(result)")
            XCTAssertTrue(result.stderr.contains(words), "lector sleep \(argument): \(result)")
            fixture.assertError(try fixture.call(PlayerFixture.narrator, "SetSleepTimer", [PlayerFixture.quoted(argument)],
                                                 path: PlayerFixture.narratorPath), "InvalidArgument", "SetSleepTimer \(argument)")
        }
        let timer = try sleepTimer(fixture)
        XCTAssertEqual(timer["mode"] as? String, "duration", "the 20m timer stands")
        XCTAssertEqual(Double((timer["remaining"] as? NSNumber)?.int64Value ?? 0) / 1e6, 1200, accuracy: 30)
        XCTAssertEqual(try fixture.status(), "Playing")
        XCTAssertTrue(fixture.daemon.isRunning)
    }
}

extension PlayerFixture {
    /// The offset of the only bookmark on disk (text books are keyed by a hash of their bytes).
    func anyBookmarkOffset() -> Int {
        let files = (try? FileManager.default.contentsOfDirectory(at: bookmarkDirectory, includingPropertiesForKeys: nil)) ?? []
        for file in files where file.pathExtension == "json" {
            if let data = try? Data(contentsOf: file),
               let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
               let offset = (object["offset"] as? NSNumber)?.intValue { return offset }
        }
        return -1
    }
}
