import XCTest
import LectorBooks

final class ZZDumpTemp: XCTestCase {
    func testDump() throws {
        guard let path = ProcessInfo.processInfo.environment["DUMP_BOOK"] else { throw XCTSkip("") }
        let outline = try BookReader.open(URL(fileURLWithPath: path))
        var out = "TITLE \(outline.title) | \(outline.authors) | \(outline.language ?? "-") | cover \(outline.hasCover) | warnings \(outline.warnings)\n"
        for entry in outline.chapters {
            let chapter = try outline.loadChapter(entry.index)
            out += "\n===== [\(entry.index)] depth \(entry.depth) \(entry.title) warnings=\(chapter.warnings)\n\(chapter.text)\n"
        }
        try out.write(toFile: "/tmp/dump.txt", atomically: true, encoding: .utf8)
    }
}
