import XCTest
@testable import LectorBooks

final class ZZBenchTemp: XCTestCase {
    func testBench() throws {
        let url = URL(fileURLWithPath: "/tmp/live-manual/usr/share/doc/live-manual/epub/live-manual.en.epub")
        let archive = try EPUBArchive(file: url, limits: .default)
        let docs = try TagSoupEquivalenceTests.contentDocuments(url).map { ($0, try archive.data(at: $0)) }
        var strictTime = 0.0, lenientTime = 0.0, decodeTime = 0.0, bytes = 0
        for (path, data) in docs where !path.contains("metadata") {
            bytes += data.count
            var t = Date()
            _ = try XHTMLTextExtractor.extractStrictly(data, path: path, file: url, options: .init())
            strictTime += Date().timeIntervalSince(t)
            t = Date()
            let text = try TagSoupParser.decode(data)
            decodeTime += Date().timeIntervalSince(t)
            t = Date()
            _ = XHTMLTextExtractor.extractLeniently(text, path: path, options: .init())
            lenientTime += Date().timeIntervalSince(t)
        }
        print("BENCH bytes \(bytes) strict \(strictTime * 1000) ms decode \(decodeTime * 1000) ms lenient \(lenientTime * 1000) ms")
    }
}
