import Foundation
import LectorCore
import LectorXML

/// The entry point: opens a book file as a `BookOutline`, deciding by its first bytes whether it
/// is an EPUB (a ZIP archive) or plain text.
///
/// A PDF is refused as one (`pdf`, with how to convert it), whatever its name; a file named
/// `.epub` that is not a ZIP is refused as `notAZip`; any other non-ZIP file is read as plain
/// text (`.txt`, `.md`, no extension at all), which refuses binary data by itself.
///
///     let outline = try BookReader.open(URL(fileURLWithPath: "alice.txt"))
///     outline.format                  // .plainText
///     outline.chapters.map(\.title)    // e.g. ["CHAPTER I. Down the Rabbit-Hole", "CHAPTER II. The Pool of Tears", …]
public enum BookReader {
    static let zipSignatures: [[UInt8]] = [[0x50, 0x4B, 0x03, 0x04], [0x50, 0x4B, 0x05, 0x06], [0x50, 0x4B, 0x07, 0x08]]

    /// `cancellation` stops the parse (and, kept in the outline, every later one of this book);
    /// the whole open runs on one CPU budget unless the caller's `XMLParseScope` already set one.
    public static func open(_ url: URL, limits: BookLimits = .default, options: BookReadingOptions = .default,
                            cancellation: ParseCancellation? = nil) throws(BookError) -> BookOutline {
        var outline = try XMLParseScope.within(cancellation: cancellation) { () throws(BookError) in
            try openUnguarded(url, limits: limits, options: options)
        }
        outline.cancellation = cancellation
        return outline
    }

    private static func openUnguarded(_ url: URL, limits: BookLimits, options: BookReadingOptions) throws(BookError) -> BookOutline {
        let file = url.standardizedFileURL
        let size = try fileSize(file)
        guard size > 0 else { throw .emptyFile(file: file) }
        let head: [UInt8]
        do {
            let handle = try FileHandle(forReadingFrom: file)
            defer { try? handle.close() }
            head = [UInt8](try handle.read(upToCount: pdfHeaderWindow) ?? Data())
        } catch {
            throw .unreadable(file: file, reason: "\(error)")
        }
        if isPDF(head) { throw .pdf(file: file) }
        if zipSignatures.contains(Array(head.prefix(4))) {
            return try EPUBOpener.open(file, limits: limits, options: options)
        }
        if file.pathExtension.lowercased() == "epub" { throw .notAZip(file: file) }
        return try openPlainText(file, size: size, limits: limits)
    }

    /// PDF readers accept the `%PDF-` header anywhere in the first 1024 bytes.
    static let pdfHeaderWindow = 1024

    /// `%PDF-` at the start of the file or of a line within `pdfHeaderWindow` bytes (readers
    /// accept junk before it); text that merely mentions "%PDF-" inside a line is still text.
    public static func isPDF(_ head: [UInt8]) -> Bool {
        let magic = Array("%PDF-".utf8)
        guard head.count >= magic.count else { return false }
        for start in 0...(head.count - magic.count) where start == 0 || head[start - 1] == 0x0A || head[start - 1] == 0x0D {
            if Array(head[start..<start + magic.count]) == magic { return true }
        }
        return false
    }

    /// The size of the file `file` names, following symbolic links (`attributesOfItem` does not:
    /// it gave the link's own size, which let a link to a huge text file past `maxEntrySize`).
    /// Only regular files are books: a FIFO or a device has no size to check and may never end.
    static func fileSize(_ file: URL) throws(BookError) -> UInt64 {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: file.path, isDirectory: &isDirectory) else {
            throw .unreadable(file: file, reason: "no such file")
        }
        if isDirectory.boolValue { throw .isDirectory(file: file) }
        var status = stat()
        guard stat(file.path, &status) == 0 else {
            throw .unreadable(file: file, reason: String(cString: strerror(errno)))
        }
        switch status.st_mode & S_IFMT {
        case S_IFREG: return UInt64(max(0, status.st_size))
        case S_IFIFO: throw .notARegularFile(file: file, kind: "FIFO (named pipe)")
        case S_IFCHR: throw .notARegularFile(file: file, kind: "character device")
        case S_IFBLK: throw .notARegularFile(file: file, kind: "block device")
        case S_IFSOCK: throw .notARegularFile(file: file, kind: "socket")
        default: throw .notARegularFile(file: file, kind: "special file")
        }
    }

    private static func openPlainText(_ file: URL, size: UInt64, limits: BookLimits) throws(BookError) -> BookOutline {
        let fallbackTitle = file.deletingPathExtension().lastPathComponent
        if size <= limits.maxEntrySize, let scanned = try scanPlainText(file, fallbackTitle: fallbackTitle, limits: limits) {
            return try outline(of: file, layout: scanned.layout, encoding: scanned.encoding, identity: scanned.identity,
                               kept: .file(skipping: scanned.skipping), limits: limits)
        }
        let (text, encoding, identity) = try readPlainText(file, size: size, limits: limits)
        let layout = PlainTextLayout(text: text, fallbackTitle: fallbackTitle)
        return try outline(of: file, layout: layout, encoding: encoding, identity: identity, kept: .decoded(text), limits: limits)
    }

    /// A UTF-8 file laid out as it is read, 1 MiB at a time, so its text is never held whole;
    /// its chapters' checksums from a second read, which also checks that the file did not
    /// change in between. Nil when the file is not UTF-8; `skipping` is its byte order mark.
    private static func scanPlainText(_ file: URL, fallbackTitle: String, limits: BookLimits) throws(BookError)
        -> (layout: PlainTextLayout, encoding: TextEncoding, identity: String, skipping: Int)? {
        var scanner = PlainTextLayout.Scanner()
        guard let read = try PlainTextDecoder.scanUTF8(file, limit: limits.maxEntrySize, { scanner.add($0) }) else { return nil }
        var layout = PlainTextLayout(blocks: scanner.finish(), fallbackTitle: fallbackTitle)
        let skipping = read.encoding == .utf8WithByteOrderMark ? 3 : 0
        let hashes = try PlainTextDecoder.hashes(of: file, skipping: skipping, ranges: layout.chapters.map(\.utf8Range))
        guard hashes.file == read.hash else {
            throw .unreadable(file: file, reason: "the file changed while it was being opened; open it again")
        }
        for index in layout.chapters.indices { layout.chapters[index].checksum = hashes.ranges[index] }
        return (layout, read.encoding, ContentHash.identity(hex: StableHash.hex(read.hash)), skipping)
    }

    private static func outline(of file: URL, layout: PlainTextLayout, encoding: TextEncoding, identity: String,
                                kept: PlainTextChapterSource.Text, limits: BookLimits) throws(BookError) -> BookOutline {
        guard !layout.chapters.isEmpty else { throw .emptyBook(file: file) }
        let source = PlainTextChapterSource(file: file, text: kept, chapters: layout.chapters, limits: limits)
        return BookOutline(
            sourceURL: file, identity: identity, title: layout.title,
            authors: [], language: nil, format: .plainText, textEncoding: encoding,
            // A chapter with no text speaks its title: its length is only known once read.
            chapters: layout.chapters.enumerated().map {
                ChapterEntry(index: $0, title: $1.title, depth: 0, scalarCount: $1.scalarCount > 0 ? $1.scalarCount : nil)
            },
            source: source)
    }

    /// A plain-text file's decoded text and identity, refused past `limits.maxEntrySize` before
    /// it is read (`size` from `fileSize`, looked up again when not given) and after: the
    /// encodings other than UTF-8, through the file's bytes (UTF-8 is `scanPlainText`'s).
    static func readPlainText(_ file: URL, size knownSize: UInt64? = nil,
                              limits: BookLimits) throws(BookError) -> (text: String, encoding: TextEncoding, identity: String) {
        let size: UInt64
        if let knownSize { size = knownSize } else { size = try fileSize(file) }
        let data: Data
        if size <= limits.maxEntrySize {
            do {
                data = try Data(contentsOf: file)
            } catch {
                throw .unreadable(file: file, reason: "\(error)")
            }
        } else {
            data = Data()
        }
        guard size <= limits.maxEntrySize, UInt64(data.count) <= limits.maxEntrySize else {
            throw .tooLarge(file: file, violation: .entry(path: file.lastPathComponent, size: max(size, UInt64(data.count)),
                                                          limit: limits.maxEntrySize))
        }
        let identity = ContentHash.identity(hex: ContentHash.fnv1a64(of: data))
        let (text, encoding) = try PlainTextDecoder.decode(data, file: file)
        return (text, encoding, identity)
    }
}
