import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Generates the benchmark's large book in the run (nothing is committed): the same prose as an
/// EPUB 3 (one XHTML per chapter plus a nav document) and as a plain-text file with `Chapter N`
/// headings. The prose is deterministic (a fixed-seed generator over word lists), so every run
/// reads the same sentences, and varied enough to sound like prose to espeak-ng.
struct GeneratedBooks {
    let epub: URL
    let text: URL
    let chapters: Int
    /// Characters of chapter prose (headings and paragraphs, no markup), the same in both books.
    let proseBytes: Int
    let epubFileBytes: Int
    let textFileBytes: Int
    /// "deflate" when zlib could be loaded, else "stored".
    let compression: String
}

enum BookGenerator {
    static let title = "The Long Road to Harrow Bay"
    static let author = "Lector Player Bench"

    static func generate(into directory: URL, chapters: Int, bytesPerChapter: Int) throws -> GeneratedBooks {
        var prose = ProseGenerator(seed: 0x1ec7_0b00_c0ff_ee11)
        var chapterTitles: [String] = []
        var chapterParagraphs: [[String]] = []
        var proseBytes = 0
        for number in 1...chapters {
            let title = "Chapter \(number): \(prose.chapterTitle())"
            var paragraphs: [String] = []
            var size = title.utf8.count
            while size < bytesPerChapter {
                let paragraph = prose.paragraph()
                paragraphs.append(paragraph)
                size += paragraph.utf8.count + 1
            }
            chapterTitles.append(title)
            chapterParagraphs.append(paragraphs)
            proseBytes += size
        }

        // EPUB 3.
        let zip = ZipWriter()
        zip.add("mimetype", Data("application/epub+zip".utf8), compress: false)
        zip.add("META-INF/container.xml", Data("""
            <?xml version="1.0" encoding="UTF-8"?>
            <container version="1.0" xmlns="urn:oasis:names:tc:opendocument:xmlns:container">
              <rootfiles>
                <rootfile full-path="OEBPS/content.opf" media-type="application/oebps-package+xml"/>
              </rootfiles>
            </container>

            """.utf8))
        let names = (1...chapters).map { "chapter" + String(format: "%03d", $0) + ".xhtml" }
        var manifest = "    <item id=\"nav\" href=\"nav.xhtml\" media-type=\"application/xhtml+xml\" properties=\"nav\"/>\n"
        var spine = ""
        for (index, name) in names.enumerated() {
            manifest += "    <item id=\"c\(index + 1)\" href=\"\(name)\" media-type=\"application/xhtml+xml\"/>\n"
            spine += "    <itemref idref=\"c\(index + 1)\"/>\n"
        }
        zip.add("OEBPS/content.opf", Data("""
            <?xml version="1.0" encoding="UTF-8"?>
            <package xmlns="http://www.idpf.org/2007/opf" version="3.0" unique-identifier="bookid" xml:lang="en">
              <metadata xmlns:dc="http://purl.org/dc/elements/1.1/">
                <dc:identifier id="bookid">urn:uuid:5b0c2d4e-8f1a-4c3b-9d6e-0b3c1e2f4a5d</dc:identifier>
                <dc:title>\(title)</dc:title>
                <dc:creator>\(author)</dc:creator>
                <dc:language>en</dc:language>
                <meta property="dcterms:modified">2024-01-01T00:00:00Z</meta>
              </metadata>
              <manifest>
            \(manifest)  </manifest>
              <spine>
            \(spine)  </spine>
            </package>

            """.utf8))
        var toc = ""
        for (index, name) in names.enumerated() {
            toc += "      <li><a href=\"\(name)\">\(escape(chapterTitles[index]))</a></li>\n"
        }
        zip.add("OEBPS/nav.xhtml", Data("""
            <?xml version="1.0" encoding="UTF-8"?>
            <!DOCTYPE html>
            <html xmlns="http://www.w3.org/1999/xhtml" xmlns:epub="http://www.idpf.org/2007/ops" xml:lang="en" lang="en">
            <head><title>Contents</title></head>
            <body>
              <nav epub:type="toc" id="toc">
                <h1>Contents</h1>
                <ol>
            \(toc)    </ol>
              </nav>
            </body>
            </html>

            """.utf8))
        for (index, name) in names.enumerated() {
            var body = "  <h1>\(escape(chapterTitles[index]))</h1>\n"
            for paragraph in chapterParagraphs[index] { body += "  <p>\(escape(paragraph))</p>\n" }
            zip.add("OEBPS/" + name, Data("""
                <?xml version="1.0" encoding="UTF-8"?>
                <!DOCTYPE html>
                <html xmlns="http://www.w3.org/1999/xhtml" xml:lang="en" lang="en">
                <head><title>\(escape(chapterTitles[index]))</title></head>
                <body>
                <section>
                \(body)</section>
                </body>
                </html>

                """.utf8))
        }
        let epub = directory.appendingPathComponent("harrow-bay.epub")
        let epubData = zip.finish()
        try epubData.write(to: epub)

        // Plain text: "Chapter N" heading, its title on the next line, paragraphs hard-wrapped at 72
        // columns like a Project Gutenberg file.
        var text = ""
        for (index, paragraphs) in chapterParagraphs.enumerated() {
            let heading = chapterTitles[index]
            let colon = heading.firstIndex(of: ":")!
            text += "Chapter \(index + 1)\n" + heading[heading.index(colon, offsetBy: 2)...] + "\n\n"
            for paragraph in paragraphs { text += wrap(paragraph, width: 72) + "\n\n" }
            text += "\n"
        }
        let textURL = directory.appendingPathComponent("harrow-bay.txt")
        let textData = Data(text.utf8)
        try textData.write(to: textURL)

        return GeneratedBooks(epub: epub, text: textURL, chapters: chapters, proseBytes: proseBytes,
                              epubFileBytes: epubData.count, textFileBytes: textData.count,
                              compression: zip.compressionName)
    }

    static func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;")
    }

    static func wrap(_ paragraph: String, width: Int) -> String {
        var lines: [String] = []
        var line = ""
        for word in paragraph.split(separator: " ") {
            if !line.isEmpty && line.count + 1 + word.count > width {
                lines.append(line)
                line = ""
            }
            line += (line.isEmpty ? "" : " ") + word
        }
        if !line.isEmpty { lines.append(line) }
        return lines.joined(separator: "\n")
    }
}

/// Sentences from simple English patterns over word lists, with a fixed-seed SplitMix64.
struct ProseGenerator {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    private mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    private mutating func below(_ n: Int) -> Int { Int(next() % UInt64(n)) }
    private mutating func pick(_ words: [String]) -> String { words[below(words.count)] }
    private mutating func chance(_ percent: Int) -> Bool { below(100) < percent }

    static let names = ["Mara", "Tomas", "Elin", "the captain", "old Brennan", "the ferryman", "Ilse", "the doctor",
                        "Jonah", "the innkeeper", "her brother", "the stranger", "Aunt Wilhelmina", "the boy"]
    static let adjectives = ["grey", "quiet", "narrow", "cold", "distant", "bright", "heavy", "broken", "patient",
                             "silver", "crooked", "ancient", "restless", "pale", "warm", "hidden", "crowded", "bitter",
                             "gentle", "wide", "tired", "careful", "sudden", "empty", "familiar"]
    static let nouns = ["harbour", "road", "window", "letter", "lantern", "river", "bridge", "garden", "market",
                        "tower", "field", "kitchen", "storm", "wall", "boat", "hill", "map", "door", "village",
                        "forest", "station", "clock", "fire", "ship", "coat", "table", "song", "shadow", "path",
                        "morning", "evening", "rain", "wind", "stone", "letterbox", "staircase", "cellar", "orchard"]
    static let verbs = ["watched", "crossed", "found", "opened", "followed", "remembered", "carried", "mended",
                        "left", "reached", "passed", "painted", "counted", "searched", "closed", "answered",
                        "described", "noticed", "guarded", "visited", "measured", "forgot", "questioned", "lit"]
    static let intransitive = ["waited", "laughed", "hesitated", "listened", "slept", "walked on", "turned away",
                               "said nothing", "smiled", "shivered", "sat down", "looked up", "stood still"]
    static let prepositions = ["near", "beyond", "under", "behind", "beside", "across", "towards", "above", "along",
                               "past", "inside", "around"]
    static let adverbs = ["slowly", "at last", "again", "without a word", "in silence", "before dawn",
                          "for a long time", "once more", "as if nothing had happened", "with great care",
                          "by the light of the lamp", "long after midnight"]
    static let connectors = ["and", "but", "while", "because", "although", "so", "until", "as"]
    static let openers = ["That night", "In the morning", "Later", "For a while", "By noon", "Even then",
                          "After the storm", "Some years before", "At the edge of town", "Nobody knew why, but"]
    static let speech = ["We should go back before the tide turns", "I never saw the letter",
                         "Nobody crosses that bridge after dark", "Tell me what you found in the cellar",
                         "The clock has been wrong for years", "Keep the lantern burning until I return",
                         "You were right about the map", "There is another road beyond the hill"]

    mutating func chapterTitle() -> String {
        "The " + pick(Self.adjectives).capitalized + " " + pick(Self.nouns).capitalized
    }

    private mutating func nounPhrase() -> String {
        (chance(50) ? "the " : pick(["a ", "her ", "his ", "their ", "that "])) + (chance(60) ? pick(Self.adjectives) + " " : "")
            + pick(Self.nouns)
    }

    private mutating func clause() -> String {
        let subject = chance(55) ? pick(Self.names) : nounPhrase()
        switch below(4) {
        case 0: return "\(subject) \(pick(Self.verbs)) \(nounPhrase())"
        case 1: return "\(subject) \(pick(Self.verbs)) \(nounPhrase()) \(pick(Self.prepositions)) \(nounPhrase())"
        case 2: return "\(subject) \(pick(Self.intransitive)) \(pick(Self.adverbs))"
        default: return "\(subject) \(pick(Self.intransitive)) \(pick(Self.prepositions)) \(nounPhrase())"
        }
    }

    mutating func sentence() -> String {
        var text: String
        switch below(10) {
        case 0:
            return "\"" + pick(Self.speech) + (chance(30) ? "?\" asked " : ",\" said ") + pick(Self.names) + "."
        case 1, 2:
            text = pick(Self.openers) + ", " + clause()
        case 3, 4, 5:
            text = clause() + ", " + pick(Self.connectors) + " " + clause()
        default:
            text = clause()
            if chance(40) { text += " " + pick(Self.adverbs) }
        }
        let end = chance(8) ? "?" : (chance(5) ? "!" : ".")
        return text.prefix(1).uppercased() + text.dropFirst() + end
    }

    mutating func paragraph() -> String {
        (0..<(3 + below(5))).map { _ in sentence() }.joined(separator: " ")
    }
}

/// A minimal ZIP writer: entries deflated with the system zlib (loaded with dlopen, so the target
/// needs no new dependency) or stored when zlib is missing or does not help. `mimetype` must be
/// added first and uncompressed, as EPUB requires.
final class ZipWriter {
    private typealias Compress2 = @convention(c) (UnsafeMutablePointer<UInt8>?, UnsafeMutablePointer<UInt>?,
                                                  UnsafePointer<UInt8>?, UInt, Int32) -> Int32
    private typealias CompressBound = @convention(c) (UInt) -> UInt
    private static let zlib: (compress2: Compress2, bound: CompressBound)? = {
        guard let handle = dlopen("libz.so.1", RTLD_NOW) ?? dlopen("libz.so", RTLD_NOW),
              let compress = dlsym(handle, "compress2"), let bound = dlsym(handle, "compressBound") else { return nil }
        return (unsafeBitCast(compress, to: Compress2.self), unsafeBitCast(bound, to: CompressBound.self))
    }()

    private var data = Data()
    private var central = Data()
    private var count = 0
    var compressionName: String { Self.zlib == nil ? "stored" : "deflate" }

    func add(_ name: String, _ content: Data, compress: Bool = true) {
        let crc = CRC32.checksum(content)
        var method: UInt16 = 0
        var payload = content
        if compress, let deflated = Self.deflate(content), deflated.count < content.count {
            method = 8
            payload = deflated
        }
        let offset = UInt32(data.count)
        let nameBytes = Data(name.utf8)
        let dosTime: UInt16 = 0
        let dosDate: UInt16 = UInt16((2024 - 1980) << 9 | 1 << 5 | 1)

        var local = Data()
        local.le32(0x0403_4b50); local.le16(20); local.le16(0); local.le16(method); local.le16(dosTime)
        local.le16(dosDate); local.le32(crc); local.le32(UInt32(payload.count)); local.le32(UInt32(content.count))
        local.le16(UInt16(nameBytes.count)); local.le16(0)
        data.append(local); data.append(nameBytes); data.append(payload)

        central.le32(0x0201_4b50); central.le16(20); central.le16(20); central.le16(0); central.le16(method)
        central.le16(dosTime); central.le16(dosDate); central.le32(crc); central.le32(UInt32(payload.count))
        central.le32(UInt32(content.count)); central.le16(UInt16(nameBytes.count)); central.le16(0); central.le16(0)
        central.le16(0); central.le16(0); central.le32(0); central.le32(offset)
        central.append(nameBytes)
        count += 1
    }

    func finish() -> Data {
        var result = data
        let centralOffset = UInt32(result.count)
        result.append(central)
        result.le32(0x0605_4b50); result.le16(0); result.le16(0); result.le16(UInt16(count)); result.le16(UInt16(count))
        result.le32(UInt32(central.count)); result.le32(centralOffset); result.le16(0)
        return result
    }

    /// zlib's compress2 writes a zlib stream: a 2-byte header, raw deflate, a 4-byte Adler-32.
    /// ZIP wants the raw deflate in the middle.
    private static func deflate(_ content: Data) -> Data? {
        guard let zlib, !content.isEmpty else { return nil }
        var capacity = zlib.bound(UInt(content.count))
        var output = [UInt8](repeating: 0, count: Int(capacity))
        let status = content.withUnsafeBytes { source in
            output.withUnsafeMutableBufferPointer { target in
                zlib.compress2(target.baseAddress, &capacity,
                               source.bindMemory(to: UInt8.self).baseAddress, UInt(content.count), 9)
            }
        }
        guard status == 0, capacity > 6 else { return nil }
        return Data(output[2..<(Int(capacity) - 4)])
    }
}

enum CRC32 {
    private static let table: [UInt32] = (0..<256).map { index -> UInt32 in
        var value = UInt32(index)
        for _ in 0..<8 { value = value & 1 == 1 ? 0xEDB8_8320 ^ (value >> 1) : value >> 1 }
        return value
    }

    static func checksum(_ data: Data) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        data.withUnsafeBytes { bytes in
            for byte in bytes { crc = table[Int((crc ^ UInt32(byte)) & 0xFF)] ^ (crc >> 8) }
        }
        return crc ^ 0xFFFF_FFFF
    }
}

extension Data {
    mutating func le16(_ value: UInt16) { Swift.withUnsafeBytes(of: value.littleEndian) { append(contentsOf: $0) } }
    mutating func le32(_ value: UInt32) { Swift.withUnsafeBytes(of: value.littleEndian) { append(contentsOf: $0) } }
}
