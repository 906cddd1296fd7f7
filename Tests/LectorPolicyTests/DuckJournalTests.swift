import Foundation
import LectorPolicy
import XCTest

final class DuckJournalTests: XCTestCase {
    typealias M = RealMachine
    let sink = M.laptopIndex
    let full = ChannelVolumes([65536, 65536])
    let ducked = ChannelVolumes([19661, 19661])

    /// A journal as the daemon writes it mid-duck: Firefox fully ducked, Rhythmbox one step
    /// into its ramp, the laptop sink raised for ensure-audible.
    private func midDuck() -> (DuckBook, DuckJournal, firefox: StreamSnapshot, rhythmbox: StreamSnapshot) {
        var book = DuckBook()
        var firefox = M.firefox(on: sink)
        var rhythmbox = M.rhythmbox(on: sink)
        for step in book.duck(firefox, level: 0.3, steps: 3) {
            book.willSet(step, on: firefox.index)
            firefox.volume = step
        }
        let step = book.duck(rhythmbox, level: 0.3, steps: 3)[0]
        book.willSet(step, on: rhythmbox.index)
        rhythmbox.volume = step
        let raise = SinkRaise(sink: sink, name: M.laptopName, original: ChannelVolumes([6554, 6554]),
                              raised: ChannelVolumes([13107, 13107]), unmuted: false)
        return (book, book.journal(raises: [raise]), firefox, rhythmbox)
    }

    func testRoundTripThroughJSON() throws {
        let (_, journal, _, _) = midDuck()
        XCTAssertEqual(journal.version, DuckJournal.currentVersion)
        let data = try JSONEncoder().encode(journal)
        XCTAssertEqual(try JSONDecoder().decode(DuckJournal.self, from: data), journal)
        XCTAssertEqual(journal.entries.count, 2)
        XCTAssertEqual(journal.raises.count, 1)
    }

    func testRecoveryRestoresWhatIsStillOurs() {
        let (_, journal, firefox, rhythmbox) = midDuck()
        let snapshot = M.snapshot([M.laptop(volume: ChannelVolumes([13107, 13107]))], [firefox, rhythmbox])
        XCTAssertEqual(journal.recovery(in: snapshot), [
            .setStreamVolume(stream: 63, volume: full),
            .setStreamVolume(stream: 64, volume: ChannelVolumes([52429, 52429])),
            .setSinkVolume(sink: sink, volume: ChannelVolumes([6554, 6554])),
        ])
    }

    func testRecoveryLeavesUserChangesAndGoneStreamsAlone() {
        let (_, journal, firefox, _) = midDuck()
        var changed = firefox
        changed.volume = ChannelVolumes([40000, 40000])
        let snapshot = M.snapshot([M.laptop(volume: ChannelVolumes([50000, 50000]))], [changed])
        XCTAssertEqual(journal.recovery(in: snapshot), [])
        XCTAssertEqual(journal.recovery(in: AudioSnapshot()), [], "nothing left at all")
    }

    func testRecoveryWithAReusedIndexButAnotherStream() {
        let (_, journal, _, _) = midDuck()
        // The server restarted; index 63 now belongs to another application that happens to
        // be at 30 %.
        let stranger = StreamSnapshot(index: 63, device: sink, properties: [
            "application.name": "VLC media player (LibVLC 3.0.18)", "application.process.id": "7777",
            "media.role": "video", "media.name": "audio stream",
        ], volume: ducked)
        XCTAssertEqual(journal.recovery(in: M.snapshot([M.laptop()], [stranger])), [])
        // The same Firefox process, retitled, at our volume: restored.
        var retitled = M.firefox(on: sink, volume: ducked)
        retitled.properties["media.name"] = "Big Buck Bunny"
        XCTAssertEqual(journal.recovery(in: M.snapshot([M.laptop()], [retitled])),
                       [.setStreamVolume(stream: 63, volume: full)])
    }

    func testRecoveryOfAStreamAlreadyBackAtItsOriginalDoesNothing() {
        let (_, journal, _, _) = midDuck()
        XCTAssertEqual(journal.recovery(in: M.snapshot([M.laptop()], [M.firefox(on: sink)])), [])
    }

    func testRecoveryOfAnUnmutedSink() {
        let journal = DuckJournal(raises: [SinkRaise(sink: sink, name: M.laptopName, original: ChannelVolumes([45875, 45875]),
                                                     raised: nil, unmuted: true)])
        XCTAssertEqual(journal.recovery(in: M.snapshot([M.laptop()])), [.setSinkMute(sink: sink, muted: true)])
        XCTAssertEqual(journal.recovery(in: M.snapshot([M.nullSpeakers])), [], "the sink is gone")
    }

    func testFadeBackUpRecordedInTheJournalIsRecovered() {
        var (book, journal, firefox, _) = midDuck()
        let restore = book.release().first { $0.stream == firefox.index }!
        let up = restore.rampUp(steps: 4)
        journal.record(up, on: firefox.index)
        journal.record(up, on: 999)   // unknown streams are ignored
        firefox.volume = up[1]        // crashed mid-fade
        XCTAssertEqual(journal.recovery(in: M.snapshot([M.laptop()], [firefox])), [.setStreamVolume(stream: 63, volume: full)])
        XCTAssertEqual(journal.entries.first { $0.stream == 63 }?.volumesSet.count, 3 + 4)
    }

    // MARK: saved stream-restore entries

    func testSavedEntriesHoldingADuckedVolumeAreRepaired() {
        let (_, journal, _, rhythmbox) = midDuck()
        let saved: [String: ChannelVolumes] = [
            "sink-input-by-application-name:Firefox": ducked,
            "sink-input-by-media-role:music": rhythmbox.volume,
            "sink-input-by-media-role:event": ChannelVolumes([65536]),
            "sink-input-by-media-role:phone": ducked,   // same value, but not a key we ducked
        ]
        XCTAssertEqual(journal.savedEntryRepairs(saved: saved), [
            SavedEntryRepair(key: "sink-input-by-application-name:Firefox", volume: full),
            SavedEntryRepair(key: "sink-input-by-media-role:music", volume: ChannelVolumes([52429, 52429])),
        ])
    }

    func testSavedEntriesTheUserChangedOrAlreadyRestoredStay() {
        let (_, journal, _, _) = midDuck()
        XCTAssertEqual(journal.savedEntryRepairs(saved: [
            "sink-input-by-application-name:Firefox": full,
            "sink-input-by-media-role:music": ChannelVolumes([30000, 30000]),
        ]), [])
    }

    func testSavedVolumesAreComparedWithATolerance() {
        let (_, journal, _, _) = midDuck()
        // pipewire-pulse keeps saved volumes as floats: 30 % may read back one unit off.
        XCTAssertEqual(journal.savedEntryRepairs(saved: ["sink-input-by-application-name:Firefox": ChannelVolumes([19660, 19662])]),
                       [SavedEntryRepair(key: "sink-input-by-application-name:Firefox", volume: full)])
        XCTAssertEqual(journal.savedEntryRepairs(saved: ["sink-input-by-application-name:Firefox": ChannelVolumes([19660, 19662])],
                                                 tolerance: 0), [])
    }

    func testSharedKeyPicksTheStreamWhoseVolumeItHolds() {
        // Two music-role players ducked; the saved entry holds the last one saved.
        var book = DuckBook()
        var rhythmbox = M.rhythmbox(on: sink)
        var other = M.rhythmbox(on: sink, index: 80, volume: ChannelVolumes([32768, 32768]))
        for step in book.duck(rhythmbox, level: 0.3, steps: 2) { book.willSet(step, on: 64); rhythmbox.volume = step }
        for step in book.duck(other, level: 0.3, steps: 2) { book.willSet(step, on: 80); other.volume = step }
        let journal = book.journal()
        XCTAssertEqual(journal.savedEntryRepairs(saved: ["sink-input-by-media-role:music": other.volume]),
                       [SavedEntryRepair(key: "sink-input-by-media-role:music", volume: ChannelVolumes([32768, 32768]))])
    }

    func testEmptyJournal() {
        let journal = DuckJournal()
        XCTAssertEqual(journal.entries, [])
        XCTAssertEqual(journal.recovery(in: M.snapshot([M.laptop()], [M.firefox(on: sink)])), [])
        XCTAssertEqual(journal.savedEntryRepairs(saved: ["x": ducked]), [])
    }

    func testMergingKeepsEachEntryOnceAndRemovingDropsCurrentStreams() {
        let firefox = DuckEntry(stream: M.firefox(on: sink), level: 0.3)
        let rhythmbox = DuckEntry(stream: M.rhythmbox(on: sink), level: 0.3)
        var journal = DuckJournal(entries: [firefox])
        XCTAssertFalse(journal.isEmpty)
        journal.merge(DuckJournal(entries: [firefox, rhythmbox]))
        XCTAssertEqual(journal.entries, [firefox, rhythmbox])
        XCTAssertEqual(journal.removing(streams: [firefox.stream]).entries, [rhythmbox])
        XCTAssertTrue(DuckJournal().isEmpty)
    }
}
