import Foundation
import LectorCore

/// The book read last: what a media key, `playerctl play` or `lector read` without a file
/// resumes after a restart or a login. Only the file and the book's identity: where in the book
/// is the bookmark's business.
public struct RecentBook: Codable, Equatable, Sendable {
    public var path: String
    public var bookIdentity: String
    public var openedAt: Date

    public init(path: String, bookIdentity: String, openedAt: Date = Date()) {
        self.path = path
        self.bookIdentity = bookIdentity
        self.openedAt = openedAt
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
            let recent = try BookmarkStore.decoder.decode(RecentBook.self, from: data)
            guard recent.path.hasPrefix("/"), !recent.bookIdentity.isEmpty else {
                throw LectorError(.failed, "it names no absolute path or no book identity")
            }
            return .found(recent)
        } catch {
            return .corrupt(setAsideAt: AtomicFile.setAside(file), reason: "\(error)")
        }
    }

    public func save(_ recent: RecentBook) throws {
        try AtomicFile.write(try BookmarkStore.encoder.encode(recent), to: file)
    }
}
