import Foundation
import LectorCore

/// A Pronunciation Lexicon Specification (PLS 1.0) document, as EPUB 3 books carry them
/// (`application/pls+xml` in the manifest, `<link rel="pronunciation">` in a content document),
/// read with libxml2 (`XMLDocumentParsing`) into a `PronunciationLexicon`:
///
///     <lexicon version="1.0" xmlns="http://www.w3.org/2005/01/pronunciation-lexicon"
///              alphabet="ipa" xml:lang="en">
///       <lexeme><grapheme>S.E.</grapheme><alias>southeast</alias></lexeme>
///       <lexeme><grapheme>Hermione</grapheme><phoneme>hɜːˈmaɪəni</phoneme></lexeme>
///     </lexicon>
///
/// Each lexeme's phonemes and aliases are said in the order written, a `prefer="true"` one
/// first (PLS §4.6); a `phoneme` may name its own `alphabet`. Graphemes are matched as written.
/// Element names are compared by local name, so a prefixed `<pls:lexeme>` reads the same.
enum PLSLexicon {
    /// More than this many lexemes are not read (a lexicon is a list of a book's odd words).
    static let maximumLexemes = 50_000

    static func read(_ data: Data, path: String, file: URL, language linkLanguage: String?) throws(BookError) -> PronunciationLexicon {
        let reader = Reader(path: path)
        try XMLDocumentParsing.parse(data, path: path, file: file, handler: reader)
        return PronunciationLexicon(language: reader.language ?? linkLanguage, caseSensitive: true,
                                    rules: reader.rules, name: path)
    }

    private final class Reader: MarkupEventHandler {
        let path: String
        var stoppedOnPurpose = false
        var tooDeepAtLine: Int?
        var language: String?
        var alphabet = "ipa"
        var rules: [PronunciationRule] = []
        private var lexeme: (graphemes: [String], sayings: [(Saying, Bool)])?
        /// The element whose text is being collected, its text and its `prefer`/`alphabet`.
        private var field: (name: String, text: String, prefer: Bool, alphabet: String?)?

        init(path: String) { self.path = path }

        func startElement(_ qualifiedName: String, attributes: [String: String], line: Int) {
            switch MarkupElement.localName(qualifiedName) {
            case "lexicon":
                if let tag = attributes["xml:lang"], !tag.isEmpty { language = tag }
                if let named = attributes["alphabet"], !named.isEmpty { alphabet = named }
            case "lexeme":
                lexeme = ([], [])
            case let name where ["grapheme", "phoneme", "alias"].contains(name) && lexeme != nil:
                field = (name, "", attributes["prefer"] == "true", attributes["alphabet"])
            default:
                break
            }
        }

        func endElement(_ qualifiedName: String, line: Int) {
            let name = MarkupElement.localName(qualifiedName)
            if let current = field, current.name == name {
                field = nil
                let text = current.text.split(whereSeparator: \.isWhitespace).joined(separator: " ")
                guard !text.isEmpty else { return }
                switch name {
                case "grapheme": lexeme?.graphemes.append(text)
                case "phoneme": lexeme?.sayings.append((.phonemes(text, alphabet: current.alphabet ?? alphabet), current.prefer))
                default: lexeme?.sayings.append((.text(text), current.prefer))
                }
                return
            }
            guard name == "lexeme", let finished = lexeme else { return }
            lexeme = nil
            let sayings = finished.sayings.filter(\.1).map(\.0) + finished.sayings.filter { !$0.1 }.map(\.0)
            guard !sayings.isEmpty else { return }
            for grapheme in finished.graphemes {
                rules.append(PronunciationRule(match: .word(grapheme), sayings: sayings, source: path))
            }
            if rules.count >= PLSLexicon.maximumLexemes { stoppedOnPurpose = true }
        }

        func characters(_ text: String, line: Int) {
            field?.text += text
        }
    }
}

/// The book's PLS lexicons, each read once: those the manifest lists and those a document links.
final class LexiconCache: @unchecked Sendable {
    private let lock = NSLock()
    private var read: [String: PronunciationLexicon?] = [:]
    private var manifestPaths: [String]?

    /// The archive paths of the manifest's `application/pls+xml` items, found once.
    func manifestLexicons(_ manifest: [ManifestItem]) -> [String] {
        lock.lock()
        defer { lock.unlock() }
        if let manifestPaths { return manifestPaths }
        let paths = manifest.compactMap { $0.mediaType.lowercased() == "application/pls+xml" ? $0.path : nil }
        manifestPaths = paths
        return paths
    }

    /// The lexicon at `path`, and on its first reading a warning when it is missing or broken.
    func lexicon(at path: String, language: String?, archive: EPUBArchive) -> (lexicon: PronunciationLexicon?, warning: String?) {
        lock.lock()
        if let known = read[path] {
            lock.unlock()
            return (known, nil)
        }
        lock.unlock()
        var lexicon: PronunciationLexicon?
        var warning: String?
        do {
            lexicon = try PLSLexicon.read(try archive.data(at: path), path: path, file: archive.file, language: language)
        } catch {
            warning = "the pronunciation lexicon \(path) cannot be read (\(error)); its words are read as written"
        }
        lock.lock()
        read[path] = .some(lexicon)
        lock.unlock()
        return (lexicon, warning)
    }
}
