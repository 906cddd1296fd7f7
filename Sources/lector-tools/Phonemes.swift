import ArgumentParser
import LectorCommandLine
import Foundation
import LectorBooks
import LectorConfig
import LectorCore
import LectorSpeech

/// `lector phonemes`: what espeak-ng will say, as its phoneme mnemonics (`espeak-ng -x`), with
/// the book's pronunciations (`ssml:ph`, PLS lexicons) and config.toml's `[pronunciation]`
/// applied exactly as narration and announcements apply them. A word that sounds wrong shows
/// here how espeak-ng reads it, and whether a lexicon changed it, so the listener can add an
/// entry and check it before listening again. Runs espeak-ng itself: needs no daemon.
struct Phonemes: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "phonemes",
        abstract: "Show what espeak-ng says for a text or a chapter, lexicons applied.",
        discussion: """
            Standard output gets espeak-ng's phoneme mnemonics, one line per clause (for a book: \
            each segment's text, then its phonemes indented); standard error says which words a \
            lexicon replaced and by what. A mnemonic espeak-ng does not know ends its word early, \
            so phonemes cut short point at an IPA symbol to change in config.toml.

            Examples:
              lector phonemes A bowl of quinoa          espeak-ng alone: kwIn'oU@
              lector phonemes --ipa -l en-GB tomato     in IPA, British English
              lector phonemes --book atlas.epub -c 3    what narration says in chapter 3

            After adding  quinoa = "/ˈkiːnwɑː/"  under [pronunciation.en] in config.toml, \
            the first example shows 'ki:nwA: (the daemon applies it at SIGHUP or its Reload method).
            """)

    @Option(name: [.short, .long], help: "A book (EPUB or plain text) to show a chapter of.") var book: String?
    @Option(name: [.short, .long], help: "The chapter of --book, counted from 1 (default 1).") var chapter: Int?
    @Option(name: [.short, .long], help: "BCP 47 language of the text, e.g. en-GB (default: the book's, else en).")
    var language: String?
    @Option(name: [.short, .long], help: "espeak-ng voice name (see lector voices).") var voice: String?
    @Flag(help: "Show IPA instead of espeak-ng's mnemonics.") var ipa = false
    @Argument(help: "The text (its words are joined with spaces), or - to read it from standard input.")
    var words: [String] = []

    func validate() throws {
        if book == nil, words.isEmpty {
            throw ValidationError("give a text (lector phonemes Hermione) or a book (lector phonemes --book FILE --chapter N)")
        }
        if book != nil, !words.isEmpty {
            throw ValidationError("give a text or --book, not both")
        }
        if chapter != nil, book == nil { throw ValidationError("--chapter needs --book FILE") }
        if let chapter, chapter < 1 { throw ValidationError("--chapter counts from 1, not \(chapter)") }
        if let language, !LanguageTag.isWellFormed(language) {
            throw ValidationError("--language must be a BCP 47 tag such as en-GB, not \"\(language)\"")
        }
    }

    func run() throws {
        let configuration = Self.loadConfiguration()
        let engine: SpeechEngine
        do {
            engine = try SpeechEngine(bufferedSecondsAhead: 1)
        } catch {
            throw CLIError("espeak-ng cannot start: \(error) (lector doctor says more)")
        }
        defer { engine.shutdown() }
        let catalog = VoiceCatalog(voices: engine.voices)
        if let book {
            try showBook(book, engine: engine, catalog: catalog, configuration: configuration)
        } else {
            var text = words.joined(separator: " ")
            if text == "-" {
                text = try SpeechRequest.decodeUTF8(try StandardInput.readAll())
            }
            let spokenLanguage = language ?? "en"
            let chosen = try chooseVoice(catalog, language: spokenLanguage, configuration: configuration)
            let pronouncer = Pronouncer(listener: configuration.pronunciation, language: spokenLanguage)
            report(pronouncer.notes)
            let prepared = pronouncer.prepare(text)
            reportReplacements(prepared, in: Array(text.unicodeScalars))
            print(try phonemes(prepared, engine: engine, voice: chosen), terminator: "")
        }
    }

    private func showBook(_ path: String, engine: SpeechEngine, catalog: VoiceCatalog, configuration: Configuration) throws {
        let url = URL(fileURLWithPath: (path as NSString).expandingTildeInPath)
        let outline: BookOutline
        let loaded: Chapter
        do {
            outline = try BookReader.open(url)
            let index = (chapter ?? 1) - 1
            guard outline.chapters.indices.contains(index) else {
                throw CLIError("\(url.lastPathComponent) has \(outline.chapters.count) chapters; --chapter \(index + 1) is not one")
            }
            loaded = try outline.loadChapter(index)
        } catch let error as BookError {
            throw CLIError("\(error)")
        }
        let bookLanguage = language ?? outline.language ?? "en"
        report(loaded.warnings.filter { $0.contains("pronunciation") })
        // As narration does: a passage the book marks in another language is a segment of its
        // own, in that language's voice, with that language's lexicons.
        var speakers: [String: (voice: Voice, pronouncer: Pronouncer)] = [:]
        func speaker(_ language: String) throws -> (voice: Voice, pronouncer: Pronouncer) {
            if let known = speakers[language] { return known }
            var found = language == bookLanguage ? nil : try? chooseVoice(catalog, language: language, configuration: configuration)
            if found == nil { found = try chooseVoice(catalog, language: bookLanguage, configuration: configuration) }
            guard let voice = found else { throw CLIError("no voice for \(language)") }
            let pronouncer = Pronouncer(listener: configuration.pronunciation, book: loaded.pronunciation.lexicons, language: language)
            report(pronouncer.notes)
            speakers[language] = (voice, pronouncer)
            return (voice, pronouncer)
        }
        let passages = LanguageRuns(language == nil ? loaded.languageRuns : [])
        let segmenter = TextSegmenter(loaded.text)
        var offset = 0
        while offset < segmenter.count {
            var range = segmenter.segment(from: offset)
            if let change = passages.nextChange(after: offset), change < range.upperBound { range = offset..<change }
            defer { offset = max(range.upperBound, offset + 1) }
            let (chosen, pronouncer) = try speaker(passages.language(at: offset) ?? bookLanguage)
            let runs = loaded.pronunciation.phonemeRuns.compactMap { run -> PhonemeRun? in
                guard run.range.lowerBound >= range.lowerBound, run.range.upperBound <= range.upperBound else { return nil }
                return PhonemeRun(range: (run.range.lowerBound - range.lowerBound)..<(run.range.upperBound - range.lowerBound),
                                  phonemes: run.phonemes, alphabet: run.alphabet)
            }
            var notes: [String] = []
            let prepared = EngineText.prepare(segmenter.scalars.slice(range), endsPhrase: segmenter.isPhraseEnd(range),
                                              pronouncer: pronouncer, phonemeRuns: runs, notes: &notes)
            report(notes)
            let original = String(String.UnicodeScalarView(segmenter.scalars[range]))
            let shown = original.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }
                .filter { !$0.isEmpty }.joined(separator: " / ")
            guard !shown.isEmpty else { continue }
            reportReplacements(prepared, in: Array(segmenter.scalars[range]))
            print(shown)
            let said = try phonemes(prepared, engine: engine, voice: chosen)
            for line in said.split(whereSeparator: \.isNewline) where !line.allSatisfy(\.isWhitespace) {
                print("    " + line.trimmingCharacters(in: .whitespaces))
            }
        }
    }

    private func chooseVoice(_ catalog: VoiceCatalog, language: String, configuration: Configuration) throws -> Voice {
        do {
            return try catalog.resolve(language: language, voice: voice ?? configuration.voice(forLanguage: language))
        } catch {
            throw CLIError("\(error) (lector voices lists them)")
        }
    }

    private func phonemes(_ prepared: Pronouncer.Prepared, engine: SpeechEngine, voice: Voice) throws -> String {
        var request = try SpeechRequest(text: prepared.text.isEmpty ? " " : prepared.text)
        request.phonemeInput = prepared.usesPhonemes
        guard let said = engine.phonemeTrace(of: request, voice: voice, ipa: ipa) else {
            throw CLIError("espeak-ng could not load the voice \(voice.identifier)")
        }
        return said
    }

    private func reportReplacements(_ prepared: Pronouncer.Prepared, in scalars: [Unicode.Scalar]) {
        for replacement in prepared.replacements where replacement.range.upperBound <= scalars.count {
            let written = String(String.UnicodeScalarView(scalars[replacement.range]))
            StandardError.write("lector: \"\(written)\" is said as \(replacement.spoken)\n")
        }
    }

    private func report(_ notes: [String]) {
        for note in notes { StandardError.write("lector: \(note)\n") }
    }

    /// config.toml; a broken one is reported and left out (the daemon keeps its last good one).
    static func loadConfiguration() -> Configuration {
        let path = Configuration.defaultPath(environment: ProcessInfo.processInfo.environment)
        guard let data = FileManager.default.contents(atPath: path) else { return Configuration() }
        do {
            return try Configuration.parse(utf8: Array(data), file: path)
        } catch {
            StandardError.write("lector: \(error); shown without config.toml's lexicons until it is fixed\n")
            return Configuration()
        }
    }
}
