import Foundation
import LectorTestKit
import XCTest

/// Entity attacks (issue 21) opened through the daemon as a file manager's "Open with Lector"
/// would: each is refused by name, leaves neither memory nor a busy core behind, and a normal
/// book opened right after plays. Before the guard one billion-laughs OPF took 129 s of a core
/// and 300 MB, and twelve of them kept the open path busy for minutes. Times are printed (the
/// figures are in docs/fuzzing.md), not asserted; memory and CPU left behind are.
final class EntityAttackTests: XCTestCase {
    /// What the daemon may still hold after a refused open, over where it stood before it (the
    /// books' own sizes differ, so the allocator's high-water mark moves a little with each).
    static let allowanceKiB = 5 * 1024
    static let allowanceAfterTwelveKiB = 10 * 1024

    /// Every expanding form in every document the open path reads (a lexicon is read with the
    /// chapter and only costs its words, see LectorBooksTests' EntityExpansionTests).
    static var refusedBooks: [HostileEntityBook] {
        EntityAttack.allCases.filter(\.mustBeRefused).flatMap { attack in
            [HostileEntityBook.Document.container, .opf, .nav, .ncx, .chapter].map { HostileEntityBook(attack: attack, in: $0) }
        }
    }

    private func write(_ book: HostileEntityBook, in fixture: PlayerFixture) throws -> URL {
        let url = fixture.session.directory.appendingPathComponent("\(book.attack.rawValue)-\(book.document.rawValue).epub")
        try book.write(to: url)
        return url
    }

    /// Narrator1.Open by a gdbus of its own, not waited for: its answer comes with its exit.
    private func openInBackground(_ url: URL, options: String, in fixture: PlayerFixture) throws -> ManagedProcess {
        try fixture.session.spawn("gdbus", ["call", "--session", "--dest", PlayerFixture.mprisName,
                                            "--object-path", PlayerFixture.narratorPath,
                                            "--method", "\(PlayerFixture.narrator).Open",
                                            PlayerFixture.quoted(url.absoluteString), options])
    }

    private func normalBook(_ fixture: PlayerFixture) throws -> URL {
        try TextBooks.write(TextBooks.threeShortChapters, named: "normal.txt", in: fixture.session.directory)
    }

    func testEachFormIsRefusedByNameAndTheNextBookPlays() throws {
        let fixture = try PlayerFixture()
        defer { fixture.shutdown() }
        let normal = try normalBook(fixture)
        // Warm the open path once so that its first-use allocations are not counted as left behind.
        try fixture.open(normal, play: false)
        let pid = fixture.daemon.pid
        let first = try XCTUnwrap(ProcessProbe.residentKiB(pid))
        var worst = 0
        for book in Self.refusedBooks {
            let url = try write(book, in: fixture)
            let before = try XCTUnwrap(ProcessProbe.residentKiB(pid))
            let started = Date()
            let result = try fixture.openCall(url.absoluteString, options: "{'play': <false>}")
            let seconds = Date().timeIntervalSince(started)
            let after = try XCTUnwrap(ProcessProbe.residentKiB(pid))
            worst = max(worst, after - before)
            print("entity attack \(book.attack.rawValue) in \(book.document.rawValue): refused in "
                  + String(format: "%.1f ms", seconds * 1000) + ", RSS \(before) → \(after) kB")
            fixture.assertError(result, "BadBook", "\(book.attack.rawValue) in \(book.document.rawValue)")
            XCTAssertTrue(result.stderr.contains(book.document.path) && result.stderr.contains("declares entities that"),
                          "the error names the document and what it does: \(result.stderr)")
            XCTAssertLessThanOrEqual(after, before + Self.allowanceKiB,
                                     "\(book.attack.rawValue) in \(book.document.rawValue) left \(after - before) kB behind")
        }
        let last = try XCTUnwrap(ProcessProbe.residentKiB(pid))
        print("entity attacks: \(Self.refusedBooks.count) refused; RSS \(first) → \(last) kB over all of them, "
              + "at most \(worst) kB more after one")
        XCTAssertTrue(fixture.daemon.isRunning, fixture.daemon.output)
        try fixture.openAndHear(normal)
    }

    /// `lector phonemes --book` reads through the same guarded reader: a message and exit 1.
    func testPhonemesOfAHostileBookSayWhy() throws {
        let fixture = try PlayerFixture()
        defer { fixture.shutdown() }
        let url = try write(HostileEntityBook(attack: .billionLaughs, in: .chapter), in: fixture)
        let result = try fixture.cli("phonemes", "--book", url.path)
        XCTAssertEqual(result.status, 1, "\(result)")
        XCTAssertTrue(result.stderr.contains("OEBPS/c1.xhtml declares entities that expand to more than"), result.stderr)
    }

    /// Twelve hostile opens sent at once (each superseding the one before): every caller gets an
    /// answer, nothing keeps parsing afterwards (CPU back to idle), memory stays near idle, and
    /// the next book plays.
    func testTwelveHostileOpensInARowLeaveNothingBehind() throws {
        let fixture = try PlayerFixture()
        defer { fixture.shutdown() }
        let normal = try normalBook(fixture)
        try fixture.open(normal, play: false)
        let pid = fixture.daemon.pid
        let idle = try XCTUnwrap(ProcessProbe.residentKiB(pid))
        let books = Array(Self.refusedBooks.prefix(12))
        XCTAssertEqual(books.count, 12)
        let urls = try books.map { try write($0, in: fixture) }
        let started = Date()
        let callers = try urls.map { url in
            try openInBackground(url, options: "{'play': <false>}", in: fixture)
        }
        var peak = idle
        for caller in callers {
            while caller.isRunning, Date().timeIntervalSince(started) < 30 {
                if let rss = ProcessProbe.residentKiB(pid) { peak = max(peak, rss) }
                usleep(2_000)
            }
            XCTAssertNotNil(caller.waitForExit(timeout: 1), "an Open got no answer")
            XCTAssertNotEqual(caller.exitStatus, 0, "a hostile book was opened: \(caller.output)")
            let error = caller.standardError
            XCTAssertTrue(error.contains("io.github.lector.Error.BadBook") || error.contains("io.github.lector.Error.Superseded"),
                          "refused, but not by name: \(error)")
        }
        let answered = Date().timeIntervalSince(started)
        let ticksBefore = try XCTUnwrap(ProcessProbe.cpuTicks(pid))
        Thread.sleep(forTimeInterval: 2)
        let ticksAfter = try XCTUnwrap(ProcessProbe.cpuTicks(pid))
        let after = try XCTUnwrap(ProcessProbe.residentKiB(pid))
        print("twelve hostile opens: all answered in " + String(format: "%.0f ms", answered * 1000)
              + "; RSS idle \(idle) kB, peak \(peak) kB, after \(after) kB; CPU in the next 2 s: \(ticksAfter - ticksBefore) ticks")
        // An idle daemon uses no CPU; a parse left running would use 200 ticks in 2 s.
        XCTAssertLessThanOrEqual(ticksAfter - ticksBefore, 10, "the daemon kept working after answering")
        XCTAssertLessThanOrEqual(peak, idle + Self.allowanceAfterTwelveKiB, "RSS peaked \(peak - idle) kB over idle")
        XCTAssertLessThanOrEqual(after, idle + Self.allowanceAfterTwelveKiB, "RSS stayed \(after - idle) kB over idle")
        try fixture.openAndHear(normal)
    }

    /// A legitimate but slow parse (a 6-MB chapter of small elements) superseded by a second
    /// Open: its parse is stopped (the first caller hears Superseded long before the parse could
    /// have finished), and the second book plays.
    func testASupersededOpenStopsItsParse() throws {
        let fixture = try PlayerFixture()
        defer { fixture.shutdown() }
        let normal = try normalBook(fixture)
        let words = String(repeating: "<span>word</span> ", count: 330_000)
        let slow = fixture.session.directory.appendingPathComponent("slow.epub")
        try EPUBWriter.slowToParse(identifier: "urn:uuid:slow-parse", body: "<p>\(words)</p>").write(to: slow)
        // How long the slow book takes alone, for comparison.
        let alone = Date()
        XCTAssertTrue(try fixture.openCall(slow.absoluteString, options: "{'play': <false>, 'from-start': <true>}").succeeded)
        let parseSeconds = Date().timeIntervalSince(alone)

        let again = fixture.session.directory.appendingPathComponent("slow-again.epub")
        try FileManager.default.copyItem(at: slow, to: again)
        let first = try openInBackground(again, options: "{'play': <false>, 'from-start': <true>}", in: fixture)
        Thread.sleep(forTimeInterval: min(0.3, parseSeconds / 4))
        let second = Date()
        try fixture.openAndHear(normal)
        XCTAssertNotNil(first.waitForExit(timeout: 10), "the superseded Open got no answer")
        let firstAnswered = Date().timeIntervalSince(second)
        print("slow book parsed alone in " + String(format: "%.0f ms", parseSeconds * 1000) + "; superseded, its Open answered "
              + String(format: "%.0f ms", firstAnswered * 1000) + " after the second Open")
        // Said only when the parse itself was cut short; a parse left to finish says just "superseded".
        XCTAssertTrue(first.standardError.contains("io.github.lector.Error.Superseded")
                      && first.standardError.contains("its parse was stopped"), first.output)
        let ticksBefore = try XCTUnwrap(ProcessProbe.cpuTicks(fixture.daemon.pid))
        Thread.sleep(forTimeInterval: 1)
        let ticksAfter = try XCTUnwrap(ProcessProbe.cpuTicks(fixture.daemon.pid))
        print("superseded parse: CPU in the next second while narrating \(ticksAfter - ticksBefore) ticks")
    }
}
