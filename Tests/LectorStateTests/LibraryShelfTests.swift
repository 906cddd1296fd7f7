import Foundation
import LectorCore
import LectorState
import XCTest

final class LibraryShelfTests: XCTestCase {
    var directory: URL!
    var shelf: LibraryShelf!

    override func setUpWithError() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("library-\(UUID())")
        shelf = LibraryShelf(stateDirectory: directory)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: directory)
    }

    private func entry(_ identity: String, title: String?, path: String, lengths: [Int]? = [100, 300, 600],
                       openedAt: TimeInterval = 1_700_000_000) -> RecentBook {
        RecentBook(path: path, bookIdentity: identity, openedAt: Date(timeIntervalSince1970: openedAt), title: title,
                   authors: ["A. Author"], cover: nil, chapterLengths: lengths, scalarsPerSecond: 10)
    }

    func testProgressAndTimeLeftComeFromChapterLengthsTheBookmarkAndTheRate() throws {
        try shelf.entries.save(entry("book", title: "Book", path: "/b.epub"))
        try shelf.bookmarks.save(Bookmark(bookIdentity: "book", path: "/b.epub", chapter: 1, offset: 150, rate: 2,
                                          listenedAt: Date(timeIntervalSince1970: 1_700_000_500)))
        let (books, problems) = shelf.list(defaultRate: 1, fileExists: { _ in true })
        XCTAssertEqual(problems, [])
        let book = try XCTUnwrap(books.first)
        XCTAssertEqual(book.progress ?? -1, 0.25, accuracy: 1e-9, "250 of 1000 scalars heard")
        XCTAssertEqual(book.timeLeft ?? -1, 37.5, accuracy: 1e-9, "750 scalars at 10/s and rate 2")
        XCTAssertEqual(book.rate, 2, "the rate chosen for the book")
        XCTAssertEqual(book.listenedAt, Date(timeIntervalSince1970: 1_700_000_500))
        XCTAssertFalse(book.missing)
    }

    func testUnknownChapterLengthsLeaveProgressUnknownAndTheOpenBookIsLive() throws {
        try shelf.entries.save(entry("book", title: "Book", path: "/b.epub", lengths: [100, -1]))
        var (books, _) = shelf.list(defaultRate: 1.3, fileExists: { _ in true })
        XCTAssertNil(books[0].progress)
        XCTAssertNil(books[0].timeLeft)
        XCTAssertEqual(books[0].rate, 1.3, "no rate chosen: the configured default")
        let live = LiveBook(identity: "book", chapter: 1, offset: 50, rate: 1, scalarsPerSecond: 10, chapterLengths: [100, 100])
        (books, _) = shelf.list(defaultRate: 1.3, live: live, fileExists: { _ in true })
        XCTAssertEqual(books[0].progress ?? -1, 0.75, accuracy: 1e-9)
        XCTAssertTrue(books[0].isOpen)
    }

    func testMostRecentlyHeardFirstAMissingFileIsListedAndOldBookmarksCount() throws {
        try shelf.entries.save(entry("old", title: "Old", path: "/old.epub", openedAt: 1_600_000_000))
        try shelf.entries.save(entry("new", title: "New", path: "/gone.epub", openedAt: 1_650_000_000))
        try shelf.bookmarks.save(Bookmark(bookIdentity: "old", path: "/old.epub", chapter: 0, offset: 0,
                                          listenedAt: Date(timeIntervalSince1970: 1_700_000_000)))
        // Read before the library kept entries: only a bookmark.
        try shelf.bookmarks.save(Bookmark(bookIdentity: "legacy", path: "/books/legacy.txt", chapter: 0, offset: 9,
                                          savedAt: Date(timeIntervalSince1970: 1_500_000_000)))
        let (books, _) = shelf.list(defaultRate: 1, fileExists: { $0 != "/gone.epub" })
        XCTAssertEqual(books.map(\.displayTitle), ["Old", "New", "legacy.txt"])
        XCTAssertEqual(books.map(\.missing), [false, true, false], "a gone file is shown as missing, not dropped")
        XCTAssertNil(books[2].progress, "no chapter lengths known for a book read before the library")
    }

    func testACorruptEntryIsSetAsideAndReportedAndTheOthersStillList() throws {
        try shelf.entries.save(entry("good", title: "Good", path: "/g.epub"))
        let bad = shelf.entries.fileURL(bookIdentity: "bad")
        try Data("{ not json".utf8).write(to: bad)
        let wrongName = shelf.entries.directory.appendingPathComponent("0000000000000000.json")
        try FileManager.default.copyItem(at: shelf.entries.fileURL(bookIdentity: "good"), to: wrongName)
        let (books, problems) = shelf.list(defaultRate: 1, fileExists: { _ in true })
        XCTAssertEqual(books.map(\.displayTitle), ["Good"])
        XCTAssertEqual(problems.count, 2, "\(problems)")
        XCTAssertTrue(problems.allSatisfy { $0.contains("set aside as") }, "\(problems)")
        XCTAssertFalse(FileManager.default.fileExists(atPath: bad.path))
        let names = try FileManager.default.contentsOfDirectory(atPath: shelf.entries.directory.path)
        XCTAssertEqual(names.filter { $0.contains(".corrupt-") }.count, 2, "\(names)")
        XCTAssertEqual(shelf.list(defaultRate: 1).problems, [], "reported once, then out of the way")
    }

    func testForgetByTitlePathOrIdentityRemovesEntryBookmarkAndTheRecordOfTheBookReadLast() throws {
        try shelf.entries.save(entry("one", title: "The Waste Land", path: "/one.epub"))
        try shelf.entries.save(entry("two", title: "Twice", path: "/two.epub"))
        try shelf.entries.save(entry("three", title: "Twice", path: "/three.epub"))
        try shelf.bookmarks.save(Bookmark(bookIdentity: "one", path: "/one.epub", chapter: 2, offset: 5))
        try shelf.recent.save(RecentBook(path: "/one.epub", bookIdentity: "one"))

        XCTAssertThrowsError(try shelf.forget("Twice")) { error in
            XCTAssertEqual((error as? LectorError)?.kind, .invalidArgument)
            XCTAssertTrue("\(error)".contains("/two.epub") && "\(error)".contains("/three.epub"), "\(error)")
        }
        XCTAssertThrowsError(try shelf.forget("Nothing")) { XCTAssertEqual(($0 as? LectorError)?.kind, .notFound) }
        XCTAssertEqual(shelf.list(defaultRate: 1).books.count, 3, "nothing changed by the refusals")

        XCTAssertEqual(try shelf.forget("the waste land").path, "/one.epub")
        XCTAssertEqual(shelf.bookmarks.load(bookIdentity: "one"), .none)
        XCTAssertEqual(shelf.recent.load(), .none)
        XCTAssertEqual(try shelf.forget("/two.epub").bookIdentity, "two")
        XCTAssertEqual(try shelf.forget("three").path, "/three.epub")
        XCTAssertEqual(shelf.list(defaultRate: 1).books.count, 0)
    }

    func testOldRecordsAndBookmarksDecodeAndABadRateIsDropped() throws {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try Data(#"{"path":"/a.txt","bookIdentity":"a","openedAt":"2024-01-01T00:00:00Z"}"#.utf8)
            .write(to: shelf.recent.file)
        guard case .found(let recent) = shelf.recent.load() else { return XCTFail("an old record no longer decodes") }
        XCTAssertNil(recent.title)
        try FileManager.default.createDirectory(at: shelf.bookmarks.directory, withIntermediateDirectories: true)
        try Data(#"{"bookIdentity":"a","path":"/a.txt","chapter":1,"offset":2,"savedAt":"2024-01-01T00:00:00Z","rate":99}"#.utf8)
            .write(to: shelf.bookmarks.fileURL(bookIdentity: "a"))
        guard case .found(let mark) = shelf.bookmarks.load(bookIdentity: "a") else { return XCTFail("bookmark lost") }
        XCTAssertEqual(mark.offset, 2, "the place is kept")
        XCTAssertNil(mark.rate, "a rate the player cannot take is not trusted")
    }

    func testHeardSumsEarlierChaptersAndClampsTheOffset() {
        XCTAssertEqual(LibraryShelf.heard(lengths: [100, 300, 600], chapter: 1, offset: 150).map { [$0.heard, $0.total] }, [250, 1000])
        XCTAssertEqual(LibraryShelf.heard(lengths: [100], chapter: 5, offset: 500).map { [$0.heard, $0.total] }, [100, 100])
        XCTAssertNil(LibraryShelf.heard(lengths: [100, -1], chapter: 0, offset: 0))
        XCTAssertNil(LibraryShelf.heard(lengths: nil, chapter: 0, offset: 0))
    }
}
