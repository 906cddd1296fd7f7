import Foundation

/// The entity attacks on XML (issue 21), each as an internal DTD subset and the reference that
/// sets it off, and `HostileEntityBook`, a real small EPUB with one of its XML documents carrying
/// one. Unit tests, the daemon's integration tests and the fuzz seeds use the same forms.
public enum EntityAttack: String, CaseIterable, Sendable {
    /// Ten nested entities, each ten times the last: 10^10 "lol"s from a 1-kB declaration.
    case billionLaughs
    /// One 100-kB entity referenced 5,000 times: 500 MB of text from 130 kB.
    case quadratic
    /// Entities that refer to each other: a → b → a.
    case loop
    /// A 100-kB parameter entity (an entity declaration) referenced 3,000 times in the subset:
    /// 300 MB of declarations (parameter entities cannot nest within an internal subset).
    case parameterEntities
    /// A general and a parameter entity naming a file of the listener's (`file`).
    case externalEntity

    /// Whether the document must be refused for its entities; an external entity is never
    /// declared, so its reference is an unknown entity like any other (its file never read).
    public var mustBeRefused: Bool { self != .externalEntity }

    /// `<!DOCTYPE root [ … ]>` for a document whose root element is `root`.
    public func doctype(root: String, file: String = "/etc/hostname") -> String {
        "<!DOCTYPE \(root) [\n" + declarations(file: file) + "\n]>"
    }

    /// What to write where the document has text (or an attribute value).
    public var reference: String {
        switch self {
        case .billionLaughs: return "&lol9;"
        case .parameterEntities: return ""
        case .quadratic: return String(repeating: "&big;", count: 5_000)
        case .loop: return "&a;"
        case .externalEntity: return "&ext;"
        }
    }

    func declarations(file: String) -> String {
        switch self {
        case .billionLaughs:
            return Self.laughs()
        case .quadratic:
            return "<!ENTITY big \"" + String(repeating: "x", count: 100_000) + "\">"
        case .loop:
            return "<!ENTITY a \"one &b;\"><!ENTITY b \"two &a;\">"
        case .parameterEntities:
            return "<!ENTITY % big \"<!ENTITY pe '" + String(repeating: "x", count: 100_000) + "'>\">"
                + String(repeating: "%big;", count: 3_000)
        case .externalEntity:
            return "<!ENTITY ext SYSTEM \"file://\(file)\"><!ENTITY % extp SYSTEM \"file://\(file)\">%extp;"
        }
    }

    private static func laughs() -> String {
        var lines = ["<!ENTITY lol0 \"lol\">"]
        for level in 1...9 {
            lines.append("<!ENTITY lol\(level) \"" + String(repeating: "&lol\(level - 1);", count: 10) + "\">")
        }
        return lines.joined(separator: "\n")
    }
}

/// A small EPUB whose one XML document `kind` carries `attack`; every other document is plain
/// and valid, so what is refused is that document alone.
///
///     let data = try HostileEntityBook(attack: .billionLaughs, in: .opf).zipData()
public struct HostileEntityBook: Sendable {
    public enum Document: String, CaseIterable, Sendable {
        case container, opf, nav, ncx, chapter, lexicon

        /// Where it lies in the archive.
        public var path: String {
            switch self {
            case .container: return "META-INF/container.xml"
            case .opf: return "OEBPS/content.opf"
            case .nav: return "OEBPS/nav.xhtml"
            case .ncx: return "OEBPS/toc.ncx"
            case .chapter: return "OEBPS/c1.xhtml"
            case .lexicon: return "OEBPS/lexicon.pls"
            }
        }
    }

    public var attack: EntityAttack
    public var document: Document
    /// The file an external entity names.
    public var file: String

    public init(attack: EntityAttack, in document: Document, file: String = "/etc/hostname") {
        self.attack = attack
        self.document = document
        self.file = file
    }

    /// The words of the book's one chapter.
    public static let chapterText = "The only chapter, read when nothing is wrong."

    public func writer() -> EPUBWriter {
        func doctype(_ root: String, _ kind: Document) -> String {
            kind == document ? attack.doctype(root: root, file: file) : ""
        }
        func text(_ plain: String, _ kind: Document) -> String { kind == document ? plain + " " + attack.reference : plain }
        let declaration = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        let container = declaration + doctype("container", .container) + """
            <container version="1.0" xmlns="urn:oasis:names:tc:opendocument:xmlns:container"><rootfiles>
            <rootfile full-path="OEBPS/content.opf" media-type="application/oebps-package+xml" \
            title="\(text("book", .container))"/></rootfiles></container>
            """
        // The NCX is read only when there is no navigation document.
        let nav = document == .ncx ? "" : #"<item id="nav" href="nav.xhtml" media-type="application/xhtml+xml" properties="nav"/>"#
        let opf = declaration + doctype("package", .opf) + """
            <package xmlns="http://www.idpf.org/2007/opf" version="3.0" unique-identifier="uid">
            <metadata xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:identifier id="uid">urn:uuid:hostile-\(attack.rawValue)-\(document.rawValue)</dc:identifier>
            <dc:title>\(text("Hostile Entities", .opf))</dc:title><dc:language>en</dc:language>
            <meta property="dcterms:modified">2026-01-01T00:00:00Z</meta></metadata>
            <manifest>\(nav)<item id="ncx" href="toc.ncx" media-type="application/x-dtbncx+xml"/>
            <item id="c1" href="c1.xhtml" media-type="application/xhtml+xml"/>
            <item id="pls" href="lexicon.pls" media-type="application/pls+xml"/></manifest>
            <spine toc="ncx"><itemref idref="c1"/></spine></package>
            """
        let navigation = declaration + doctype("html", .nav) + """
            <html xmlns="http://www.w3.org/1999/xhtml" xmlns:epub="http://www.idpf.org/2007/ops"><head><title>Contents</title></head>
            <body><nav epub:type="toc"><ol><li><a href="c1.xhtml">\(text("The Chapter", .nav))</a></li></ol></nav></body></html>
            """
        let ncx = declaration + doctype("ncx", .ncx) + """
            <ncx xmlns="http://www.daisy.org/z3986/2005/ncx/" version="2005-1"><head/><docTitle><text>Book</text></docTitle>
            <navMap><navPoint id="p1" playOrder="1"><navLabel><text>\(text("The Chapter", .ncx))</text></navLabel>
            <content src="c1.xhtml"/></navPoint></navMap></ncx>
            """
        let chapter = declaration + doctype("html", .chapter) + """
            <html xmlns="http://www.w3.org/1999/xhtml"><head><title>Chapter</title></head>
            <body><h1>The Chapter</h1><p>\(text(Self.chapterText, .chapter))</p></body></html>
            """
        let lexicon = declaration + doctype("lexicon", .lexicon) + """
            <lexicon version="1.0" xmlns="http://www.w3.org/2005/01/pronunciation-lexicon" alphabet="ipa" xml:lang="en">
            <lexeme><grapheme>\(text("nothing", .lexicon))</grapheme><alias>naught</alias></lexeme></lexicon>
            """
        // Stored, not deflated: deflated, the quadratic form could be refused as a ZIP bomb first.
        var writer = EPUBWriter()
            .adding("mimetype", "application/epub+zip", compressed: false)
            .adding(Document.container.path, container, compressed: false)
            .adding(Document.opf.path, opf, compressed: false)
            .adding(Document.ncx.path, ncx, compressed: false)
            .adding(Document.chapter.path, chapter, compressed: false)
            .adding(Document.lexicon.path, lexicon, compressed: false)
        if document != .ncx { writer = writer.adding(Document.nav.path, navigation, compressed: false) }
        return writer
    }

    public func zipData() throws -> Data { try writer().zipData() }

    @discardableResult
    public func write(to url: URL) throws -> Int { try writer().write(to: url) }
}
