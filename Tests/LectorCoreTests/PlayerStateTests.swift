import LectorCore
import XCTest

final class PlayerStateTests: XCTestCase {
    func testNoBookCanDoNothing() {
        let state = PlayerState()
        XCTAssertFalse(state.canPlay || state.canPause || state.canSeek || state.canGoNext || state.canGoPrevious)
        XCTAssertNil(state.nextChapter)
        XCTAssertNil(state.previousTarget(atSeconds: 10))
    }

    func testOpeningABookReportsExactlyWhatChanged() {
        var state = PlayerState()
        let before = state
        state.open(chapterCount: 3)
        XCTAssertEqual(PlayerState.changes(from: before, to: state),
                       ["Metadata", "CanGoNext", "CanPlay", "CanPause", "CanSeek"])
        XCTAssertEqual(PlayerState.changes(from: state, to: state), [], "nothing changed, nothing sent")
    }

    func testNavigationAtTheEdges() {
        var state = PlayerState()
        state.open(chapterCount: 3)
        XCTAssertFalse(state.canGoPrevious)
        XCTAssertEqual(state.previousTarget(atSeconds: 1), nil)
        XCTAssertEqual(state.previousTarget(atSeconds: 4), 0, "restart the first chapter")
        state.pastRestartThreshold = true
        XCTAssertTrue(state.canGoPrevious)
        state.chapter = 2
        XCTAssertFalse(state.canGoNext)
        XCTAssertNil(state.nextChapter)
        XCTAssertNil(state.chapterAfterEnd, "the last chapter ends the book")
        XCTAssertEqual(state.previousTarget(atSeconds: 2), 1)
    }

    func testLoopStatusChangesNavigation() {
        var state = PlayerState()
        state.open(chapterCount: 3, chapter: 2)
        let before = state
        state.loop = .playlist
        XCTAssertEqual(state.nextChapter, 0)
        XCTAssertEqual(PlayerState.changes(from: before, to: state), ["LoopStatus", "CanGoNext"])
        state.chapter = 0
        XCTAssertEqual(state.previousTarget(atSeconds: 1), 2)
        state.loop = .track
        XCTAssertEqual(state.chapterAfterEnd, 0, "Track repeats the chapter")
        XCTAssertEqual(state.nextChapter, 1, "but Next still moves on")
    }

    func testSkippingNextAndPreviousCanAlwaysBePressedWithABook() {
        var state = PlayerState()
        state.nextPreviousSkips = true
        XCTAssertFalse(state.canGoNext || state.canGoPrevious, "no book, nothing to skip")
        state.open(chapterCount: 3, chapter: 2)
        XCTAssertTrue(state.canGoNext, "at the last chapter, Next still skips ahead")
        state.chapter = 0
        XCTAssertTrue(state.canGoPrevious, "at the first chapter's start, Previous still skips back")
        var chapters = state
        chapters.nextPreviousSkips = false
        XCTAssertEqual(PlayerState.changes(from: chapters, to: state), ["CanGoPrevious"])
    }
}
