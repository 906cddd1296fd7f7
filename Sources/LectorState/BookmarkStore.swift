import Foundation
import LectorCore

/// Bookmarks under `$XDG_STATE_HOME/lector/bookmarks/`, one JSON file per book.
///
/// Each save is an `AtomicFile` write (temp file, fsync, rename, fsync of the folder): a
/// `kill -9` or power cut leaves the old bookmark or the new one, never half of one. A file
/// that does not decode is renamed `*.corrupt-<time>` and reported, never fatal.
///
/// ```swift
/// let store = BookmarkStore(directory: BookmarkStore.defaultDirectory())
/// try store.save(Bookmark(bookIdentity: "urn:isbn:9780000000000", path: "/books/a.epub", chapter: 3, offset: 1200))
/// let result = store.load(bookIdentity: "urn:isbn:9780000000000")   // .found(bookmark)
/// ```
/// Not thread-safe: give it one serial queue (the daemon's bookmark writer).
public struct BookmarkStore: Sendable {
    public enum LoadResult: Equatable, Sendable {
        case found(Bookmark)
        case none
        /// The file was unreadable; it was moved to `setAsideAt`.
        case corrupt(setAsideAt: String, reason: String)
    }

    public let directory: URL

    public init(directory: URL) {
        self.directory = directory
    }

    /// `$XDG_STATE_HOME/lector/bookmarks`, or `~/.local/state/lector/bookmarks`.
    public static func defaultDirectory(environment: [String: String] = ProcessInfo.processInfo.environment) -> URL {
        let base = environment["XDG_STATE_HOME"].flatMap { $0.hasPrefix("/") ? $0 : nil }
            ?? ((environment["HOME"] ?? NSHomeDirectory()) + "/.local/state")
        return URL(fileURLWithPath: base).appendingPathComponent("lector/bookmarks", isDirectory: true)
    }

    /// File name for a book: a hash of its identity (identities can hold any character).
    public func fileURL(bookIdentity: String) -> URL {
        directory.appendingPathComponent(StableHash.hex(bookIdentity) + ".json")
    }

    public func load(bookIdentity: String) -> LoadResult {
        let url = fileURL(bookIdentity: bookIdentity)
        guard let data = try? Data(contentsOf: url) else { return .none }
        do {
            let bookmark = try Self.decoder.decode(Bookmark.self, from: data)
            guard bookmark.bookIdentity == bookIdentity, bookmark.chapter >= 0, bookmark.offset >= 0 else {
                throw LectorError(.failed, "it belongs to another book or holds negative positions")
            }
            return .found(bookmark.withSaneChoices)
        } catch {
            return .corrupt(setAsideAt: AtomicFile.setAside(url), reason: "\(error)")
        }
    }

    /// `durable: false` skips the fsyncs (see `AtomicFile`): for the periodic saves while reading.
    public func save(_ bookmark: Bookmark, durable: Bool = true) throws {
        try AtomicFile.write(try Self.encoder.encode(bookmark), to: fileURL(bookIdentity: bookmark.bookIdentity),
                             durable: durable)
    }

    /// Every readable bookmark (the library lists books read before it kept entries of its
    /// own), and a sentence for each unreadable one, which is set aside.
    public func loadAll() -> (bookmarks: [Bookmark], problems: [String]) {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        var found: [Bookmark] = []
        var problems: [String] = []
        for name in names.sorted() where name.hasSuffix(".json") {
            let url = directory.appendingPathComponent(name)
            guard let data = try? Data(contentsOf: url) else { continue }
            do {
                let bookmark = try Self.decoder.decode(Bookmark.self, from: data)
                guard fileURL(bookIdentity: bookmark.bookIdentity).lastPathComponent == name,
                      bookmark.chapter >= 0, bookmark.offset >= 0 else {
                    throw LectorError(.failed, "it belongs to another book or holds negative positions")
                }
                found.append(bookmark.withSaneChoices)
            } catch {
                problems.append("bookmark \(name) was unreadable (\(LibraryStore.shortReason(error))); set aside as \(AtomicFile.setAside(url))")
            }
        }
        return (found, problems)
    }

    /// `lector library --forget`: the place in that book is forgotten too. Absent is fine.
    public func remove(bookIdentity: String) {
        try? FileManager.default.removeItem(at: fileURL(bookIdentity: bookIdentity))
    }

    static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        encoder.dateEncodingStrategy = .iso8601
        return encoder
    }()

    static let decoder: JSONDecoder = {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return decoder
    }()
}

extension Bookmark {
    /// A rate outside what the player takes (a hand-edited file) is dropped, not trusted: the
    /// place in the book is worth keeping, the rate then follows the configuration.
    var withSaneChoices: Bookmark {
        var sane = self
        if let rate, !(rate.isFinite && PlayerState.rateRange.contains(rate)) { sane.rate = nil }
        if let voice, voice.isEmpty || voice.count > 200 { sane.voice = nil }
        return sane
    }
}
