import Foundation
import LectorTestKit

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
    /// How the EPUB's documents are compressed ("deflate", by ZIPFoundation).
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
        let names = (1...chapters).map { "chapter" + String(format: "%03d", $0) + ".xhtml" }
        var manifest = "    <item id=\"nav\" href=\"nav.xhtml\" media-type=\"application/xhtml+xml\" properties=\"nav\"/>\n"
        var spine = ""
        for (index, name) in names.enumerated() {
            manifest += "    <item id=\"c\(index + 1)\" href=\"\(name)\" media-type=\"application/xhtml+xml\"/>\n"
            spine += "    <itemref idref=\"c\(index + 1)\"/>\n"
        }
        var epubWriter = EPUBWriter.standard(opf: """
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

            """)
        var toc = ""
        for (index, name) in names.enumerated() {
            toc += "      <li><a href=\"\(name)\">\(escape(chapterTitles[index]))</a></li>\n"
        }
        epubWriter = epubWriter.adding("OEBPS/nav.xhtml", """
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

            """)
        for (index, name) in names.enumerated() {
            var body = "  <h1>\(escape(chapterTitles[index]))</h1>\n"
            for paragraph in chapterParagraphs[index] { body += "  <p>\(escape(paragraph))</p>\n" }
            epubWriter = epubWriter.adding("OEBPS/" + name, """
                <?xml version="1.0" encoding="UTF-8"?>
                <!DOCTYPE html>
                <html xmlns="http://www.w3.org/1999/xhtml" xml:lang="en" lang="en">
                <head><title>\(escape(chapterTitles[index]))</title></head>
                <body>
                <section>
                \(body)</section>
                </body>
                </html>

                """)
        }
        let epub = directory.appendingPathComponent("harrow-bay.epub")
        let epubBytes = try epubWriter.write(to: epub)

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
                              epubFileBytes: epubBytes, textFileBytes: textData.count, compression: "deflate")
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
    private var random: SplitMix64

    init(seed: UInt64) { random = SplitMix64(seed: seed) }

    private mutating func below(_ n: Int) -> Int { Int(random.next() % UInt64(n)) }
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

extension Data {
    mutating func le16(_ value: UInt16) { Swift.withUnsafeBytes(of: value.littleEndian) { append(contentsOf: $0) } }
    mutating func le32(_ value: UInt32) { Swift.withUnsafeBytes(of: value.littleEndian) { append(contentsOf: $0) } }
}
