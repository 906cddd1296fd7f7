import CLinux
import CSystemd
import Foundation
import LectorBooks
import LectorBus
import LectorConfig
import LectorCore
import LectorLoop
import LectorState
import LectorXML

/// The books and their bookmarks. Opening: checked on the loop, parsed on `openQueue`, applied
/// back on the loop; the first chapter plays as soon as it is parsed, the rest follow on
/// `bookQueue`. Bookmarks (chapter and word) are taken on the loop and written on
/// `bookmarkQueue` (atomic, fsynced): at pause, stop, chapter change, exit and every 5 s while
/// playing (those periodic ones without fsync: a disk flush every 5 s for as long as a book plays
/// keeps a laptop's disk from idling; a crash of the daemon still finds them). The book opened
/// last is remembered (`recent-book.json`, same queue) so that it can be resumed from anywhere
/// after a restart: loaded, stopped, at start-up (`resumeAtStartUp`), played by `resume`.
///
/// ```swift
/// try library.open(uri: "file:///home/me/book.epub", options: [:]) { call.deferReply() }
/// library.saveBookmark(); library.flushBookmarks()   // on disk now
/// try library.resume(play: true) { call.deferReply() }   // the book read last, at its bookmark
/// ```
@MainActor
final class Library {
    /// Seconds between bookmark saves while narrating (a kill -9 loses at most this much).
    static let bookmarkSeconds: UInt64 = 5

    /// The book being read and how it is heard (the narrator, through `BookNarration`).
    let narration: any BookNarration
    /// The voices books may be read in: espeak-ng's and the neural ones on disk, found at the
    /// first need (a scan of voice directories and Python packages kept off start-up) and again
    /// at the next need after a voice directory changed, so a voice installed while the daemon
    /// runs (`lector voices add`) is found without a restart.
    var catalog: VoiceCatalog {
        if let scanned, scanned.isCurrent() { return scanned.catalog }
        let fresh = scanCatalog()
        scanned = fresh
        return fresh.catalog
    }
    private var scanned: ScannedCatalog?
    private let scanCatalog: () -> ScannedCatalog
    /// A scan's voices and whether they are still what is on disk (a few `stat` calls).
    struct ScannedCatalog {
        var catalog: VoiceCatalog
        var isCurrent: () -> Bool
    }
    /// Voices per language for a book's language.
    var configuration = Configuration()
    /// A book was applied: its chapter list changed.
    var onBookApplied: (() -> Void)?
    /// The listener chose another voice for the open book (it reads from the next word).
    var onVoiceChanged: (() -> Void)?
    /// A chapter of the open book was read in the background (its text is in `narration.book`).
    var onChapterLoaded: ((Int) -> Void)?
    /// A book was opened: when it was last heard (its bookmark), and whether it plays now
    /// (rewind on resume).
    var onOpened: ((_ lastHeard: Date?, _ playing: Bool) -> Void)?

    let bookmarks = BookmarkStore(directory: BookmarkStore.defaultDirectory())
    let recentBooks = RecentBookStore(directory: RecentBookStore.defaultDirectory())
    /// The library (`library/`, beside the bookmarks): read and edited on `bookmarkQueue`.
    let shelf = LibraryShelf(stateDirectory: RecentBookStore.defaultDirectory())
    /// What the listener chose for the open book (nil: the configuration's default), loaded
    /// from its bookmark and saved with it: per-book memory.
    var chosen = BookChoices()
    /// When the open book was last heard (its bookmark's `listenedAt` until it plays here).
    var listenedAt: Date?
    /// The open book was taken out of the library (`lector library --forget`) and has not
    /// played since: nothing of it is written back until it does.
    var forgottenIdentity: String?
    /// The book opened last, here or by an earlier daemon: what `resume` opens when no book is.
    var recentBook: RecentBook?
    /// Resumes whose book is being parsed, by the open's generation: who waits for it, and
    /// whether any of them asked to play (a media key pressed while the start-up resume is still
    /// parsing plays it). One per generation: an open replaced while its resumes wait still
    /// answers them (Superseded) when its parse comes back.
    private var pendingResumes: [Int: PendingResume] = [:]
    /// The generation of the open being parsed, until its result is back on the loop.
    private var parsing: Int?
    /// Stops the parse of the open in progress: a later Open or the daemon's close cancels it,
    /// so at most one open parse is alive. Once applied it is the book's (`outline.cancellation`).
    private var openCancellation: ParseCancellation?
    /// Bookmarks are written here, never on the loop (fsync can take long).
    let bookmarkQueue = SerialWorker(name: "lector-bookmarks")
    /// Books are parsed here, never on the loop.
    private let bookQueue = DispatchQueue(label: "io.github.lector.books")
    /// Opens parse here, never queued behind the previous book's background chapters on `bookQueue`.
    private let openQueue = DispatchQueue(label: "io.github.lector.open")
    /// Bumped when a book is actually replaced: its background chapter loads then stop counting.
    private let latestBook = GenerationTicket()
    /// Chapters being read for the open book (in the background or asked for).
    private var requestedChapters: Set<Int> = []
    /// The latest Open wins: results of older ones are dropped (and not even parsed on
    /// `openQueue` once replaced). With what the latest Open named, for the loser's error.
    private let latestOpen = GenerationTicket()
    private var latestOpenPath = ""
    private var bookmarkTimer: EventSource?
    /// The open book's outline: the read-along page's markup and images are read from it, on
    /// `pageQueue` so a page never waits behind the background parse of the other chapters.
    private var outline: BookOutline?
    /// Why the book is not read in the voice chosen for it (a neural voice of another language),
    /// keyed to the voice that reads instead: Narrator1.Book's `voice-problem` while it does.
    var voiceNote: (voice: String, message: String)?
    /// Voices chosen for passages in other languages in the open book (nil: the book's voice).
    private var passageVoices: [String: Voice?] = [:]
    private let pageQueue = DispatchQueue(label: "io.github.lector.page")

    /// Who waits for the book being opened as a resume, and whether any of them asked to play.
    private struct PendingResume {
        var play: Bool
        var replies: [DeferredReply]
    }

    /// A parse skipped because a later Open had replaced it.
    private struct Superseded: Error {}

    init(loop: EventLoop, narration: any BookNarration, catalog: @escaping () -> ScannedCatalog) throws {
        self.narration = narration
        scanCatalog = catalog
        // A second of slack: while a book plays the loop wakes for every word heard, and the
        // periodic bookmark goes with one of those instead of waking it on its own.
        bookmarkTimer = try loop.timer(slack: 1_000_000) { [weak self] in
            guard let self else { return }
            self.saveBookmark(durable: false)
            if self.narration.state.status == .playing { self.bookmarkTimer?.schedule(after: Self.bookmarkSeconds * 1_000_000) }
        }
        // One small file, read once before the loop runs.
        switch recentBooks.load() {
        case .found(let recent): recentBook = recent
        case .none: break
        case .corrupt(let aside, let reason):
            Journal.log(.warning, "the record of the book read last was unreadable (\(reason)); set aside as \(aside): "
                        + "nothing to resume until a book is opened")
        }
    }

    /// Teardown: no timer fires after this (the bookmark must have been taken), and no parse of
    /// an open or of the book's chapters goes on.
    func close() {
        openCancellation?.cancel()
        outline?.cancellation?.cancel()
        bookmarkTimer?.close()
        bookmarkQueue.close()
    }

    /// Narration started or stopped playing: bookmarks every 5 s while it plays; the library
    /// entry (with the speed learned meanwhile) when it stops.
    func playbackChanged(from before: PlayerState, to after: PlayerState) {
        if before.status != .playing, after.status == .playing {
            bookmarkTimer?.schedule(after: Self.bookmarkSeconds * 1_000_000)
            forgottenIdentity = nil   // listened to again: remembered again
            listenedAt = Date()
        }
        if before.status == .playing, after.status != .playing {
            bookmarkTimer?.cancel()
            listenedAt = Date()
            saveLibraryEntry()
        }
    }

    // MARK: - bookmarks

    /// The narrator's book at the word last heard, written off the loop.
    func saveBookmark(durable: Bool = true) {
        guard let book = narration.book, forgottenIdentity != book.identity else { return }
        let point = narration.resumePoint
        if narration.state.status == .playing { listenedAt = Date() }
        let bookmark = Bookmark(bookIdentity: book.identity, path: book.url.path, chapter: point.chapter, offset: point.offset,
                                rate: chosen.rate, voice: chosen.voice, listenedAt: listenedAt,
                                position: narration.resumeTime)
        let store = bookmarks
        bookmarkQueue.async {
            do {
                try store.save(bookmark, durable: durable)
            } catch {
                Journal.log(.warning, "could not save the bookmark of \(bookmark.path): \(error)",
                            fields: ["LECTOR_BOOK": bookmark.path])
            }
        }
    }

    /// Returns once every bookmark taken so far is on disk.
    func flushBookmarks() {
        bookmarkQueue.sync {}
    }

    // MARK: - opening

    /// Options of `Open`: `chapter` (u, 0-based), `from-start` (b), `play` (b, default true),
    /// `rate` (d) and `voice` (s), chosen for this book and remembered with it.
    struct OpenOptions {
        var chapter: Int?
        var fromStart = false
        var play = true
        var rate: Double?
        var voice: String?

        init(_ options: [String: OptionValue]) throws {
            for (key, value) in options {
                switch (key, value) {
                case ("chapter", .integer(let n)) where n >= 0 && n < Int64(Int32.max): chapter = Int(n)
                case ("from-start", .boolean(let b)): fromStart = b
                case ("play", .boolean(let b)): play = b
                case ("rate", .double(let r)): rate = try BookChoices.checkedRate(r)
                case ("voice", .string(let v)): voice = v
                case ("chapter", _): throw LectorError.invalidArgument("option \"chapter\" must be a chapter number from 0 (u)")
                case ("from-start", _), ("play", _): throw LectorError.invalidArgument("option \"\(key)\" must be a boolean (b)")
                case ("rate", _): throw LectorError.invalidArgument("option \"rate\" must be a number (d)")
                case ("voice", _): throw LectorError.invalidArgument("option \"voice\" must be a voice name (s)")
                default: throw LectorError.invalidArgument("unknown option \"\(key)\" (known: chapter, from-start, play, rate, voice)")
                }
            }
        }
    }

    /// Longest URI that can name a file: a path Linux opens is at most 4,096 bytes (PATH_MAX),
    /// each written as `%XX` at worst, after `file://` and a host name. Longer ones are refused
    /// before they are parsed: URL parsing took eight times a 6-MB string's size.
    static let longestURI = 3 * 4096 + 512

    /// `file://` URIs only; anything else is refused before any work is done.
    static func fileURL(from uri: String) throws -> URL {
        guard uri.utf8.count <= longestURI else {
            throw LectorError.invalidArgument("the URI is \(uri.utf8.count) bytes, longer than any file's path can be "
                                              + "(\(longestURI) at most): pass the book's own file:// URI or path")
        }
        if uri.hasPrefix("/") { return URL(fileURLWithPath: uri) }
        guard let url = URL(string: uri), url.scheme?.lowercased() == "file" else {
            throw LectorError.invalidArgument("only file:// URIs (or absolute paths) can be opened, got \"\(BusText.capped(uri))\"")
        }
        guard let encoded = URLComponents(string: uri)?.percentEncodedPath, !encoded.isEmpty else {
            throw LectorError.invalidArgument("\"\(BusText.capped(uri))\" names no file: write file:///path/to/book.epub")
        }
        // A file name that is not UTF-8 cannot be named through Foundation's String paths.
        guard let path = encoded.removingPercentEncoding else {
            throw LectorError.invalidArgument("the path of \"\(BusText.capped(uri))\" is not UTF-8 once percent-decoded; "
                                              + "Lector opens UTF-8 file names only: rename the file")
        }
        return URL(fileURLWithPath: path)
    }

    /// Checks the request on the loop (throwing what is wrong with it), then parses on `openQueue`
    /// and answers through `reply()` once the book is applied.
    func open(uri: String, options: [String: OptionValue], reply makeReply: () -> DeferredReply) throws {
        let url = try Self.fileURL(from: uri)
        let opening = try OpenOptions(options)
        if let voice = opening.voice { _ = try catalog.resolve(language: nil, voice: voice) }   // UnknownVoice before any work
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) else {
            throw LectorError(.notFound, "\(url.path): no such file")
        }
        if isDirectory.boolValue { throw LectorError(.badBook, "\(url.path) is a directory, not a book") }
        startOpening(url, opening, reply: makeReply())
    }

    /// Narrator1.Resume, MPRIS Play with no book open, `lector read` without a file: the open book
    /// (played if `play`), else the book read last (`recentBook`) at its bookmark, answered once
    /// it is applied. While a book is being opened (a resume or an Open), it joins that one and
    /// plays it. Throws NoBook if no book was ever read, NotFound if that book's file is gone
    /// (the record is kept: it may come back).
    ///
    /// ```swift
    /// try library.resume(play: false) { nil }                // start-up: loaded, Stopped, silent
    /// try library.resume(play: true) { call.deferReply() }   // a media key a moment later: plays it
    /// ```
    func resume(play: Bool, reply makeReply: () -> DeferredReply?) throws {
        if narration.book != nil {
            if play { narration.play() }
            makeReply()?.send()
            return
        }
        if let parsing {
            // A book is being opened (this start-up's resume, or an Open): that one is resumed.
            // (`parsing` is only ever the latest Open: each Open sets it, a result clears only its own.)
            var pending = pendingResumes[parsing] ?? PendingResume(play: false, replies: [])
            pending.play = pending.play || play
            if let reply = makeReply() { pending.replies.append(reply) }
            pendingResumes[parsing] = pending
            return
        }
        guard let recent = recentBook else {
            throw LectorError(.noBook, "no book has been read yet: open one with lector read FILE (Narrator1.Open)")
        }
        guard FileManager.default.fileExists(atPath: recent.path) else {
            throw LectorError(.notFound, "the book read last, \(recent.path), is gone (moved or deleted); "
                              + "open it where it is now with lector read FILE")
        }
        var opening = try OpenOptions([:])
        opening.play = false   // `pendingResumes[generation].play` decides, when it is applied
        let generation = startOpening(URL(fileURLWithPath: recent.path), opening, reply: nil)
        pendingResumes[generation] = PendingResume(play: play, replies: [makeReply()].compactMap { $0 })
    }

    /// Start-up: the book read last is loaded, stopped at its bookmark, so that media controls
    /// show it (CanPlay, Metadata) and a media key resumes it. Nothing plays on its own.
    func resumeAtStartUp() {
        guard recentBook != nil else { return }
        do {
            try resume(play: false) { nil }
        } catch let error as LectorError {
            Journal.log(.notice, "nothing to resume: \(error.message)", fields: ["LECTOR_ERROR": error.kind.rawValue])
        } catch {
            Journal.log(.notice, "nothing to resume: \(error)")
        }
    }

    /// Parses `url` on `openQueue` and applies it on the loop unless a later open replaced it;
    /// `reply` (and the replies of a resume waiting on this generation) hear how it went.
    @discardableResult
    private func startOpening(_ url: URL, _ opening: OpenOptions, reply: DeferredReply?) -> Int {
        let generation = latestOpen.advance()
        latestOpenPath = url.path
        parsing = generation
        openCancellation?.cancel()   // superseded: its parse stops at its next SAX event
        let cancellation = ParseCancellation()
        openCancellation = cancellation
        let latest = latestOpen
        let store = bookmarks
        let covers = Self.coverDirectory()
        let reading = Self.readingOptions(configuration.books)
        saveBookmark()   // re-opening the book being read must find where it is now
        let pendingSaves = bookmarkQueue
        openQueue.async {
            pendingSaves.sync {}
            // Replaced while it waited: not parsed at all (a burst of Opens costs one parse).
            let superseded = latest.get() != generation
            // One CPU budget for the whole open (outline, first chapter, cover).
            let result: Result<PreparedBook, Error> = superseded ? .failure(Superseded())
                : Result { try XMLParseScope.run(cancellation: cancellation) {
                    try PreparedBook.prepare(url: url, options: opening, reading: reading, bookmarks: store,
                                             covers: covers, cancellation: cancellation)
                } }
            // What the parse held and let go goes back to the system: all of a refused or
            // abandoned one, the whole decoded text of a plain-text book.
            releaseFreedHeap()
            LoopInbox.post { [weak self] in
                guard let self else { return }
                if self.parsing == generation {
                    self.parsing = nil
                    self.openCancellation = nil
                }
                var replies = [reply].compactMap { $0 }
                var play = opening.play
                if let pending = self.pendingResumes.removeValue(forKey: generation) {
                    replies += pending.replies
                    play = play || pending.play
                }
                if generation != self.latestOpen.get() {
                    // Its own error if it had one; else that a later Open won, named, and whether its parse was cut short.
                    let own: LectorError? = if case .failure(let error) = result { error as? LectorError } else { nil }
                    if let own, own.kind != .superseded {
                        replies.forEach { $0.fail(own) }
                    } else {
                        let ending = own == nil ? "before it finished; that one is being opened"
                                                : "before its parse finished; its parse was stopped"
                        let failure = LectorError(.superseded, "the Open of \(url.path) was superseded by a later Open of "
                                                  + "\(self.latestOpenPath) \(ending)")
                        replies.forEach { $0.fail(failure) }
                    }
                    return
                }
                switch result {
                case .success(let prepared):
                    if prepared.book.identity == self.narration.book?.identity, opening.chapter == nil, !opening.fromStart {
                        // The book being read: carry on where it is, no reload, no status flicker.
                        self.choose(rate: opening.rate, voice: opening.voice)
                        if play { self.narration.play() }
                    } else {
                        self.apply(prepared, play: play, opening: opening)
                    }
                    replies.forEach { $0.send() }
                case .failure(let error):
                    let failure = (error as? LectorError) ?? LectorError(.badBook, "\(error)")
                    Journal.log(.warning, "cannot open \(url.path): \(failure.message)",
                                fields: ["LECTOR_BOOK": url.path, "LECTOR_ERROR": failure.kind.rawValue])
                    replies.forEach { $0.fail(failure) }
                }
            }
        }
        return generation
    }

    private func apply(_ prepared: PreparedBook, play: Bool, opening: OpenOptions) {
        if let note = prepared.note { Journal.log(.notice, note, fields: ["LECTOR_BOOK": prepared.book.url.path]) }
        // Per-book memory: what was chosen for this book (now, or with its bookmark), else the defaults.
        let asked = opening.voice.flatMap { try? catalog.resolve(language: nil, voice: $0).name }
        chosen = BookChoices(rate: opening.rate ?? prepared.bookmark?.rate, voice: asked ?? prepared.bookmark?.voice)
        listenedAt = prepared.bookmark?.listenedAt
        forgottenIdentity = nil
        narration.voice = voice(forBook: prepared.book.language, chosen: chosen.voice)
        narration.setRate(chosen.rate ?? configuration.speech.rate)
        passageVoices = [:]
        let bookLanguage = prepared.book.language
        narration.voiceForPassage = { [weak self] language in self?.voice(forPassageIn: language, bookLanguage: bookLanguage) }
        // The book it replaces: its background chapter loads and markup stop at once. Before
        // the narrator opens it, which may ask for a chapter from this outline.
        if outline?.cancellation !== prepared.reader.cancellation { outline?.cancellation?.cancel() }
        outline = prepared.reader
        let generation = latestBook.advance()
        requestedChapters = []
        narration.open(prepared.book, chapter: prepared.startChapter, offset: prepared.startOffset, time: prepared.startTime,
                      play: play)
        // At its very start there is nothing to rewind to; elsewhere, quiet since it was last heard.
        let atStart = prepared.startOffset == 0 && prepared.startChapter == 0
        onOpened?(atStart ? nil : prepared.bookmark?.listenedAt, play)
        rememberRecent(prepared.book)
        onBookApplied?()
        Journal.log(.info, "opened \"\(BusText.capped(prepared.book.title))\" (\(prepared.book.chapterCount) chapters) at chapter \(prepared.startChapter + 1)",
                    fields: ["LECTOR_BOOK": prepared.book.url.path, "LECTOR_CHAPTER": String(prepared.startChapter + 1)])
        loadRemainingChapters(of: prepared, generation: generation)
    }

    /// Narrator1.GetChapterMarkup: the chapter as the read-along page shows it, made off the loop.
    func chapterMarkup(_ chapter: Int, trackID: String, reply: DeferredReply) throws {
        let outline = try openOutline()
        guard outline.chapters.indices.contains(chapter) else {
            throw LectorError.invalidArgument("no chapter \(chapter) in the open book: it has \(outline.chapters.count) (0 to \(outline.chapters.count - 1))")
        }
        answerFromPageQueue(reply, { () throws(BookError) in try outline.chapterMarkup(at: chapter) },
                            failure: { LectorError(.badBook, "chapter \(chapter) cannot be shown: \($0)") }) { markup, writer in
            try writer.appendObjectPath(trackID)
            try writer.append(markup.html)
        }
    }

    /// Narrator1.GetResource: an image of the open book, by manifest id (never a path).
    func resource(id: String, reply: DeferredReply) throws {
        let outline = try openOutline()
        answerFromPageQueue(reply, { () throws(BookError) in try outline.resource(id: id) },
                            failure: { LectorError(.notFound, "\($0)") }) { resource, writer in
            try writer.append(resource.mediaType)
            try writer.appendBytes([UInt8](resource.data))
        }
    }

    private func openOutline() throws -> BookOutline {
        guard let outline else { throw LectorError(.noBook, "no book is open: Open one first") }
        return outline
    }

    /// Reads from the book on `pageQueue`, then answers on the loop: `write` the value, or the
    /// error `failure` names.
    private func answerFromPageQueue<Value: Sendable>(_ reply: DeferredReply,
                                                      _ read: @escaping @Sendable () throws(BookError) -> Value,
                                                      failure: @escaping @Sendable (BookError) -> LectorError,
                                                      write: @escaping @Sendable @MainActor (Value, MessageWriter) throws -> Void) {
        pageQueue.async {
            let result = Result { () throws(BookError) in try read() }
            LoopInbox.post {
                switch result {
                case .success(let value): reply.send { try write(value, $0) }
                case .failure(let error): reply.fail(failure(error))
                }
            }
        }
    }

    /// The book just opened becomes the one to resume, on disk too (off the loop, atomically),
    /// and goes into the library.
    private func rememberRecent(_ book: OpenBook) {
        let recent = RecentBook(path: book.url.path, bookIdentity: book.identity)
        recentBook = recent
        saveLibraryEntry()
        let store = recentBooks
        bookmarkQueue.async {
            do {
                try store.save(recent)
            } catch {
                Journal.log(.warning, "could not remember \(recent.path) as the book read last: \(error)",
                            fields: ["LECTOR_BOOK": recent.path])
            }
        }
    }

    /// `[books]` of the configuration as the book reader takes it; it applies to books opened from then on.
    static func readingOptions(_ books: Configuration.Books) -> BookReadingOptions {
        let notes: BookReadingOptions.Notes
        switch books.notes {
        case .afterParagraph: notes = .afterParagraph
        case .endOfChapter: notes = .endOfChapter
        case .skip: notes = .skip
        }
        return BookReadingOptions(notes: notes, images: books.images == .read ? .read : .skip)
    }

    /// The voice of a passage the book marks as written in `language`: nil (the book's voice) when
    /// it is the book's language (`en-GB` in an `en-US` book too) or no voice speaks it, with a
    /// log line the first time each language is met in a book.
    ///
    ///     voice(forPassageIn: "la", bookLanguage: "en-US")    // espeak-ng's Latin voice
    ///     voice(forPassageIn: "en", bookLanguage: "en-US")    // nil: the book's voice
    func voice(forPassageIn language: String, bookLanguage: String?) -> Voice? {
        if let known = passageVoices[language] { return known }
        var chosen: Voice?
        if LanguageTag.primary(language) != bookLanguage.flatMap(LanguageTag.primary) {
            if let configured = configuration.voice(forLanguage: language) {
                chosen = try? catalog.resolve(language: language, voice: configured)
            }
            if chosen == nil { chosen = try? catalog.resolve(language: language, voice: nil) }
            Journal.log(.info, chosen.map { "passages in \(language) are read with the voice \($0.name) (\($0.identifier))" }
                        ?? "no voice speaks \(language): its passages are read with the book's voice")
        }
        passageVoices[language] = .some(chosen)
        return chosen
    }

    /// The book's language picks the voice (`[voices]` first); a book that names none (plain
    /// text) is read in the default voice's language, so `[voices]` for that language applies too;
    /// an unknown one falls back to the default, with a log line.
    func voice(forBookLanguage language: String?) -> Voice? {
        let fallback = try? catalog.resolve(language: nil, voice: nil)
        let reading = language ?? fallback?.primaryLanguage
        if let reading, let configured = configuration.voice(forLanguage: reading),
           let voice = try? catalog.resolve(language: reading, voice: configured) { return voice }
        if let language, let voice = try? catalog.resolve(language: language, voice: nil) { return voice }
        Journal.log(.notice, "no voice for the book's language \(language ?? "(none)"); reading with \(fallback?.name ?? "none")")
        return fallback
    }

    /// Parses the other chapters one by one in the background, handing each to the narrator.
    private func loadRemainingChapters(of prepared: PreparedBook, generation: Int) {
        let reader = prepared.reader
        let order = prepared.remainingChapters.filter { !requestedChapters.contains($0) }   // the narrator's asked already
        let latest = latestBook
        requestedChapters.formUnion(order)
        bookQueue.async {
            for index in order {
                // Another book has replaced this one: stop parsing it.
                guard latest.get() == generation else { break }
                let loaded = Self.read(index, of: reader)
                LoopInbox.post { [weak self] in self?.deliver(index, loaded, generation: generation) }
            }
            // The outline (the whole document) went with the block above; give what the parse
            // freed in the worker threads' malloc arenas back to the system.
            releaseFreedHeap()
        }
    }

    /// Reads a chapter of the open book again: the narrator let it go, far from the listener
    /// (`OpenBook.keepTexts(near:)`), and needs it now or next. One read per chapter at a time.
    func loadChapter(_ index: Int) {
        guard let reader = outline, let book = narration.book, book.chapterTitles.indices.contains(index),
              book.chapterTexts[index] == nil, !requestedChapters.contains(index) else { return }
        requestedChapters.insert(index)
        let generation = latestBook.get()
        bookQueue.async {
            let loaded = Self.read(index, of: reader)
            LoopInbox.post { [weak self] in self?.deliver(index, loaded, generation: generation) }
        }
    }

    private typealias LoadedChapter = (text: String, languages: [LanguageRun], pronunciation: ChapterPronunciation)

    /// A chapter's text, off the loop; an unreadable one is logged and read as empty.
    private nonisolated static func read(_ index: Int, of reader: BookOutline) -> LoadedChapter {
        do {
            let chapter = try reader.loadChapter(index)
            for warning in chapter.warnings {
                Journal.log(.notice, warning, fields: ["LECTOR_BOOK": reader.sourceURL.path])
            }
            return (chapter.text, chapter.languageRuns, chapter.pronunciation)
        } catch {
            Journal.log(.warning, "chapter \(index + 1) could not be read: \(error)",
                        fields: ["LECTOR_BOOK": reader.sourceURL.path, "LECTOR_CHAPTER": String(index + 1),
                                 "LECTOR_ERROR": "BadBook"])
            return ("", [], ChapterPronunciation())
        }
    }

    private func deliver(_ index: Int, _ loaded: LoadedChapter, generation: Int) {
        guard generation == latestBook.get() else { return }   // a newer book replaced it
        requestedChapters.remove(index)
        narration.chapterLoaded(index, text: loaded.text, languages: loaded.languages, pronunciation: loaded.pronunciation)
        onChapterLoaded?(index)
        chapterArrived()
        narration.keepTextsNearListener()
    }

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
    /// Position at `startOffset` when it is the bookmark's word (the bookmark kept it).
    var startTime: Int64?
    var remainingChapters: [Int]
    var note: String?
    /// The bookmark found (nil with `from-start`): rate, voice and when it was last heard.
    var bookmark: Bookmark?

    /// `cancellation` stops the parse when a later Open supersedes it (`LectorError.superseded`)
    /// and stays with the outline for the book's later parses.
    static func prepare(url: URL, options: Library.OpenOptions, reading: BookReadingOptions = .default,
                        bookmarks: BookmarkStore, covers: URL, cancellation: ParseCancellation? = nil) throws -> PreparedBook {
        let outline: BookOutline
        do {
            outline = try BookReader.open(url, options: reading, cancellation: cancellation)
        } catch .pdf {
            throw LectorError(.unsupportedFormat, BookError.pdf(file: url).description)
        } catch {
            throw bookError(error, cancellation)
        }
        let reader = outline
        let titles = outline.chapters.map(\.title)
        guard !titles.isEmpty else { throw LectorError(.badBook, "\(url.path): the book has no chapters") }
        var note: String?
        var start = (chapter: 0, offset: 0)
        var found: Bookmark?
        switch bookmarks.load(bookIdentity: outline.identity) {
        case .found(let mark):
            found = mark
            // From the start, the choices made for the book still hold; the place does not.
            if !options.fromStart { start = (mark.chapter, mark.offset) }
        case .corrupt(let aside, let reason):
            note = "the bookmark of \(url.path) was unreadable (\(reason)); set aside as \(aside)"
        case .none: break
        }
        if let chapter = options.chapter {
            guard titles.indices.contains(chapter) else {
                // An ordinal reads right whether the caller counts from 0 (the bus option 8) or
                // from 1 (`lector read --chapter 9`): both mean the 9th chapter.
                let count = titles.count == 1 ? "1 chapter" : "\(titles.count) chapters"
                throw LectorError.invalidArgument("\(url.lastPathComponent) has \(count); there is no \(Self.ordinal(chapter + 1)) chapter")
            }
            if chapter != start.chapter { start = (chapter, 0) }
        }
        if !titles.indices.contains(start.chapter) { start = (0, 0) }

        var book = OpenBook(identity: outline.identity, title: outline.title, authors: outline.authors,
                            language: outline.language, url: url, coverURL: nil, chapterTitles: titles)
        book.chapterDepths = outline.chapters.map(\.depth)
        func load(_ index: Int) throws -> Chapter {
            do {
                return try reader.loadChapter(index)
            } catch {
                throw bookError(error, cancellation)
            }
        }
        var first = try load(start.chapter)
        var firstLength = first.text.unicodeScalars.count   // counted once: it walks the whole chapter
        if start.offset > firstLength { start.offset = 0 }
        // Heard to its very end: a book resumed after that starts over (its end would only stop again).
        if options.chapter == nil, start.chapter == titles.count - 1, start.offset > 0, start.offset >= firstLength {
            start = (0, 0)
            if titles.count > 1 {
                first = try load(0)
                firstLength = first.text.unicodeScalars.count
            }
        }
        let warnings = outline.warnings + first.warnings
        if !warnings.isEmpty { note = ([note].compactMap { $0 } + warnings).joined(separator: "; ") }
        book.store(first.text, chapter: start.chapter, scalarCount: firstLength)
        book.chapterLanguages[start.chapter] = first.languageRuns
        if !first.pronunciation.isEmpty { book.chapterPronunciations[start.chapter] = first.pronunciation }
        if outline.hasCover, let cover = try? outline.loadCover() {
            let file = covers.appendingPathComponent(StableHash.hex(outline.identity) + "." + cover.fileExtension)
            if !FileManager.default.fileExists(atPath: file.path) {
                try? FileManager.default.createDirectory(at: covers, withIntermediateDirectories: true)
                try? cover.data.write(to: file, options: Data.WritingOptions.atomic)
            }
            if FileManager.default.fileExists(atPath: file.path) { book.coverURL = file }
        }
        // The bookmark's own place, untouched by the options or the checks above: its Position too.
        let startTime = found.flatMap { start == ($0.chapter, $0.offset) ? $0.position : nil }
        for entry in outline.chapters { if let count = entry.scalarCount { book.know(count, scalarsOf: entry.index) } }
        // Chapters of unknown length and the listener's neighbours (OpenBook.keptChapters); the
        // rest is read when the listener gets near.
        let remaining = titles.indices.filter {
            $0 != start.chapter && (book.chapterScalarCounts[$0] == nil || OpenBook.keptChapters.contains($0 - start.chapter))
        }
        let ordered = remaining.filter { $0 > start.chapter } + remaining.filter { $0 < start.chapter }
        return PreparedBook(book: book, reader: reader, startChapter: start.chapter, startOffset: start.offset, startTime: startTime,
                            remainingChapters: ordered, note: note, bookmark: found)
    }
}

extension PreparedBook {
    /// BadBook with the book's reason, or Superseded for a parse a later Open cancelled.
    static func bookError(_ error: BookError, _ cancellation: ParseCancellation?) -> LectorError {
        if cancellation?.isCancelled == true, case .refusedXML = error {
            return LectorError(.superseded, "the Open of \(error.file.path) was superseded by a later Open before "
                               + "its parse finished; its parse was stopped")
        }
        return LectorError(.badBook, error.description)
    }

    /// "1st", "2nd", "3rd", "4th", "11th", "12th", "13th", "21st", "102nd".
    static func ordinal(_ n: Int) -> String {
        let suffix: String
        switch (n % 10, n % 100) {
        case (_, 11...13): suffix = "th"
        case (1, _): suffix = "st"
        case (2, _): suffix = "nd"
        case (3, _): suffix = "rd"
        default: suffix = "th"
        }
        return "\(n)\(suffix)"
    }
}

/// What the library asks of narration (its seam, as `NarrationControl` is the audio policy's):
/// the open book and the word heard, for bookmarks and the library entry; a parsed book to open,
/// its chapters as they are read, and the rate and voice chosen for it. The narrator is it.
@MainActor
protocol BookNarration: AnyObject {
    var book: OpenBook? { get }
    var state: PlayerState { get }
    /// Chapter and offset of the word last heard: what a bookmark records.
    var resumePoint: (chapter: Int, offset: Int) { get }
    /// Position at `resumePoint`, kept with the bookmark (nil when unknown).
    var resumeTime: Int64? { get }
    /// The speed learned from this book (Unicode scalars a second at rate 1).
    var scalarsPerSecond: Double { get }
    /// The book's voice (set before `open`), and the voice of a passage in another language.
    var voice: Voice? { get set }
    var voiceForPassage: ((String) -> Voice?)? { get set }
    func open(_ book: OpenBook, chapter: Int, offset: Int, time: Int64?, play: Bool)
    func chapterLoaded(_ index: Int, text: String, languages: [LanguageRun], pronunciation: ChapterPronunciation)
    /// Lets go of chapter texts far from the listener.
    func keepTextsNearListener()
    func play()
    func setRate(_ rate: Double)
    /// Another voice for the open book, from the next word.
    func setVoice(_ voice: Voice)
}

extension Narrator: BookNarration {
    var scalarsPerSecond: Double { clock.scalarsPerSecond }
}

/// glibc keeps memory freed by worker threads in per-thread arenas; malloc_trim(0) returns the
/// free pages of all arenas (CLinux's malloc.h: Glibc's Swift module does not export it).
func releaseFreedHeap() { _ = malloc_trim(0) }
