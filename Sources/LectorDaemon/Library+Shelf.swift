import Foundation
import LectorBus
import LectorCore
import LectorLoop
import LectorState

/// What the listener chose while reading one book: remembered with its bookmark and put back
/// when the book is opened again, while other books keep the configuration's defaults
/// (`[speech] rate`, `[voices]`). nil means "the default".
///
/// ```swift
/// var choices = BookChoices()
/// choices.rate = try BookChoices.checkedRate(1.4)   // `lector rate 1.4` while reading it
/// ```
struct BookChoices: Equatable {
    var rate: Double?
    var voice: String?

    /// A rate the player takes (MPRIS MinimumRate ... MaximumRate), or InvalidArgument.
    static func checkedRate(_ rate: Double) throws -> Double {
        guard rate.isFinite, PlayerState.rateRange.contains(rate) else {
            throw LectorError.invalidArgument("the rate must be from \(PlayerState.rateRange.lowerBound) to "
                                              + "\(PlayerState.rateRange.upperBound) (1.0 is normal), not \(rate)")
        }
        return rate
    }
}

/// The library (issue 13): every book read, with its progress, time left and when it was last
/// heard, kept under `$XDG_STATE_HOME/lector/library/` (one atomic file per book, written on
/// `bookmarkQueue`), and the per-book choices of rate and voice.
extension Library {
    // MARK: - per-book memory

    /// The listener chose a rate or voice for the open book (MPRIS Rate, Narrator1.Voice,
    /// `read --rate/--voice` on the book being read): applied now and saved with the bookmark.
    func choose(rate: Double? = nil, voice: String? = nil) {
        guard narration.book != nil else { return }
        if let rate {
            chosen.rate = rate
            narration.setRate(rate)
        }
        if let voice, let resolved = try? catalog.resolve(language: nil, voice: voice),
           let mismatch = Self.languageMismatch(resolved, bookLanguage: narration.book?.language) {
            let message = mismatch + ": \(narration.voice?.name ?? "the book's voice") reads on; "
                + Self.voiceHint(bookLanguage: narration.book?.language)
            Journal.log(.warning, message, fields: ["LECTOR_ERROR": "VoiceUnavailable", "LECTOR_VOICE": resolved.name])
            voiceNote = narration.voice.map { ($0.name, message) }
            onVoiceChanged?()
        } else if let voice, let resolved = try? catalog.resolve(language: nil, voice: voice) {
            chosen.voice = resolved.name   // its name, however it was asked for ("en-gb", "gmw/en")
            let before = narration.voice
            narration.setVoice(resolved)
            if narration.voice != before { onVoiceChanged?() }
        }
        if rate != nil || voice != nil { saveBookmark() }
    }

    /// The voice chosen for the book if it is still installed, else the one for its language. A
    /// neural voice of another language than the book's cannot read it (its phonemes would be its
    /// own language's): the language's voice reads instead, and `voiceNote` says why.
    func voice(forBook language: String?, chosen name: String?) -> Voice? {
        voiceNote = nil
        if let name {
            if let named = try? catalog.resolve(language: nil, voice: name) {
                guard let mismatch = Self.languageMismatch(named, bookLanguage: language) else { return named }
                let instead = voice(forBookLanguage: language)
                let message = mismatch + ": \(instead?.name ?? "espeak-ng") reads it instead; " + Self.voiceHint(bookLanguage: language)
                Journal.log(.warning, message, fields: ["LECTOR_ERROR": "VoiceUnavailable", "LECTOR_VOICE": named.name])
                voiceNote = instead.map { ($0.name, message) }
                return instead
            }
            Journal.log(.notice, "the voice chosen for this book, \(name), is not installed: reading with the default")
        }
        return voice(forBookLanguage: language)
    }

    /// Why a neural `voice` cannot read a book in `bookLanguage` (another primary language), or
    /// nil. espeak-ng's voices read any text (the pronunciation check judges how well).
    /// (`VoiceCatalog.voices(forBookIn:)` offers neural voices by the same rule.)
    static func languageMismatch(_ voice: Voice, bookLanguage: String?) -> String? {
        guard voice.engine == .piper, let bookLanguage, let book = LanguageTag.primary(bookLanguage),
              let spoken = LanguageTag.primary(voice.primaryLanguage), book != spoken else { return nil }
        return "the voice \(voice.name) speaks \(voice.primaryLanguage), not this book's language (\(bookLanguage))"
    }

    /// Narrator1.BookVoices: the voices that can read the open book, the one reading it among
    /// them ([] without a book). A book that names no language (plain text) is read in the
    /// default voice's language (`voice(forBookLanguage:)`), so that language's voices.
    var bookVoices: [Voice] {
        guard let book = narration.book else { return [] }
        let language = book.language ?? (try? catalog.resolve(language: nil, voice: nil))?.primaryLanguage ?? ""
        return catalog.voices(forBookIn: language, current: narration.voice)
    }

    /// What to do about a `languageMismatch`.
    static func voiceHint(bookLanguage: String?) -> String {
        "choose a voice that speaks it (lector voices \(bookLanguage ?? ""))"
    }

    // MARK: - entries

    /// The open book's library entry: title, authors, cover, chapter lengths known so far and
    /// the speed learned from it. Written off the loop, atomically.
    func saveLibraryEntry() {
        guard let book = narration.book, forgottenIdentity != book.identity else { return }
        let entry = RecentBook(path: book.url.path, bookIdentity: book.identity, openedAt: recentBook?.openedAt ?? Date(),
                               title: book.title, authors: book.authors, cover: book.coverURL?.path,
                               chapterLengths: chapterLengths(of: book), scalarsPerSecond: narration.scalarsPerSecond)
        let store = shelf.entries
        bookmarkQueue.async {
            do {
                try store.save(entry)
            } catch {
                Journal.log(.warning, "could not write the library entry of \(entry.path): \(error)", fields: ["LECTOR_BOOK": entry.path])
            }
        }
    }

    /// Each chapter's length in Unicode scalars, -1 for one not read from the book yet.
    func chapterLengths(of book: OpenBook) -> [Int] {
        book.chapterTitles.indices.map { book.chapterScalarCounts[$0] ?? -1 }
    }

    /// A chapter arrived: once every chapter's length is known, the entry gets the whole book's
    /// length (progress and time left need it).
    func chapterArrived() {
        guard let book = narration.book, book.chapterScalarCounts.count == book.chapterCount else { return }
        saveLibraryEntry()
    }

    /// The open book as the daemon sees it now (the files lag by up to 5 s).
    var liveBook: LiveBook? {
        guard let book = narration.book else { return nil }
        let point = narration.resumePoint
        return LiveBook(identity: book.identity, chapter: point.chapter, offset: point.offset, rate: narration.state.rate,
                        scalarsPerSecond: narration.scalarsPerSecond, chapterLengths: chapterLengths(of: book))
    }

    /// The open book's progress over the whole book and the narration left at its rate, or nil
    /// while some chapter has not been read from the book.
    var wholeBookProgress: (progress: Double, timeLeft: Double)? {
        guard let live = liveBook,
              let (heard, total) = LibraryShelf.heard(lengths: live.chapterLengths, chapter: live.chapter, offset: live.offset)
        else { return nil }
        return (total > 0 ? Double(heard) / Double(total) : 0, Double(total - heard) / live.scalarsPerSecond / live.rate)
    }

    // MARK: - Narrator1.GetLibrary and ForgetBook

    /// Lists the library off the loop (after the bookmark queue has written what is pending)
    /// and replies `(aa{sv} books, as problems)`.
    func listBooks(reply: DeferredReply) {
        saveBookmark()
        let live = liveBook
        let rate = configuration.speech.rate
        let shelf = self.shelf
        bookmarkQueue.async {
            let (books, problems) = shelf.list(defaultRate: rate, live: live)
            for problem in problems { Journal.log(.warning, problem) }
            LoopInbox.post {
                reply.send { writer in
                    try writer.container("a", "a{sv}") {
                        for book in books { try Self.write(book, writer) }
                    }
                    try writer.appendStrings(problems)
                }
            }
        }
    }

    /// One book of `GetLibrary` (dbus/io.github.lector.Narrator1.xml lists the keys); keys
    /// without a value are left out.
    private static func write(_ book: LibraryBook, _ writer: MessageWriter) throws {
        try writer.container("a", "{sv}") {
            try writer.entry("path", "s") { try $0.append(book.entry.path) }
            try writer.entry("identity", "s") { try $0.append(BusText.capped(book.entry.bookIdentity)) }
            try writer.entry("title", "s") { try $0.append(BusText.capped(book.displayTitle)) }
            try writer.entry("authors", "as") { try $0.appendStrings(BusText.cappedList(book.entry.authors ?? [])) }
            if let cover = book.entry.cover, FileManager.default.fileExists(atPath: cover) {
                try writer.entry("cover", "s") { try $0.append(URL(fileURLWithPath: cover).absoluteString) }
            }
            try writer.entry("missing", "b") { try $0.append(book.missing) }
            try writer.entry("open", "b") { try $0.append(book.isOpen) }
            try writer.entry("chapter", "u") { try $0.append(UInt32(clamping: book.chapter)) }
            if let count = book.entry.chapterLengths?.count {
                try writer.entry("chapter-count", "u") { try $0.append(UInt32(clamping: count)) }
            }
            try writer.entry("rate", "d") { try $0.append(book.rate) }
            if let voice = book.bookmark?.voice { try writer.entry("voice", "s") { try $0.append(BusText.capped(voice)) } }
            if let progress = book.progress { try writer.entry("progress", "d") { try $0.append(progress) } }
            if let left = book.timeLeft { try writer.entry("time-left", "x") { try $0.append(Int64(left * 1e6)) } }
            if let listened = book.listenedAt {
                try writer.entry("listened-at", "x") { try $0.append(Int64(listened.timeIntervalSince1970 * 1e6)) }
            }
            try writer.entry("opened-at", "x") { try $0.append(Int64(book.entry.openedAt.timeIntervalSince1970 * 1e6)) }
        }
    }

    /// Takes a book out of the library (entry, bookmark, and the record of the book read last
    /// if it is that one). The open book stays open; if it plays again it is remembered again.
    /// Replies the path of the book forgotten; NotFound / InvalidArgument when `query` names
    /// none or several, and nothing changes then.
    func forget(_ query: String, reply: DeferredReply) {
        saveBookmark()
        let shelf = self.shelf
        bookmarkQueue.async {
            let result = Result { try shelf.forget(query) }
            LoopInbox.post { [weak self] in
                switch result {
                case .success(let book):
                    if let self {
                        if self.recentBook?.bookIdentity == book.bookIdentity { self.recentBook = nil }
                        if self.narration.book?.identity == book.bookIdentity { self.forgottenIdentity = book.bookIdentity }
                    }
                    Journal.log(.info, "forgot \(book.path) (library --forget)", fields: ["LECTOR_BOOK": book.path])
                    reply.send { try $0.append(book.path) }
                case .failure(let error):
                    reply.fail((error as? LectorError) ?? LectorError(.failed, "\(error)"))
                }
            }
        }
    }
}
