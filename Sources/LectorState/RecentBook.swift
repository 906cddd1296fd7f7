import Foundation
import LectorCore

/// A book read recently: what a media key, `playerctl play` or `lector read` without a file
/// resumes after a restart or a login (the one in `recent-book.json`), and what the library
/// lists (one per book under `library/`). Where in the book is the bookmark's business; this
/// holds what a list needs without opening the book again: title, authors, the cached cover,
/// each chapter's length in Unicode scalars (so progress is a sum, not a parse) and the speaking
/// speed learned from it (so "time left" is seconds, not a guess).
///
/// The descriptive fields are optional: records written before the library existed (and the
/// first one of a book whose chapters are still being read) decode with them nil.
///
/// ```swift
/// var entry = RecentBook(path: "/books/a.epub", bookIdentity: "urn:isbn:9780000000000")
/// entry.title = "The Waste Land"; entry.chapterLengths = [120, 4_800, -1]   // -1: not read yet
/// ```
public struct RecentBook: Codable, Equatable, Sendable {
    public var path: String
    public var bookIdentity: String
    public var openedAt: Date
    public var title: String?
    public var authors: [String]?
    /// Absolute path of the cover cached under `$XDG_CACHE_HOME/lector/covers/`.
    public var cover: String?
    /// Unicode scalars of speakable text per chapter; -1 for a chapter not read yet.
    public var chapterLengths: [Int]?
    /// Speaking speed learned from this book at rate 1.0, in scalars per second.
    public var scalarsPerSecond: Double?

    public init(path: String, bookIdentity: String, openedAt: Date = Date(), title: String? = nil,
                authors: [String]? = nil, cover: String? = nil, chapterLengths: [Int]? = nil,
                scalarsPerSecond: Double? = nil) {
        self.path = path
        self.bookIdentity = bookIdentity
        self.openedAt = openedAt
        self.title = title
        self.authors = authors
        self.cover = cover
        self.chapterLengths = chapterLengths
        self.scalarsPerSecond = scalarsPerSecond
    }

    /// Checks what a hand-edited or damaged file could get wrong; the reason names the field.
    func validated() throws -> RecentBook {
        guard path.hasPrefix("/"), !bookIdentity.isEmpty else {
            throw LectorError(.failed, "it names no absolute path or no book identity")
        }
        if let lengths = chapterLengths, lengths.contains(where: { $0 < -1 }) {
            throw LectorError(.failed, "chapterLengths holds a negative length")
        }
        if let speed = scalarsPerSecond, !(speed.isFinite && speed > 0) {
            throw LectorError(.failed, "scalarsPerSecond is not a positive number")
        }
        return self
    }
}

/// `$XDG_STATE_HOME/lector/recent-book.json`, written (atomically) whenever a book is opened and
/// read once when the daemon starts. A file that does not decode is set aside as
/// `*.corrupt-<time>` and reported, never fatal: there is then simply nothing to resume.
///
/// ```swift
/// let store = RecentBookStore(directory: RecentBookStore.defaultDirectory())
/// try store.save(RecentBook(path: "/books/a.epub", bookIdentity: "urn:isbn:9780000000000"))
/// store.load()   // .found(RecentBook(path: "/books/a.epub", …))
/// ```
/// Not thread-safe: give it one serial queue (the daemon's bookmark writer).
public struct RecentBookStore: Sendable {
    public enum LoadResult: Equatable, Sendable {
        case found(RecentBook)
        case none
        /// The file was unreadable; it was moved to `setAsideAt`.
        case corrupt(setAsideAt: String, reason: String)
    }

    public let file: URL

    public init(directory: URL) {
        file = directory.appendingPathComponent("recent-book.json")
    }

    /// `$XDG_STATE_HOME/lector`, or `~/.local/state/lector` (beside the bookmarks).
    public static func defaultDirectory(environment: [String: String] = ProcessInfo.processInfo.environment) -> URL {
        BookmarkStore.defaultDirectory(environment: environment).deletingLastPathComponent()
    }

    public func load() -> LoadResult {
        guard let data = try? Data(contentsOf: file) else { return .none }
        do {
            return .found(try BookmarkStore.decoder.decode(RecentBook.self, from: data).validated())
        } catch {
            return .corrupt(setAsideAt: AtomicFile.setAside(file), reason: "\(error)")
        }
    }

    public func save(_ recent: RecentBook) throws {
        try AtomicFile.write(try BookmarkStore.encoder.encode(recent), to: file)
    }

    /// Forgetting the book read last: nothing is resumed at the next start.
    public func remove() {
        try? FileManager.default.removeItem(at: file)
    }
}

/// The library on disk: `$XDG_STATE_HOME/lector/library/<hash of the identity>.json`, one
/// `RecentBook` per book, each an `AtomicFile` write. One file per book so that one damaged
/// entry costs that entry only: it is set aside as `*.corrupt-<time>` and reported by
/// `loadAll`, and the others list as before.
///
/// ```swift
/// let store = LibraryStore(directory: LibraryStore.defaultDirectory())
/// try store.save(entry)
/// let (entries, problems) = store.loadAll()   // problems: ["library entry 1f…json was unreadable (…); set aside as …"]
/// ```
/// Not thread-safe: give it one serial queue (the daemon's bookmark writer).
public struct LibraryStore: Sendable {
    public let directory: URL

    public init(directory: URL) {
        self.directory = directory
    }

    /// `$XDG_STATE_HOME/lector/library`, or `~/.local/state/lector/library`.
    public static func defaultDirectory(environment: [String: String] = ProcessInfo.processInfo.environment) -> URL {
        RecentBookStore.defaultDirectory(environment: environment).appendingPathComponent("library", isDirectory: true)
    }

    public func fileURL(bookIdentity: String) -> URL {
        directory.appendingPathComponent(StableHash.hex(bookIdentity) + ".json")
    }

    public func save(_ entry: RecentBook) throws {
        try AtomicFile.write(try BookmarkStore.encoder.encode(entry), to: fileURL(bookIdentity: entry.bookIdentity))
    }

    public func load(bookIdentity: String) -> RecentBookStore.LoadResult {
        let url = fileURL(bookIdentity: bookIdentity)
        guard let data = try? Data(contentsOf: url) else { return .none }
        do {
            let entry = try BookmarkStore.decoder.decode(RecentBook.self, from: data).validated()
            guard entry.bookIdentity == bookIdentity else { throw LectorError(.failed, "it belongs to another book") }
            return .found(entry)
        } catch {
            return .corrupt(setAsideAt: AtomicFile.setAside(url), reason: "\(error)")
        }
    }

    /// Every readable entry, and a sentence for each unreadable one (which is set aside).
    public func loadAll() -> (entries: [RecentBook], problems: [String]) {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        var entries: [RecentBook] = []
        var problems: [String] = []
        for name in names.sorted() where name.hasSuffix(".json") {
            let url = directory.appendingPathComponent(name)
            guard let data = try? Data(contentsOf: url) else { continue }
            do {
                let entry = try BookmarkStore.decoder.decode(RecentBook.self, from: data).validated()
                guard url.lastPathComponent == fileURL(bookIdentity: entry.bookIdentity).lastPathComponent else {
                    throw LectorError(.failed, "its file name does not match the book it names")
                }
                entries.append(entry)
            } catch {
                let aside = AtomicFile.setAside(url)
                problems.append("library entry \(name) was unreadable (\(Self.shortReason(error))); set aside as \(aside)")
            }
        }
        return (entries, problems)
    }

    public func remove(bookIdentity: String) {
        try? FileManager.default.removeItem(at: fileURL(bookIdentity: bookIdentity))
    }

    /// Decoding errors print as pages of context; a list needs one line.
    static func shortReason(_ error: Error) -> String {
        if let error = error as? LectorError { return error.message }
        if error is DecodingError { return "not a library entry (invalid JSON or missing fields)" }
        return "\(error)"
    }
}
