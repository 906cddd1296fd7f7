import CSystemd
import Foundation
import LectorBooks
import LectorBus
import LectorCore
import LectorLoop
import LectorState

/// Opening books: checked on the loop, parsed on `bookQueue`, applied back on the loop. The
/// first chapter plays as soon as it is parsed; the rest follow in the background.
extension LectorService {
    /// Options of `Open`: `chapter` (u, 0-based), `from-start` (b), `play` (b, default true).
    struct OpenOptions {
        var chapter: Int?
        var fromStart = false
        var play = true

        init(_ options: [String: OptionValue]) throws {
            for (key, value) in options {
                switch (key, value) {
                case ("chapter", .integer(let n)) where n >= 0 && n < Int64(Int32.max): chapter = Int(n)
                case ("from-start", .boolean(let b)): fromStart = b
                case ("play", .boolean(let b)): play = b
                case ("chapter", _): throw LectorError.invalidArgument("option \"chapter\" must be a chapter number from 0 (u)")
                case ("from-start", _), ("play", _): throw LectorError.invalidArgument("option \"\(key)\" must be a boolean (b)")
                default: throw LectorError.invalidArgument("unknown option \"\(key)\" (known: chapter, from-start, play)")
                }
            }
        }
    }

    /// `file://` URIs only; anything else is refused before any work is done.
    static func fileURL(from uri: String) throws -> URL {
        guard let url = URL(string: uri), url.scheme == "file", url.isFileURL, !url.path.isEmpty else {
            if uri.hasPrefix("/") { return URL(fileURLWithPath: uri) }
            throw LectorError.invalidArgument("only file:// URIs can be opened, got \"\(uri)\"")
        }
        return url
    }

    /// Checks the call on the loop, parses on `openQueue` and answers once the book is applied.
    func openBook(uri: String, options: [String: OptionValue], call: MethodCall) throws -> MethodResult {
        let url = try Self.fileURL(from: uri)
        let opening = try OpenOptions(options)
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) else {
            throw LectorError(.notFound, "\(url.path): no such file")
        }
        if isDirectory.boolValue { throw LectorError(.badBook, "\(url.path) is a directory, not a book") }

        openGeneration += 1
        let generation = openGeneration
        let reply = call.deferReply()
        let store = bookmarks
        let covers = Self.coverDirectory()
        saveBookmark()   // re-opening the book being read must find where it is now
        let pendingSaves = bookmarkQueue
        openQueue.async {
            pendingSaves.sync {}
            let result = Result { try PreparedBook.prepare(url: url, options: opening, bookmarks: store, covers: covers) }
            LoopInbox.post { [weak self] in
                guard let self else { return }
                guard generation == self.openGeneration else {
                    reply.fail(LectorError(.superseded, "a later Open replaced this one before the book was read"))
                    return
                }
                switch result {
                case .success(let prepared):
                    if prepared.book.identity == self.narrator.book?.identity, opening.chapter == nil, !opening.fromStart {
                        // The book being read: carry on where it is, no reload, no status flicker.
                        if opening.play { self.narrator.play() }
                    } else {
                        self.apply(prepared, play: opening.play)
                    }
                    reply.send()
                case .failure(let error):
                    let failure = (error as? LectorError) ?? LectorError(.badBook, "\(error)")
                    Journal.log(.warning, "cannot open \(url.path): \(failure.message)",
                                fields: ["LECTOR_BOOK": url.path, "LECTOR_ERROR": failure.kind.rawValue])
                    reply.fail(failure)
                }
            }
        }
        return .answered
    }

    private func apply(_ prepared: PreparedBook, play: Bool) {
        if let note = prepared.note { Journal.log(.notice, note, fields: ["LECTOR_BOOK": prepared.book.url.path]) }
        narrator.voice = voice(forBookLanguage: prepared.book.language)
        narrator.open(prepared.book, chapter: prepared.startChapter, offset: prepared.startOffset, play: play)
        announceTrackListReplaced()
        Journal.log(.info, "opened \"\(BusText.capped(prepared.book.title))\" (\(prepared.book.chapterCount) chapters) at chapter \(prepared.startChapter + 1)",
                    fields: ["LECTOR_BOOK": prepared.book.url.path, "LECTOR_CHAPTER": String(prepared.startChapter + 1)])
        bookGeneration += 1
        latestBook.set(bookGeneration)
        loadRemainingChapters(of: prepared, generation: bookGeneration)
    }

    /// The book's language picks the voice; an unknown one falls back to the default, with a log line.
    func voice(forBookLanguage language: String?) -> Voice? {
        if let language, let configured = configuration.voice(forLanguage: language),
           let voice = try? catalog.resolve(language: language, voice: configured) { return voice }
        if let language, let voice = try? catalog.resolve(language: language, voice: nil) { return voice }
        let fallback = try? catalog.resolve(language: nil, voice: nil)
        Journal.log(.notice, "no voice for the book's language \(language ?? "(none)"); reading with \(fallback?.name ?? "none")")
        return fallback
    }

    /// Parses the other chapters one by one in the background, handing each to the narrator.
    private func loadRemainingChapters(of prepared: PreparedBook, generation: Int) {
        let reader = prepared.reader
        let order = prepared.remainingChapters
        let latest = latestBook
        bookQueue.async {
            for index in order {
                // Another book has replaced this one: stop parsing it.
                guard latest.get() == generation else { break }
                let text: String
                do {
                    let chapter = try reader.loadChapter(index)
                    text = chapter.text
                    for warning in chapter.warnings {
                        Journal.log(.notice, warning, fields: ["LECTOR_BOOK": reader.sourceURL.path])
                    }
                } catch {
                    Journal.log(.warning, "chapter \(index + 1) could not be read: \(error)",
                                fields: ["LECTOR_BOOK": reader.sourceURL.path, "LECTOR_CHAPTER": String(index + 1),
                                         "LECTOR_ERROR": "BadBook"])
                    text = ""
                }
                LoopInbox.post { [weak self] in
                    guard let self else { return }
                    guard generation == self.bookGeneration else { return }   // a newer book replaced it
                    self.narrator.chapterLoaded(index, text: text)
                }
            }
        }
        // The outline (the whole document) went with the block above; give what the parse
        // freed in the worker threads' malloc arenas back to the system.
        bookQueue.async { releaseFreedHeap() }
    }

    /// A jump reached a chapter the background parser has not delivered yet: it comes in order;
    /// nothing to do but wait (the narrator keeps the jump pending).
    func loadChapterSoon(_ chapter: Int) {}

    /// `$XDG_CACHE_HOME/lector/covers`: GNOME Shell loads artUrl with GIO, so a file:// here.
    static func coverDirectory() -> URL {
        let environment = ProcessInfo.processInfo.environment
        let base = environment["XDG_CACHE_HOME"].flatMap { $0.hasPrefix("/") ? $0 : nil }
            ?? ((environment["HOME"] ?? NSHomeDirectory()) + "/.cache")
        return URL(fileURLWithPath: base).appendingPathComponent("lector/covers", isDirectory: true)
    }
}

/// A parsed book ready for the loop: metadata, the first chapter to play, the bookmark.
/// Built on `bookQueue`.
struct PreparedBook: @unchecked Sendable {
    var book: OpenBook
    var reader: BookOutline
    var startChapter: Int
    var startOffset: Int
    var remainingChapters: [Int]
    var note: String?

    static func prepare(url: URL, options: LectorService.OpenOptions, bookmarks: BookmarkStore,
                        covers: URL) throws -> PreparedBook {
        let outline: BookOutline
        do {
            outline = try BookReader.open(url)
        } catch {
            throw LectorError(.badBook, error.description)
        }
        let reader = outline
        let titles = outline.chapters.map(\.title)
        guard !titles.isEmpty else { throw LectorError(.badBook, "\(url.path): the book has no chapters") }
        var note: String?
        var start = (chapter: 0, offset: 0)
        if !options.fromStart {
            switch bookmarks.load(bookIdentity: outline.identity) {
            case .found(let mark): start = (mark.chapter, mark.offset)
            case .corrupt(let aside, let reason):
                note = "the bookmark of \(url.path) was unreadable (\(reason)); set aside as \(aside)"
            case .none: break
            }
        }
        if let chapter = options.chapter {
            guard titles.indices.contains(chapter) else {
                throw LectorError.invalidArgument("the book has \(titles.count) chapters; there is no chapter \(chapter)")
            }
            if chapter != start.chapter { start = (chapter, 0) }
        }
        if !titles.indices.contains(start.chapter) { start = (0, 0) }

        var book = OpenBook(identity: outline.identity, title: outline.title, authors: outline.authors,
                            language: outline.language, url: url, coverURL: nil, chapterTitles: titles)
        let first: String
        do {
            let chapter = try reader.loadChapter(start.chapter)
            first = chapter.text
            let warnings = outline.warnings + chapter.warnings
            if !warnings.isEmpty { note = ([note].compactMap { $0 } + warnings).joined(separator: "; ") }
        } catch {
            throw LectorError(.badBook, "\(error)")
        }
        book.chapterTexts[start.chapter] = first
        if start.offset > first.unicodeScalars.count { start.offset = 0 }
        if outline.hasCover, let cover = try? outline.loadCover() {
            let file = covers.appendingPathComponent(StableHash.hex(outline.identity) + "." + cover.fileExtension)
            if !FileManager.default.fileExists(atPath: file.path) {
                try? FileManager.default.createDirectory(at: covers, withIntermediateDirectories: true)
                try? cover.data.write(to: file, options: Data.WritingOptions.atomic)
            }
            if FileManager.default.fileExists(atPath: file.path) { book.coverURL = file }
        }
        let remaining = titles.indices.filter { $0 != start.chapter }
        let ordered = remaining.filter { $0 > start.chapter } + remaining.filter { $0 < start.chapter }
        return PreparedBook(book: book, reader: reader, startChapter: start.chapter, startOffset: start.offset,
                            remainingChapters: ordered, note: note)
    }
}

/// glibc keeps memory freed by worker threads in per-thread arenas; malloc_trim(0) returns the
/// free pages of all arenas. (Glibc's Swift module does not export it.)
private typealias MallocTrim = @convention(c) (Int) -> Int32
private let mallocTrim: MallocTrim? = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "malloc_trim")
    .map { unsafeBitCast($0, to: MallocTrim.self) }
func releaseFreedHeap() { _ = mallocTrim?(0) }
