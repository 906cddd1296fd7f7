import Foundation
@testable import LectorCommandLine
import XCTest

/// What the CLI and lector-tools share, on FoundationEssentials and Glibc alone.
final class CommandLineTests: XCTestCase {
    /// The log of a daemon the CLI started is appended to until it passes `logLimit`, then
    /// started over (its size read with stat: FileManager's size is no `Int` without Foundation).
    func testTheDaemonLogStartsOverPastItsLimit() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("lector-log-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let log = directory.appendingPathComponent("state/lector/lector.log").path
        func write(_ text: String) throws {
            let fd = DaemonLauncher.openLog(log)
            XCTAssertGreaterThanOrEqual(fd, 0, "open \(log)")
            defer { close(fd) }
            XCTAssertEqual(text.utf8.withContiguousStorageIfAvailable { Glibc.write(fd, $0.baseAddress, $0.count) }, text.utf8.count)
        }
        try write("first\n")
        try write("second\n")
        XCTAssertEqual(try String(contentsOfFile: log, encoding: .utf8), "first\nsecond\n", "appended, the directory made")
        try write(String(repeating: "x", count: DaemonLauncher.logLimit) + "\n")
        try write("over\n")
        XCTAssertEqual(try String(contentsOfFile: log, encoding: .utf8), "over\n", "started over past the limit")
    }

    func testShellQuoting() {
        XCTAssertEqual(CommandText.shellQuoted("/books/anna.txt"), "/books/anna.txt")
        XCTAssertEqual(CommandText.shellQuoted("/книги/Анна.txt"), "/книги/Анна.txt", "letters of any script need no quotes")
        XCTAssertEqual(CommandText.shellQuoted("Moby Dick.epub"), "'Moby Dick.epub'")
        XCTAssertEqual(CommandText.shellQuoted("it's"), "'it'\\''s'")
        XCTAssertEqual(CommandText.shellQuoted("a'\u{301}b"), "'a'\\''\u{301}b'", "a quote with a combining mark is still a quote")
        XCTAssertEqual(CommandText.shellQuoted(""), "''")
        XCTAssertEqual(CommandText.voiceFix(suggested: "Russian", url: "file:///books/anna%20k.txt"),
                       "Fix: lector read '/books/anna k.txt' --voice Russian")
        XCTAssertNil(CommandText.voiceFix(suggested: "", url: nil))
    }

    func testTablesPadByCharacterAndDropTrailingBlanks() {
        XCTAssertEqual(Table.render(header: ["#", "TITLE", "X"], rows: [["1", "Café", ""], ["12", "👩‍👩‍👧 family", "y"]]),
                       "#   TITLE     X\n1   Café\n12  👩‍👩‍👧 family  y")
    }
}
