import LectorPolicy
import XCTest

final class InterruptionTrackerTests: XCTestCase {
    typealias M = RealMachine
    let minute: UInt64 = 60 * 1_000_000
    let call = InterruptionTracker.Source.playback(70)
    let mic = InterruptionTracker.Source.recording(71)

    func testCallWhilePlayingPausesAndResumesWhenItEnds() {
        var tracker = InterruptionTracker()
        XCTAssertFalse(tracker.isInterrupted)
        XCTAssertEqual(tracker.began(call, at: 1_000, narrationPlaying: true), .pause)
        XCTAssertTrue(tracker.isInterrupted)
        XCTAssertEqual(tracker.ended(call, at: 1_000 + 5 * minute), .resume)
        XCTAssertFalse(tracker.isInterrupted)
    }

    func testCallWhilePausedNeitherPausesNorResumes() {
        var tracker = InterruptionTracker()
        XCTAssertEqual(tracker.began(call, at: 0, narrationPlaying: false), .none)
        XCTAssertTrue(tracker.isInterrupted)
        XCTAssertEqual(tracker.ended(call, at: minute), .none)
    }

    func testTimeoutBoundary() {
        var tracker = InterruptionTracker(resumeTimeoutMicroseconds: 10 * minute)
        _ = tracker.began(call, at: 500, narrationPlaying: true)
        XCTAssertEqual(tracker.ended(call, at: 500 + 10 * minute), .resume, "exactly the timeout still resumes")

        _ = tracker.began(call, at: 500, narrationPlaying: true)
        XCTAssertEqual(tracker.ended(call, at: 500 + 10 * minute + 1), .none, "one microsecond later does not")
    }

    func testDefaultTimeoutIsHalfAnHourAndSettable() {
        var tracker = InterruptionTracker()
        XCTAssertEqual(tracker.resumeTimeoutMicroseconds, 30 * minute)
        _ = tracker.began(call, at: 0, narrationPlaying: true)
        tracker.resumeTimeoutMicroseconds = minute   // config reloaded during the call
        XCTAssertEqual(tracker.ended(call, at: 2 * minute), .none)
    }

    func testUserActionDuringTheCallCancelsTheResume() {
        var tracker = InterruptionTracker()
        _ = tracker.began(call, at: 0, narrationPlaying: true)
        tracker.userActed()   // e.g. pressed Stop, or opened another book
        XCTAssertTrue(tracker.isInterrupted, "the call goes on")
        XCTAssertEqual(tracker.ended(call, at: minute), .none)
    }

    func testUserActionBeforeOrAfterAnInterruptionDoesNotLeakIntoTheNext() {
        var tracker = InterruptionTracker()
        tracker.userActed()
        _ = tracker.began(call, at: 0, narrationPlaying: true)
        XCTAssertEqual(tracker.ended(call, at: minute), .resume)
        tracker.userActed()
        _ = tracker.began(call, at: 2 * minute, narrationPlaying: true)
        XCTAssertEqual(tracker.ended(call, at: 3 * minute), .resume)
    }

    func testPlaybackAndRecordingOfOneCallResumeOnlyWhenBothEnd() {
        var tracker = InterruptionTracker()
        XCTAssertEqual(tracker.began(call, at: 0, narrationPlaying: true), .pause)
        XCTAssertEqual(tracker.began(mic, at: 10, narrationPlaying: false), .none)
        XCTAssertEqual(tracker.ended(mic, at: minute), .none)
        XCTAssertTrue(tracker.isInterrupted)
        XCTAssertEqual(tracker.ended(call, at: minute + 10), .resume)
    }

    func testOverlappingCallsAreOneInterruption() {
        var tracker = InterruptionTracker()
        XCTAssertEqual(tracker.began(.playback(70), at: 0, narrationPlaying: true), .pause)
        XCTAssertEqual(tracker.began(.playback(80), at: minute, narrationPlaying: false), .none)
        XCTAssertEqual(tracker.ended(.playback(70), at: 2 * minute), .none)
        XCTAssertEqual(tracker.ended(.playback(80), at: 3 * minute), .resume)
    }

    func testSecondCallWhileTheUserPlaysDuringTheFirstPausesAgainAndResumesAtTheEnd() {
        var tracker = InterruptionTracker()
        XCTAssertEqual(tracker.began(.playback(70), at: 0, narrationPlaying: true), .pause)
        tracker.userActed()   // pressed play during the call
        XCTAssertEqual(tracker.began(.playback(80), at: minute, narrationPlaying: true), .pause)
        XCTAssertEqual(tracker.ended(.playback(70), at: 2 * minute), .none)
        XCTAssertEqual(tracker.ended(.playback(80), at: 3 * minute), .resume,
                       "the second pause was ours: the book comes back")
    }

    func testTimeoutCountsFromTheLastPauseOfOurs() {
        var tracker = InterruptionTracker(resumeTimeoutMicroseconds: 10 * minute)
        _ = tracker.began(.playback(70), at: 0, narrationPlaying: true)
        tracker.userActed()
        _ = tracker.began(.playback(80), at: 8 * minute, narrationPlaying: true)
        _ = tracker.ended(.playback(70), at: 9 * minute)
        XCTAssertEqual(tracker.ended(.playback(80), at: 15 * minute), .resume)
    }

    func testRepeatedAndUnknownEventsChangeNothing() {
        var tracker = InterruptionTracker()
        XCTAssertEqual(tracker.ended(call, at: 0), .none)
        _ = tracker.began(call, at: 0, narrationPlaying: true)
        XCTAssertEqual(tracker.began(call, at: 10, narrationPlaying: true), .none, "same source again")
        XCTAssertEqual(tracker.ended(.playback(999), at: 20), .none)
        XCTAssertTrue(tracker.isInterrupted)
        XCTAssertEqual(tracker.ended(call, at: 30), .resume)
        XCTAssertEqual(tracker.ended(call, at: 40), .none, "already ended")
    }

    func testCorkRequestIsASourceLikeAnyOther() {
        var tracker = InterruptionTracker()
        XCTAssertEqual(tracker.began(.corkRequest, at: 0, narrationPlaying: true), .pause)
        XCTAssertEqual(tracker.ended(.corkRequest, at: minute), .resume)
    }

    // MARK: reconcile

    func testReconcileOnFirstConnectWithACallGoingOn() {
        var tracker = InterruptionTracker()
        XCTAssertEqual(tracker.reconcile(with: [call, mic], at: 0, narrationPlaying: true), .pause)
        XCTAssertEqual(tracker.active, [call, mic])
        XCTAssertEqual(tracker.reconcile(with: [call, mic], at: 10, narrationPlaying: false), .none, "nothing new")
        XCTAssertEqual(tracker.reconcile(with: [], at: minute, narrationPlaying: false), .resume)
    }

    func testReconcileAfterServerRestartWithNewIndexesKeepsTheInterruption() {
        var tracker = InterruptionTracker()
        _ = tracker.began(.playback(70), at: 0, narrationPlaying: true)
        // The server restarted; the call app reconnected with new indexes.
        XCTAssertEqual(tracker.reconcile(with: [.playback(3)], at: minute, narrationPlaying: false), .none)
        XCTAssertEqual(tracker.active, [.playback(3)])
        XCTAssertEqual(tracker.reconcile(with: [], at: 2 * minute, narrationPlaying: false), .resume)
    }

    func testReconcileKeepsACorkRequest() {
        var tracker = InterruptionTracker()
        _ = tracker.began(.corkRequest, at: 0, narrationPlaying: true)
        _ = tracker.began(call, at: 1, narrationPlaying: false)
        XCTAssertEqual(tracker.reconcile(with: [], at: minute, narrationPlaying: false), .none)
        XCTAssertEqual(tracker.active, [.corkRequest])
        XCTAssertEqual(tracker.ended(.corkRequest, at: 2 * minute), .resume)
    }

    func testReconcileIgnoresACorkRequestInTheSnapshotSet() {
        var tracker = InterruptionTracker()
        XCTAssertEqual(tracker.reconcile(with: [.corkRequest], at: 0, narrationPlaying: true), .none)
        XCTAssertFalse(tracker.isInterrupted)
    }

    func testReconcileRespectsTheTimeoutAndUserAction() {
        var tracker = InterruptionTracker(resumeTimeoutMicroseconds: minute)
        _ = tracker.reconcile(with: [call], at: 0, narrationPlaying: true)
        XCTAssertEqual(tracker.reconcile(with: [], at: 2 * minute, narrationPlaying: false), .none)
        _ = tracker.reconcile(with: [call], at: 0, narrationPlaying: true)
        tracker.userActed()
        XCTAssertEqual(tracker.reconcile(with: [], at: 10, narrationPlaying: false), .none)
    }

    // MARK: call sources

    func testCallSourcesFromASnapshot() {
        let snapshot = M.snapshot(
            [M.laptopHeadphonesOut],
            [M.lector(on: M.laptopIndex), M.firefox(on: M.laptopIndex), M.callPlayback(on: M.laptopIndex),
             M.callPlayback(on: M.laptopIndex, index: 90, corked: true)],
            recordings: [M.callRecording(), M.callRecording(index: 91, corked: true)])
        XCTAssertEqual(InterruptionTracker.callSources(in: snapshot, excluding: [M.lectorIndex]),
                       [.playback(70), .recording(71)])
    }

    func testOurOwnPhoneRoleStreamIsNotACall() {
        var ours = M.lector(on: M.laptopIndex)
        ours.properties["media.role"] = "phone"
        let snapshot = M.snapshot([M.laptopHeadphonesOut], [ours])
        XCTAssertEqual(InterruptionTracker.callSources(in: snapshot, excluding: [M.lectorIndex]), [])
        XCTAssertEqual(InterruptionTracker.callSources(in: snapshot, excluding: []), [.playback(M.lectorIndex)])
    }
}
