import Foundation

/// Why a file could not be read as a book. Every message names the file and what is wrong.
///
/// The daemon maps these to its own bus errors and refuses the book; it never plays part of a
/// broken one. For example:
///
///     do { _ = try BookReader.open(url) } catch {
///         print(error)  // /home/me/book.epub: EPUB/ch01.xhtml is not well-formed XML at line 12: tag name mismatch
///     }
public enum BookError: Error, Equatable, Sendable, CustomStringConvertible, LocalizedError {
    /// The file claims to be an EPUB (by name) or was sniffed as one, but is not a ZIP archive.
    case notAZip(file: URL)
    /// The ZIP archive ends early or its data is damaged (no end-of-central-directory record,
    /// a checksum that does not match, deflate data that stops short).
    case truncatedArchive(file: URL, reason: String)
    /// `META-INF/container.xml` is absent, so there is no way to find the package document.
    case missingContainer(file: URL)
    /// `container.xml` names a package document (OPF) the archive does not hold, or names none.
    case missingPackageDocument(file: URL, path: String)
    /// A document the package refers to (a spine item, the navigation document) is not in the archive.
    case missingResource(file: URL, path: String)
    /// An XML document that describes the book (container, OPF, NCX, nav) is not well-formed, or
    /// a content document is not text at all (binary data; `reason` says so). A content document
    /// that is text but not well-formed is read leniently instead (see `Chapter.warnings`).
    case brokenXML(file: URL, path: String, line: Int, reason: String)
    /// An XML document the guard refused (`XMLRefusal`), never read leniently: entities that
    /// expand past their budget or loop, a parse past its CPU budget, or one cancelled because
    /// it was no longer needed. `reason` says which.
    case refusedXML(file: URL, path: String, reason: String)
    /// `META-INF/encryption.xml` encrypts something other than fonts (DRM), so the text cannot be read.
    case encrypted(file: URL, resources: [String])
    /// A size limit in `BookLimits` was exceeded; checked on declared sizes before extracting
    /// and again while inflating, since ZIP headers can lie.
    case tooLarge(file: URL, violation: SizeLimitViolation)
    /// An archive entry name or an href leaves the archive's root (`../x`, `/etc/passwd`).
    case pathEscapesArchive(file: URL, path: String)
    /// No chapter has any text to speak.
    case emptyBook(file: URL)
    /// The file has 0 bytes.
    case emptyFile(file: URL)
    case isDirectory(file: URL)
    /// A FIFO, device or socket (`kind` says which): it has no size to check and may never end.
    case notARegularFile(file: URL, kind: String)
    /// A plain-text file in an encoding this reader does not decode, or binary data. `detected`
    /// says what it looked like, e.g. "binary data (NUL bytes)" or "UTF-32 little-endian".
    case unsupportedEncoding(file: URL, detected: String?)
    /// `loadChapter(_:)` was asked for a chapter the outline does not have.
    case noSuchChapter(file: URL, index: Int, count: Int)
    /// `resource(id:)` was asked for something the read-along page may not show: an id the
    /// manifest lacks, an item that is no image (or in a format a browser cannot show), or any
    /// id of a plain-text book.
    case noSuchResource(file: URL, id: String)
    /// The file could not be read at all (missing, no permission, I/O error).
    case unreadable(file: URL, reason: String)
    /// A PDF (recognized by its `%PDF-` header, whatever its name): not a book Lector reads, and
    /// never to be read aloud as its raw bytes. The message says how to convert it.
    case pdf(file: URL)

    /// The book file the error is about.
    public var file: URL {
        switch self {
        case .notAZip(let file), .truncatedArchive(let file, _), .missingContainer(let file),
             .missingPackageDocument(let file, _), .missingResource(let file, _),
             .brokenXML(let file, _, _, _), .refusedXML(let file, _, _), .encrypted(let file, _), .tooLarge(let file, _),
             .pathEscapesArchive(let file, _), .emptyBook(let file), .emptyFile(let file),
             .isDirectory(let file), .notARegularFile(let file, _), .unsupportedEncoding(let file, _), .noSuchChapter(let file, _, _),
             .noSuchResource(let file, _), .unreadable(let file, _), .pdf(let file):
            return file
        }
    }

    public var description: String {
        let name = file.path
        switch self {
        case .notAZip:
            return "\(name): not an EPUB: the file is not a ZIP archive"
        case .truncatedArchive(_, let reason):
            return "\(name): the EPUB's ZIP archive is truncated or damaged: \(reason)"
        case .missingContainer:
            return "\(name): not an EPUB: META-INF/container.xml is missing"
        case .missingPackageDocument(_, let path):
            return path.isEmpty
                ? "\(name): META-INF/container.xml names no package document (rootfile)"
                : "\(name): the package document \(path) named by META-INF/container.xml is missing"
        case .missingResource(_, let path):
            return "\(name): \(path), which the package refers to, is missing from the archive"
        case .brokenXML(_, let path, let line, let reason):
            return "\(name): \(path) is not well-formed XML at line \(line): \(reason)"
        case .refusedXML(_, let path, let reason):
            return "\(name): \(path) \(reason); the book is refused"
        case .encrypted(_, let resources):
            let shown = resources.prefix(3).joined(separator: ", ") + (resources.count > 3 ? ", …" : "")
            return "\(name): the book is encrypted (DRM), its text cannot be read: \(shown)"
        case .tooLarge(_, let violation):
            return "\(name): refused as too large (possible ZIP bomb): \(violation)"
        case .pathEscapesArchive(_, let path):
            return "\(name): the path \"\(path)\" leaves the archive's root"
        case .emptyBook:
            return "\(name): the book has no text to read"
        case .emptyFile:
            return "\(name): the file is empty (0 bytes)"
        case .isDirectory:
            return "\(name): is a directory, not a book file"
        case .notARegularFile(_, let kind):
            return "\(name): is a \(kind), not a book file; save what it holds to a file and open that"
        case .unsupportedEncoding(_, let detected):
            return "\(name): the text encoding is not supported"
                + (detected.map { ": looks like \($0)" } ?? "")
        case .noSuchChapter(_, let index, let count):
            return "\(name): there is no chapter \(index); the book has \(count) (0...\(max(0, count - 1)))"
        case .noSuchResource(_, let id):
            return "\(name): the book has no image with manifest id \"\(id.prefix(200))\" to show"
        case .unreadable(_, let reason):
            return "\(name): cannot be read: \(reason)"
        case .pdf:
            let base = file.deletingPathExtension().lastPathComponent
            return "\(name) is a PDF: Lector reads EPUB and plain text. Convert it first, e.g. "
                + "pdftotext -layout \"\(name)\" \"\(base).txt\" (poppler-utils), "
                + "or ebook-convert \"\(name)\" \"\(base).epub\" (calibre)"
        }
    }

    public var errorDescription: String? { description }
}
