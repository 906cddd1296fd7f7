import Foundation
import LectorCore
import LectorState
import XCTest

final class BookmarkStoreTests: XCTestCase {
    var directory: URL!

    override func setUpWithError() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("bookmarks-\(UUID())")
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: directory)
    }

    func testSavedBookmarksLoadBackAndReplaceOlderOnes() throws {
        let store = BookmarkStore(directory: directory)
        XCTAssertEqual(store.load(bookIdentity: "urn:uuid:1"), .none)
        let first = Bookmark(bookIdentity: "urn:uuid:1", path: "/a.epub", chapter: 2, offset: 300,
                             savedAt: Date(timeIntervalSince1970: 1_700_000_000))
        try store.save(first)
        XCTAssertEqual(store.load(bookIdentity: "urn:uuid:1"), .found(first))
        var second = first
        second.offset = 900
        try store.save(second)
        XCTAssertEqual(store.load(bookIdentity: "urn:uuid:1"), .found(second))
        XCTAssertEqual(store.load(bookIdentity: "urn:uuid:2"), .none, "keyed by identity")
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: directory.path)
        XCTAssertEqual(leftovers.filter { $0.hasSuffix(".tmp") }, [], "no temp file stays behind")
    }

    /// Position at the word is kept with it; a bookmark written before it was (no `position`) still loads.
    func testPositionAtTheWordIsKeptAndOldBookmarksStillLoad() throws {
        let store = BookmarkStore(directory: directory)
        let mark = Bookmark(bookIdentity: "urn:uuid:p", path: "/p.epub", chapter: 1, offset: 42,
                            savedAt: Date(timeIntervalSince1970: 1_700_000_000), position: 5_513_016)
        try store.save(mark)
        XCTAssertEqual(store.load(bookIdentity: "urn:uuid:p"), .found(mark))
        let file = store.fileURL(bookIdentity: "urn:uuid:p")
        var json = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(contentsOf: file)) as? [String: Any])
        XCTAssertEqual(json["position"] as? Int, 5_513_016)
        json["position"] = nil
        try JSONSerialization.data(withJSONObject: json).write(to: file)
        var old = mark
        old.position = nil
        XCTAssertEqual(store.load(bookIdentity: "urn:uuid:p"), .found(old))
    }

    /// The periodic saves while reading skip the fsyncs; they replace the file all the same.
    func testAPeriodicSaveWithoutFsyncReplacesTheBookmarkToo() throws {
        let store = BookmarkStore(directory: directory)
        let first = Bookmark(bookIdentity: "urn:uuid:3", path: "/c.epub", chapter: 1, offset: 10,
                             savedAt: Date(timeIntervalSince1970: 1_700_000_000))
        try store.save(first, durable: false)
        XCTAssertEqual(store.load(bookIdentity: "urn:uuid:3"), .found(first))
        var later = first
        later.offset = 420
        try store.save(later, durable: false)
        XCTAssertEqual(store.load(bookIdentity: "urn:uuid:3"), .found(later))
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: directory.path)
        XCTAssertEqual(leftovers.filter { $0.hasSuffix(".tmp") }, [], "no temp file stays behind")
    }

    func testACorruptFileIsSetAsideAndReported() throws {
        let store = BookmarkStore(directory: directory)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let url = store.fileURL(bookIdentity: "book")
        try Data("{ not json".utf8).write(to: url)
        guard case .corrupt(let aside, _) = store.load(bookIdentity: "book") else {
            return XCTFail("corrupt file not reported")
        }
        XCTAssertTrue(FileManager.default.fileExists(atPath: aside))
        XCTAssertFalse(FileManager.default.fileExists(atPath: url.path))
        XCTAssertEqual(store.load(bookIdentity: "book"), .none, "and it is not fatal afterwards")
        try store.save(Bookmark(bookIdentity: "book", path: "/b", chapter: 0, offset: 0))
    }

    func testABookmarkOfAnotherBookIsNotTrusted() throws {
        let store = BookmarkStore(directory: directory)
        try store.save(Bookmark(bookIdentity: "other", path: "/o", chapter: 1, offset: 1))
        try FileManager.default.copyItem(at: store.fileURL(bookIdentity: "other"), to: store.fileURL(bookIdentity: "mine"))
        guard case .corrupt = store.load(bookIdentity: "mine") else { return XCTFail("accepted another book's bookmark") }
    }

    func testDefaultDirectoryFollowsXDG() {
        XCTAssertEqual(BookmarkStore.defaultDirectory(environment: ["XDG_STATE_HOME": "/s", "HOME": "/h"]).path,
                       "/s/lector/bookmarks")
        XCTAssertEqual(BookmarkStore.defaultDirectory(environment: ["XDG_STATE_HOME": "relative", "HOME": "/h"]).path,
                       "/h/.local/state/lector/bookmarks", "relative XDG paths are ignored, as the spec says")
    }

    func testStableHashIsStable() {
        XCTAssertEqual(StableHash.hex(""), "cbf29ce484222325")
        XCTAssertEqual(StableHash.hex("abc"), "e71fa2190541574b")
    }
}

/// The book read last, remembered for resuming after a restart.
final class RecentBookStoreTests: XCTestCase {
    var directory: URL!

    override func setUpWithError() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("recent-\(UUID())")
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: directory)
    }

    func testSavedLoadsBackAndTheNextReplacesIt() throws {
        let store = RecentBookStore(directory: directory)
        XCTAssertEqual(store.load(), .none, "nothing read yet")
        let first = RecentBook(path: "/books/a.epub", bookIdentity: "urn:uuid:a", openedAt: Date(timeIntervalSince1970: 1_700_000_000))
        try store.save(first)
        XCTAssertEqual(store.load(), .found(first))
        let second = RecentBook(path: "/books/b.txt", bookIdentity: "fnv1a64:0123", openedAt: Date(timeIntervalSince1970: 1_700_000_100))
        try store.save(second)
        XCTAssertEqual(store.load(), .found(second))
        XCTAssertEqual(store.file.path, directory.path + "/recent-book.json")
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.path)
        XCTAssertEqual(names, ["recent-book.json"], "no temp file stays behind")
    }

    func testACorruptOrMeaninglessFileIsSetAsideAndReported() throws {
        let store = RecentBookStore(directory: directory)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        for garbage in ["{ not json", #"{"path": "relative.epub", "bookIdentity": "x", "openedAt": "2024-01-01T00:00:00Z"}"#] {
            try Data(garbage.utf8).write(to: store.file)
            guard case .corrupt(let aside, let reason) = store.load() else { return XCTFail("\(garbage) not reported") }
            XCTAssertTrue(FileManager.default.fileExists(atPath: aside), aside)
            XCTAssertFalse(reason.isEmpty)
            XCTAssertFalse(FileManager.default.fileExists(atPath: store.file.path), "left in place: \(garbage)")
            XCTAssertEqual(store.load(), .none, "not fatal afterwards")
            try FileManager.default.removeItem(atPath: aside)
        }
    }

    func testDefaultDirectoryIsBesideTheBookmarks() {
        XCTAssertEqual(RecentBookStore.defaultDirectory(environment: ["XDG_STATE_HOME": "/s", "HOME": "/h"]).path, "/s/lector")
    }
}
