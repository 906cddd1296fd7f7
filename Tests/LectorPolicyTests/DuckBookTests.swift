import LectorPolicy
import XCTest

final class DuckBookTests: XCTestCase {
    typealias M = RealMachine
    let sink = M.laptopIndex
    let full = ChannelVolumes([65536, 65536])
    let ducked = ChannelVolumes([19661, 19661])

    /// Plays the daemon's part: sets every step of a ramp, telling the book first.
    private func setAll(_ ramp: [ChannelVolumes], on stream: inout StreamSnapshot, in book: inout DuckBook) {
        for step in ramp {
            book.willSet(step, on: stream.index)
            stream.volume = step
        }
    }

    func testDuckRecordsTheOriginalAndReturnsTheRamp() {
        var book = DuckBook()
        XCTAssertFalse(book.isDucking)
        let ramp = book.duck(M.firefox(on: sink), level: 0.3, steps: 4)
        XCTAssertEqual(ramp.count, 4)
        XCTAssertEqual(ramp.last, ducked)
        XCTAssertLessThan(ramp[0].loudest, full.loudest)
        XCTAssertTrue(book.isDucking)
        XCTAssertEqual(book.entries[63]?.original, full)
        XCTAssertEqual(book.entries[63]?.target, ducked)
    }

    func testDuckingAStreamAlreadyInTheBookReturnsNothing() {
        var book = DuckBook()
        var firefox = M.firefox(on: sink)
        setAll(book.duck(firefox, level: 0.3, steps: 3), on: &firefox, in: &book)
        // Next announcement, same duck session: the stream is at 30 % now and must not be
        // ducked again (to 9 %), nor its original forgotten.
        XCTAssertEqual(book.duck(firefox, level: 0.3, steps: 3), [])
        XCTAssertEqual(book.entries[63]?.original, full)
    }

    func testLevelOneChangesNothingAndRecordsNothing() {
        var book = DuckBook()
        XCTAssertEqual(book.duck(M.firefox(on: sink), level: 1, steps: 3), [])
        XCTAssertFalse(book.isDucking)
    }

    func testFullDuckAndRestore() {
        var book = DuckBook()
        var firefox = M.firefox(on: sink)
        var rhythmbox = M.rhythmbox(on: sink)
        setAll(book.duck(firefox, level: 0.3, steps: 3), on: &firefox, in: &book)
        setAll(book.duck(rhythmbox, level: 0.3, steps: 3), on: &rhythmbox, in: &book)
        XCTAssertEqual(book.observe(firefox), .ours)
        XCTAssertEqual(book.observe(rhythmbox), .ours)

        let restores = book.release()
        XCTAssertFalse(book.isDucking)
        XCTAssertEqual(book.entries, [:])
        XCTAssertEqual(restores.map { var plain = $0; plain.volumesSet = []; return plain }, [
            DuckBook.Restore(stream: 63, expected: ducked, original: full, restoreKey: "sink-input-by-application-name:Firefox"),
            DuckBook.Restore(stream: 64, expected: ChannelVolumes([15729, 15729]), original: ChannelVolumes([52429, 52429]),
                             restoreKey: "sink-input-by-media-role:music"),
        ])
        XCTAssertTrue(DuckBook.shouldRestore(current: firefox.volume, restores[0]))
        XCTAssertTrue(DuckBook.shouldRestore(current: rhythmbox.volume, restores[1]))
    }

    func testLaggingEventsOfEarlierStepsAreOurs() {
        var book = DuckBook()
        var firefox = M.firefox(on: sink)
        let ramp = book.duck(firefox, level: 0.3, steps: 5)
        setAll(ramp, on: &firefox, in: &book)
        for step in ramp {
            var event = firefox
            event.volume = step
            XCTAssertEqual(book.observe(event), .ours, "\(step)")
        }
        // An event sent before our first set still shows the original volume.
        var early = firefox
        early.volume = full
        XCTAssertEqual(book.observe(early), .ours)
        XCTAssertTrue(book.isDucking)
    }

    func testMuteOrCorkEventsAreNotVolumeChanges() {
        var book = DuckBook()
        var firefox = M.firefox(on: sink)
        setAll(book.duck(firefox, level: 0.3, steps: 2), on: &firefox, in: &book)
        firefox.muted = true
        firefox.corked = true
        XCTAssertEqual(book.observe(firefox), .ours)
    }

    func testUserChangesVolumeMidRamp() {
        var book = DuckBook()
        var firefox = M.firefox(on: sink)
        let ramp = book.duck(firefox, level: 0.3, steps: 5)
        setAll(Array(ramp.prefix(2)), on: &firefox, in: &book)
        XCTAssertEqual(book.observe(firefox), .ours)

        firefox.volume = ChannelVolumes([60000, 60000])   // the user drags the slider
        XCTAssertEqual(book.observe(firefox), .changedByUser, "the daemon stops the ramp")
        XCTAssertNil(book.entries[63])
        XCTAssertEqual(book.observe(firefox), .unknown)
        // Nothing to restore: the user's volume stands.
        XCTAssertEqual(book.release(), [])
    }

    func testUserSettingAFutureRampValueIsStillTheUser() {
        var book = DuckBook()
        var firefox = M.firefox(on: sink)
        let ramp = book.duck(firefox, level: 0.3, steps: 5)
        setAll([ramp[0]], on: &firefox, in: &book)
        firefox.volume = ramp[3]   // not set by us yet
        XCTAssertEqual(book.observe(firefox), .changedByUser)
    }

    func testUserChangeAfterTheRampPreventsTheRestore() {
        var book = DuckBook()
        var firefox = M.firefox(on: sink)
        setAll(book.duck(firefox, level: 0.3, steps: 3), on: &firefox, in: &book)
        let restores = book.release()
        // The event for the user's change arrived only after the release.
        XCTAssertFalse(DuckBook.shouldRestore(current: ChannelVolumes([30000, 30000]), restores[0]))
        XCTAssertFalse(DuckBook.shouldRestore(current: ChannelVolumes([19661]), restores[0]))
        XCTAssertTrue(DuckBook.shouldRestore(current: ducked, restores[0]))
    }

    func testReleaseMidRampRestoresFromAnyStepOrTheOriginal() {
        var book = DuckBook()
        var firefox = M.firefox(on: sink)
        let ramp = book.duck(firefox, level: 0.3, steps: 3)
        for volume in ramp { book.willSet(volume, on: firefox.index) }   // all planned, one set so far
        firefox.volume = ramp[0]
        let restores = book.release()
        XCTAssertTrue(DuckBook.shouldRestore(current: ramp[0], restores[0]))
        XCTAssertTrue(DuckBook.shouldRestore(current: full, restores[0]), "our first set may still be in flight")
        XCTAssertFalse(DuckBook.shouldRestore(current: ChannelVolumes([30000, 30000]), restores[0]))
    }

    func testStreamStartingDuringADuckIsDucked() {
        var book = DuckBook()
        let policy = DuckPolicy()
        var firefox = M.firefox(on: sink)
        setAll(book.duck(firefox, level: policy.level, steps: 3), on: &firefox, in: &book)

        // Rhythmbox resumes (uncorks) while the announcement plays.
        var rhythmbox = M.rhythmbox(on: sink, corked: true)
        XCTAssertFalse(policy.shouldDuck(rhythmbox, onSink: sink, ownStreams: [M.lectorIndex]))
        XCTAssertEqual(book.observe(rhythmbox), .unknown)
        rhythmbox.corked = false
        XCTAssertTrue(policy.shouldDuck(rhythmbox, onSink: sink, ownStreams: [M.lectorIndex]))
        let ramp = book.duck(rhythmbox, level: policy.level, steps: 3)
        XCTAssertEqual(ramp.last, ChannelVolumes([52429, 52429]).scaled(by: 0.3))
        setAll(ramp, on: &rhythmbox, in: &book)
        XCTAssertEqual(book.release().map(\.stream), [63, 64])
    }

    func testStreamRemovedMidDuck() {
        var book = DuckBook()
        var firefox = M.firefox(on: sink)
        var rhythmbox = M.rhythmbox(on: sink)
        setAll(book.duck(firefox, level: 0.3, steps: 3), on: &firefox, in: &book)
        let ramp = book.duck(rhythmbox, level: 0.3, steps: 3)
        setAll([ramp[0]], on: &rhythmbox, in: &book)

        book.streamRemoved(rhythmbox.index)   // closed mid-ramp
        book.streamRemoved(999)               // not ours
        XCTAssertNil(book.entries[64])
        XCTAssertEqual(book.willSetIgnoredCount(after: ramp[1], on: 64), 0, "a late ramp step for it is ignored")
        // Its saved stream-restore entry may hold our volume: the journal keeps it for the repair.
        XCTAssertEqual(book.removedWhileDucked.map(\.stream), [64])
        let journal = book.journal()
        XCTAssertEqual(journal.entries.map(\.stream), [63, 64])
        XCTAssertEqual(journal.savedEntryRepairs(saved: ["sink-input-by-media-role:music": ramp[0]]),
                       [SavedEntryRepair(key: "sink-input-by-media-role:music", volume: ChannelVolumes([52429, 52429]))])

        XCTAssertEqual(book.release().map(\.stream), [63])
        XCTAssertEqual(book.removedWhileDucked, [])
    }

    func testStreamRemovedBeforeWeSetAnythingLeavesNothingToRepair() {
        var book = DuckBook()
        _ = book.duck(M.firefox(on: sink), level: 0.3, steps: 3)
        book.streamRemoved(63)
        XCTAssertEqual(book.removedWhileDucked, [])
        XCTAssertFalse(book.isDucking)
    }

    func testEntryWithoutAnySetIsNotRestored() {
        var book = DuckBook()
        _ = book.duck(M.firefox(on: sink), level: 0.3, steps: 3)
        XCTAssertTrue(book.isDucking)
        XCTAssertEqual(book.release(), [])
    }

    func testExpectedIsTheLastVolumeSetEvenIfRepeated() {
        var book = DuckBook()
        let firefox = M.firefox(on: sink)
        let ramp = book.duck(firefox, level: 0.3, steps: 3)
        for step in ramp { book.willSet(step, on: 63) }
        book.willSet(ramp[0], on: 63)   // the daemon went back up a step (e.g. level changed)
        XCTAssertEqual(book.entries[63]?.lastSet, ramp[0])
        XCTAssertEqual(book.entries[63]?.volumesSet.count, ramp.count)
        XCTAssertEqual(book.release().first?.expected, ramp[0])
    }

    func testRampBackUp() {
        let restore = DuckBook.Restore(stream: 63, expected: ducked, original: full, restoreKey: nil)
        let up = restore.rampUp(steps: 4)
        XCTAssertEqual(up.count, 4)
        XCTAssertEqual(up.last, full)
        XCTAssertGreaterThan(up[0].loudest, ducked.loudest)
        XCTAssertEqual(DuckBook.Restore(stream: 1, expected: full, original: full, restoreKey: nil).rampUp(steps: 4), [])
    }
}

private extension DuckBook {
    /// willSet on a stream not in the book must not bring it back.
    mutating func willSetIgnoredCount(after volume: ChannelVolumes, on stream: UInt32) -> Int {
        willSet(volume, on: stream)
        return entries[stream] == nil ? 0 : 1
    }
}
