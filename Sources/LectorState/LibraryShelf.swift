import Foundation
import LectorCore

/// One book as the library shows it: its record, where the listener is, and what follows from
/// both (progress, time left at the book's rate). A book whose file is gone is still listed,
/// `missing`: it may have moved, and dropping it silently would lose the place in it.
public struct LibraryBook: Equatable, Sendable {
    public var entry: RecentBook
    public var bookmark: Bookmark?
    /// The file is not where it was read (moved or deleted).
    public var missing: Bool
    /// The book open in the daemon now.
    public var isOpen: Bool
    /// The chapter (0-based) and word where the listener is.
    public var chapter: Int
    public var offset: Int
    /// The rate it is read at: the one chosen for it, else the configured default.
    public var rate: Double
    /// Fraction of the book's text heard, 0...1; nil until every chapter's length is known.
    public var progress: Double?
    /// Seconds of narration left at `rate`; nil when `progress` is.
    public var timeLeft: Double?
    /// When it was last heard; nil if it was opened but never played.
    public var listenedAt: Date?

    /// `title`, or the file's name when the book names none (a record from before the library).
    public var displayTitle: String {
        if let title = entry.title, !title.isEmpty { return title }
        return URL(fileURLWithPath: entry.path).lastPathComponent
    }
}

/// What the daemon knows better than the files about the open book: the word heard a moment
/// ago, the rate and speed now, chapters read since the entry was written.
public struct LiveBook: Sendable {
    public var identity: String
    public var chapter: Int
    public var offset: Int
    public var rate: Double
    public var scalarsPerSecond: Double
    public var chapterLengths: [Int]

    public init(identity: String, chapter: Int, offset: Int, rate: Double, scalarsPerSecond: Double, chapterLengths: [Int]) {
        self.identity = identity
        self.chapter = chapter
        self.offset = offset
        self.rate = rate
        self.scalarsPerSecond = scalarsPerSecond
        self.chapterLengths = chapterLengths
    }
}

/// The library, read and edited the same way by the daemon (on its bookmark queue) and by
/// `lector library` when no daemon runs: entries under `library/`, bookmarks under `bookmarks/`,
/// the book read last in `recent-book.json`, all under `$XDG_STATE_HOME/lector`.
///
/// ```swift
/// let shelf = LibraryShelf(stateDirectory: RecentBookStore.defaultDirectory())
/// let (books, problems) = shelf.list(defaultRate: 1.0)   // most recently heard first
/// let gone = try shelf.forget("The Waste Land")          // by title, path or identity
/// ```
/// Not thread-safe: give it one serial queue.
public struct LibraryShelf: Sendable {
    public let entries: LibraryStore
    public let bookmarks: BookmarkStore
    public let recent: RecentBookStore

    public init(stateDirectory: URL) {
        entries = LibraryStore(directory: stateDirectory.appendingPathComponent("library", isDirectory: true))
        bookmarks = BookmarkStore(directory: stateDirectory.appendingPathComponent("bookmarks", isDirectory: true))
        recent = RecentBookStore(directory: stateDirectory)
    }

    /// Every book, most recently heard (or opened) first, and a sentence for each unreadable
    /// file that was set aside. `live` replaces the files' view of the open book.
    public func list(defaultRate: Double, live: LiveBook? = nil,
                     fileExists: (String) -> Bool = { FileManager.default.fileExists(atPath: $0) })
        -> (books: [LibraryBook], problems: [String]) {
        let (records, entryProblems) = entries.loadAll()
        let (marks, markProblems) = bookmarks.loadAll()
        let byIdentity = Dictionary(marks.map { ($0.bookIdentity, $0) }, uniquingKeysWith: { a, b in a.savedAt > b.savedAt ? a : b })
        var known = Set(records.map(\.bookIdentity))
        var all = records
        // Books read before the library kept entries: listed by their bookmark, under the file's name.
        for mark in marks where !known.contains(mark.bookIdentity) {
            known.insert(mark.bookIdentity)
            all.append(RecentBook(path: mark.path, bookIdentity: mark.bookIdentity, openedAt: mark.savedAt))
        }
        let books = all.map { Self.book($0, bookmark: byIdentity[$0.bookIdentity], defaultRate: defaultRate,
                                        live: live?.identity == $0.bookIdentity ? live : nil,
                                        missing: !fileExists($0.path)) }
        let sorted = books.sorted { a, b in
            let (x, y) = (a.listenedAt ?? a.entry.openedAt, b.listenedAt ?? b.entry.openedAt)
            return x != y ? x > y : a.displayTitle < b.displayTitle
        }
        return (sorted, entryProblems + markProblems)
    }

    /// One book's line: progress is the text heard over the whole text, time left what remains
    /// at the learned speed and the book's rate. Unknown chapter lengths leave both nil.
    static func book(_ entry: RecentBook, bookmark: Bookmark?, defaultRate: Double, live: LiveBook?,
                     missing: Bool) -> LibraryBook {
        let chapter = live?.chapter ?? bookmark?.chapter ?? 0
        let offset = live?.offset ?? bookmark?.offset ?? 0
        let rate = live?.rate ?? bookmark?.rate ?? defaultRate
        let lengths = live?.chapterLengths ?? entry.chapterLengths
        let speed = live?.scalarsPerSecond ?? entry.scalarsPerSecond ?? 15
        var book = LibraryBook(entry: entry, bookmark: bookmark, missing: missing, isOpen: live != nil,
                               chapter: chapter, offset: offset, rate: rate, listenedAt: bookmark?.listenedAt)
        if let (heard, total) = Self.heard(lengths: lengths, chapter: chapter, offset: offset) {
            book.progress = total > 0 ? Double(heard) / Double(total) : 0
            book.timeLeft = Double(total - heard) / speed / max(rate, 0.01)
        }
        return book
    }

    /// Scalars heard and in all, when every chapter's length is known.
    ///
    /// ```swift
    /// LibraryShelf.heard(lengths: [100, 300, 600], chapter: 1, offset: 150)   // (250, 1000)
    /// ```
    public static func heard(lengths: [Int]?, chapter: Int, offset: Int) -> (heard: Int, total: Int)? {
        guard let lengths, !lengths.isEmpty, !lengths.contains(where: { $0 < 0 }) else { return nil }
        let total = lengths.reduce(0, +)
        let index = max(0, min(chapter, lengths.count - 1))
        let heard = lengths[..<index].reduce(0, +) + max(0, min(offset, lengths[index]))
        return (heard, total)
    }

    /// Which book `query` names: its path, its identity, or its title (any case, and a title
    /// shared by two books is refused, naming both files). Throws NotFound / InvalidArgument.
    public func find(_ query: String, among books: [RecentBook]) throws -> RecentBook {
        if let book = books.first(where: { $0.path == query }) ?? books.first(where: { $0.bookIdentity == query }) {
            return book
        }
        let folded = query.lowercased()
        let named = books.filter { ($0.title?.lowercased() ?? "") == folded
            || URL(fileURLWithPath: $0.path).lastPathComponent.lowercased() == folded }
        if named.count == 1 { return named[0] }
        if named.count > 1 {
            throw LectorError.invalidArgument("\(named.count) books are called \"\(query)\": name one by its file ("
                                              + named.map(\.path).joined(separator: ", ") + ")")
        }
        throw LectorError(.notFound, "no book called \"\(query)\" is in the library (lector library lists them by title and file)")
    }

    /// Removes a book from the library: its entry, its bookmark, and the record of the book
    /// read last if it is that one (so it is not resumed at the next start). Returns what was
    /// removed; throws what `find` throws, and nothing is changed then.
    @discardableResult
    public func forget(_ query: String) throws -> RecentBook {
        let (books, _) = list(defaultRate: 1)
        let book = try find(query, among: books.map(\.entry))
        entries.remove(bookIdentity: book.bookIdentity)
        bookmarks.remove(bookIdentity: book.bookIdentity)
        if case .found(let last) = recent.load(), last.bookIdentity == book.bookIdentity { recent.remove() }
        return book
    }
}
