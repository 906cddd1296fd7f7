import Foundation
@testable import LectorDaemon
import LectorCore
import LectorLoop
import LectorState
import LectorTestKit
import XCTest

/// The library on its seam (`BookNarration`): a fake narrator in place of the real one, a real
/// loop, real book parsing and real state files in a temporary XDG_STATE_HOME. What is checked is
/// what the library owes the listener across a restart: the book read last is opened at the
/// heard word with its Position, in the rate chosen for it, and nothing plays on its own.
final class LibrarySeamTests: XCTestCase {
    /// Narration as the library sees it: what it was told, and a heard word the test sets.
    @MainActor
    final class FakeNarration: BookNarration {
        var book: OpenBook?
        var state = PlayerState()
        var resumePoint = (chapter: 0, offset: 0)
        var resumeTime: Int64?
        var scalarsPerSecond = 15.0
        var voice: Voice?
        var voiceForPassage: ((String) -> Voice?)?
        var opened: [(chapter: Int, offset: Int, time: Int64?, play: Bool)] = []
        var plays = 0

        func open(_ book: OpenBook, chapter: Int, offset: Int, time: Int64?, play: Bool) {
            self.book = book
            opened.append((chapter, offset, time, play))
            resumePoint = (chapter, offset)
            resumeTime = time
        }
        func chapterLoaded(_ index: Int, text: String, languages: [LanguageRun], pronunciation: ChapterPronunciation) {
            book?.store(text, chapter: index)
        }
        func keepTextsNearListener() {}
        func play() { plays += 1 }
        func setRate(_ rate: Double) { state.rate = rate }
        func setVoice(_ voice: Voice) { self.voice = voice }
    }

    static let voice = Voice(name: "en-us", identifier: "gmw/en-US", languages: [.init(tag: "en-us", priority: 2)], gender: .male)

    private var directory: URL!
    private var overridden: EnvironmentOverride?

    override func setUpWithError() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("lector-library-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        // The library's stores read these when it is made.
        overridden = EnvironmentOverride([
            "XDG_STATE_HOME": directory.appendingPathComponent("state").path,
            "XDG_CACHE_HOME": directory.appendingPathComponent("cache").path,
        ])
    }

    override func tearDownWithError() throws {
        overridden?.restore()
        try? FileManager.default.removeItem(at: directory)
    }

    /// XCTest on Linux cannot call @MainActor test methods; it runs them on the main thread.
    private func run(_ body: @MainActor () throws -> Void) throws {
        try MainActor.assumeIsolated { try body() }
    }

    /// Runs the loop (parses come back through it) until `done` or 10 s; a loop runs once (a
    /// daemon's lifetime), so each phase of a test has its own.
    @MainActor
    private static func runLoop(_ loop: EventLoop, until done: @escaping @MainActor () -> Bool) throws {
        let deadline = Date().addingTimeInterval(10)
        var check: EventSource?
        check = try loop.timer {
            if done() || Date() > deadline { loop.exit(0) } else { check?.schedule(after: 5_000) }
        }
        check?.schedule(after: 0)
        _ = try loop.run()
        check?.close()
    }

    /// A daemon's library starting up: made on `loop` with `narration`, the book read last resumed
    /// (loaded, not played).
    @MainActor
    private static func startLibrary(_ loop: EventLoop, _ narration: FakeNarration) throws -> Library {
        let library = try Library(loop: loop, narration: narration) {
            Library.ScannedCatalog(catalog: VoiceCatalog(voices: [Self.voice]), isCurrent: { true })
        }
        library.resumeAtStartUp()
        return library
    }

    /// A plain-text book, recorded as the book read last (what a start-up resumes).
    private func writeBookReadLast() throws {
        let book = directory.appendingPathComponent("book.txt")
        let paragraph = "The listener stopped somewhere in this paragraph, and the library must remember where. "
        try String(repeating: paragraph, count: 20).write(to: book, atomically: true, encoding: .utf8)
        try RecentBookStore(directory: RecentBookStore.defaultDirectory())
            .save(RecentBook(path: book.path, bookIdentity: "placeholder: the file is what is opened"))
    }

    func testTheBookReadLastOpensAfterARestartAtTheHeardWordWithItsPositionAndRate() throws {
        try writeBookReadLast()
        try run {
            let loop = try EventLoop()
            let first = FakeNarration()
            let library = try Self.startLibrary(loop, first)
            try Self.runLoop(loop) { !first.opened.isEmpty }
            XCTAssertEqual(first.opened.count, 1, "the book read last is opened at start-up")
            XCTAssertEqual(first.opened.first?.chapter, 0)
            XCTAssertEqual(first.opened.first?.offset, 0)
            XCTAssertEqual(first.opened.first?.play, false, "loaded, not played: nothing plays on its own")
            XCTAssertEqual(first.plays, 0)
            XCTAssertEqual(first.voice, Self.voice, "the voice for the book's language")
            XCTAssertEqual(first.state.rate, 1.0, "the configuration's rate")

            library.choose(rate: 1.6)
            XCTAssertEqual(first.state.rate, 1.6, "a rate chosen for the book is applied at once")
            first.resumePoint = (0, 412)
            first.resumeTime = 27_300_000
            library.saveBookmark()
            library.flushBookmarks()
            library.close()
            loop.close()

            // The next daemon: another loop, narrator and library; the same state files.
            let next = try EventLoop()
            defer { next.close() }
            let second = FakeNarration()
            let restarted = try Self.startLibrary(next, second)
            try Self.runLoop(next) { !second.opened.isEmpty }
            XCTAssertEqual(second.opened.first?.chapter, 0)
            XCTAssertEqual(second.opened.first?.offset, 412, "at the word heard")
            XCTAssertEqual(second.opened.first?.time, 27_300_000, "with the Position it was heard at, not an estimate")
            XCTAssertEqual(second.opened.first?.play, false)
            XCTAssertEqual(second.state.rate, 1.6, "the rate chosen for this book is remembered with it")
            restarted.close()
        }
    }

    func testAMediaKeyWhileTheStartUpResumeIsParsedPlaysItOnceOpened() throws {
        try writeBookReadLast()
        try run {
            let loop = try EventLoop()
            defer { loop.close() }
            let narration = FakeNarration()
            let library = try Self.startLibrary(loop, narration)
            try library.resume(play: true) { nil }   // before the parse is back: joins it
            try Self.runLoop(loop) { !narration.opened.isEmpty }
            XCTAssertEqual(narration.opened.count, 1, "one open, not two")
            XCTAssertEqual(narration.opened.first?.play, true, "the key press plays the book being opened")
            library.close()
        }
    }
}
