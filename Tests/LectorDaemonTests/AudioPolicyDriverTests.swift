import Foundation
@testable import LectorDaemon
import LectorAudio
import LectorCore
import LectorPolicy
import LectorState
import LectorTestKit
import XCTest

/// The audio policy in-process: a sound server in memory, a loop whose time moves only when the
/// test says, and stand-ins for narration and announcements. The same scenarios run against real
/// servers in LectorAudioPolicyTests; here they run in milliseconds, timing included.
/// The harness: everything lives on the main actor, as in the daemon.
@MainActor
final class PolicyHarness {
    final class FakeNarration: NarrationControl {
        var status: PlayerState.Status = .playing
        var isHeld = false
        var streamIndex: UInt32? = 40
        var place: (bookPath: String, chapter: Int)? = ("/books/book.epub", 2)
        var pauses = 0, plays = 0, releases = 0
        func pause() { pauses += 1; status = .paused }
        func play() { plays += 1; status = .playing }
        func release() { releases += 1; isHeld = false }
    }

    final class FakeAnnouncements: AnnouncementControl {
        var isSpeaking = false
        var streamIndex: UInt32? = 50
        var ended: [FinishReason] = []
        var starts = 0
        func endCurrent(_ reason: FinishReason) { ended.append(reason); isSpeaking = false }
        func startNext() { starts += 1 }
    }

    let loop = ManualLoop()
    let server = FakeSoundServer()
    let narration = FakeNarration()
    let announcements = FakeAnnouncements()
    let journal: DuckJournalStore
    let driver: AudioPolicyDriver

    static let speakers: UInt32 = 1, headset: UInt32 = 2
    static let music: UInt32 = 7, elsewhere: UInt32 = 8, phone: UInt32 = 9
    static let musicVolume = ChannelVolumes([52428, 52428])   // 80 %

    init() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("lector-policy-\(UUID().uuidString)")
        journal = DuckJournalStore(directory: directory)
        driver = try AudioPolicyDriver(loop: loop, mirror: server, narrator: narration, announcer: announcements, journal: journal)
        server.addSink(SinkSnapshot(index: Self.speakers, name: "speakers"))
        server.addSink(SinkSnapshot(index: Self.headset, name: "bt_headset",
                                    properties: ["device.form_factor": "headphone", "device.bus": "bluetooth"]))
        let ours = ["application.id": "io.github.lector.Lector", "application.name": "Lector"]
        server.addPlayback(StreamSnapshot(index: 50, device: Self.speakers, properties: ours.merging(["media.role": "event"]) { $1 }))
        server.addPlayback(StreamSnapshot(index: 40, device: Self.headset, properties: ours.merging(["media.role": "music"]) { $1 }))
    }

    func close() {
        driver.close()
        try? FileManager.default.removeItem(at: journal.file.deletingLastPathComponent())
    }

    func addMusic(on sink: UInt32 = speakers, index: UInt32 = music) {
        server.addPlayback(StreamSnapshot(index: index, device: sink, properties: ["media.role": "music", "application.name": "Rhythmbox"],
                                          volume: Self.musicVolume))
    }

    func announce() {
        announcements.isSpeaking = true
        driver.updateDuck()
    }

    func announcementsEnd() {
        announcements.isSpeaking = false
        driver.updateDuck()
    }

}

private typealias H = PolicyHarness

/// XCTest on Linux runs test methods on the main thread but cannot call @MainActor ones: each
/// test steps into the main actor here.
private func withHarness(_ body: @MainActor (PolicyHarness) throws -> Void) throws {
    try MainActor.assumeIsolated {
        let harness = try PolicyHarness()
        defer { harness.close() }
        try body(harness)
    }
}

final class AudioPolicyDriverTests: XCTestCase {
    // MARK: - ducking

    func testAnAnnouncementDucksAppsOnItsSinkInThreeStepsAndRestoresThemExactly() throws {
        try withHarness { h in
            h.addMusic()
            h.addMusic(on: H.headset, index: H.elsewhere)
            h.announce()
            XCTAssertEqual(h.server.volumeWrites.count, 1, "the first step is at once")
            h.loop.advanceTime(by: 9_999)
            XCTAssertEqual(h.server.volumeWrites.count, 1, "the next step waits for its 10 ms")
            h.loop.advanceTime(by: 20_001)
            XCTAssertEqual(h.server.volumeWrites.map(\.stream), [H.music, H.music, H.music], "only the announcement's sink is ducked")
            XCTAssertEqual(h.server.snapshot.playbacks[H.music]?.volume, ChannelVolumes([15728, 15728]), "30 % of 80 %")
            XCTAssertTrue(FileManager.default.fileExists(atPath: h.journal.file.path), "journaled before the first step")

            h.announcementsEnd()
            XCTAssertEqual(h.server.snapshot.playbacks[H.music]?.volume, ChannelVolumes([15728, 15728]), "restored a moment later, not at once")
            h.loop.run()
            XCTAssertEqual(h.server.snapshot.playbacks[H.music]?.volume, H.musicVolume, "restored exactly")
            XCTAssertEqual(h.server.snapshot.playbacks[H.elsewhere]?.volume, H.musicVolume)
            XCTAssertFalse(FileManager.default.fileExists(atPath: h.journal.file.path), "the h.journal goes with the duck")
            XCTAssertEqual(h.loop.armedTimers, 0, "nothing stays scheduled once idle")
        }
    }

    func testAVolumeTheListenerChangesDuringTheDuckIsKept() throws {
        try withHarness { h in
            h.addMusic()
            h.announce()
            h.loop.advanceTime(by: 30_000)
            h.server.updatePlayback(H.music) { $0.volume = ChannelVolumes([40000, 40000]) }   // the listener
            h.announcementsEnd()
            h.loop.run()
            XCTAssertEqual(h.server.snapshot.playbacks[H.music]?.volume, ChannelVolumes([40000, 40000]))
        }
    }

    func testBackToBackAnnouncementsKeepOneDuck() throws {
        try withHarness { h in
            h.addMusic()
            h.announce()
            h.loop.advanceTime(by: 30_000)
            let writes = h.server.volumeWrites.count
            h.announcementsEnd()
            h.announce()   // the next one starts before the release timer fired
            h.loop.advanceTime(by: 100_000)
            XCTAssertEqual(h.server.volumeWrites.count, writes, "no restore and re-duck between the two")
            h.announcementsEnd()
            h.loop.run()
            XCTAssertEqual(h.server.snapshot.playbacks[H.music]?.volume, H.musicVolume)
        }
    }

    func testAStreamStartingDuringTheDuckIsDuckedAndOurOwnAreNever() throws {
        try withHarness { h in
            h.announce()
            h.addMusic()
            h.loop.advanceTime(by: 30_000)
            XCTAssertEqual(h.server.snapshot.playbacks[H.music]?.volume, ChannelVolumes([15728, 15728]))
            XCTAssertFalse(h.server.volumeWrites.contains { $0.stream == 50 || $0.stream == 40 }, "our own streams are never ducked")
        }
    }

    // MARK: - calls

    func testACallPausesNarrationAndItsEndResumesIt() throws {
        try withHarness { h in
            h.server.addPlayback(StreamSnapshot(index: H.phone, device: H.speakers, properties: ["media.role": "phone"]))
            XCTAssertEqual(h.narration.pauses, 1)
            XCTAssertEqual(h.driver.pausedBecause, "call")
            h.loop.advanceTime(by: 60_000_000)
            h.server.removePlayback(H.phone)
            XCTAssertEqual(h.narration.plays, 1, "resumed after a one-minute call")
            XCTAssertEqual(h.narration.status, .playing)
        }
    }

    func testTheListenerActingDuringTheCallMeansNoResume() throws {
        try withHarness { h in
            h.server.addPlayback(StreamSnapshot(index: H.phone, device: H.speakers, properties: ["media.role": "phone"]))
            h.driver.listenerActed(pausing: true)
            h.server.removePlayback(H.phone)
            XCTAssertEqual(h.narration.plays, 0)
            XCTAssertEqual(h.driver.pausedBecause, "user")
        }
    }

    func testACallLongerThanTheTimeoutDoesNotResume() throws {
        try withHarness { h in
            h.driver.interruptions.resumeTimeoutMicroseconds = 15 * 60_000_000
            h.server.addRecording(StreamSnapshot(index: 3, device: 0, properties: ["media.role": "phone"]))
            XCTAssertEqual(h.narration.pauses, 1, "a phone recording stream is a call too")
            h.loop.advanceTime(by: 16 * 60_000_000)
            h.server.removeRecording(3)
            XCTAssertEqual(h.narration.plays, 0)
            XCTAssertEqual(h.driver.pausedBecause, "call")
        }
    }

    func testACallHoldsAnnouncementsButNotImportantOnes() throws {
        try withHarness { h in
            h.server.addPlayback(StreamSnapshot(index: H.phone, device: H.speakers, properties: ["media.role": "phone"]))
            XCTAssertFalse(h.driver.mayStart(.message))
            XCTAssertTrue(h.driver.mayStart(.important))
            let starts = h.announcements.starts
            h.server.removePlayback(H.phone)
            XCTAssertTrue(h.driver.mayStart(.message))
            XCTAssertGreaterThan(h.announcements.starts, starts, "held h.announcements may go once the call ends")
        }
    }

    // MARK: - routes

    func testTheHeadsetGoingAwayPausesAndItsReturnDoesNotResume() throws {
        try withHarness { h in
            h.server.removeSink(H.headset)
            XCTAssertEqual(h.narration.pauses, 1)
            XCTAssertEqual(h.driver.pausedBecause, "device-removed")
            h.server.addSink(SinkSnapshot(index: 3, name: "bt_headset", properties: ["device.form_factor": "headphone"]))
            h.server.updatePlayback(40) { $0.device = 3 }
            XCTAssertEqual(h.narration.plays, 0, "never resumes by itself")
            XCTAssertEqual(h.driver.pausedBecause, "device-removed")
        }
    }

    func testAMoveOfOurPlayingStreamPausesButAMoveBeforePlayReachedTheServerDoesNot() throws {
        try withHarness { h in
            // Paused (corked); `pactl set-default-sink speakers; playerctl play`: Play is handled
            // before the move's event.
            h.narration.status = .paused
            h.server.updatePlayback(40) { $0.corked = true }
            h.narration.status = .playing
            h.driver.narrationStarted()
            h.server.updatePlayback(40) { $0.device = H.speakers }
            XCTAssertEqual(h.narration.pauses, 0, "a corked stream heard nothing anywhere")
            h.server.updatePlayback(40) { $0.corked = false }
            h.server.updatePlayback(40) { $0.device = H.headset }
            XCTAssertEqual(h.narration.pauses, 1)
            XCTAssertEqual(h.driver.pausedBecause, "stream-moved")
        }
    }

    func testPipeWiresCorkedAndDetachedMidMoveIsStillAMove() throws {
        try withHarness { h in
            h.server.updatePlayback(40) { $0.corked = true; $0.device = UInt32.max }
            XCTAssertEqual(h.narration.pauses, 0)
            h.server.updatePlayback(40) { $0.device = H.speakers }
            XCTAssertEqual(h.narration.pauses, 1, "the running stream moved, through no sink, to the speakers")
            XCTAssertEqual(h.driver.pausedBecause, "stream-moved")
        }
    }

    func testAPlayAfterTheHeadsetWentAndCameBackIsNotTakenForItsRemovalAgain() throws {
        try withHarness { h in
            h.server.updatePlayback(40) { $0.corked = true; $0.device = UInt32.max }   // PipeWire parks it
            h.server.removeSink(H.headset)
            XCTAssertEqual(h.driver.pausedBecause, "device-removed")
            h.server.addSink(SinkSnapshot(index: 3, name: "bt_headset", properties: ["device.form_factor": "headphone"]))
            h.narration.status = .playing
            h.driver.listenerActed(pausing: false)
            h.driver.narrationStarted()
            h.server.updatePlayback(40) { $0.device = 3; $0.corked = false }
            XCTAssertEqual(h.narration.pauses, 1, "paused once, for the removal")
            XCTAssertEqual(h.driver.pausedBecause, "")
        }
    }
}
