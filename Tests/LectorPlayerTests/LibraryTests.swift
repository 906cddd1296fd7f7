import Foundation
import LectorTestKit
import XCTest

/// The library (issue 13): recent books with progress, time left and last listened, through
/// Narrator1.GetLibrary and `lector library`; a moved file is shown as missing; a corrupt entry
/// is set aside and reported; `--forget` takes a book out; without a daemon the files answer.
final class LibraryTests: XCTestCase {
    private func lines(_ text: String) -> [[String]] {
        text.split(separator: "\n").map { $0.split(separator: "\t", omittingEmptySubsequences: false).map(String.init) }
    }

    func testTheLibraryListsBooksWithProgressShowsMissingOnesReportsCorruptEntriesAndForgets() throws {
        let fixture = try PlayerFixture()
        defer { fixture.shutdown() }
        let river = try TextBooks.write(TextBooks.runOnChapters, named: "river.txt", in: fixture.session.directory)
        let short = try TextBooks.write(TextBooks.threeShortChapters, named: "short.txt", in: fixture.session.directory)

        let empty = try fixture.cli("library")
        XCTAssertEqual(empty.status, 0, "\(empty)")
        XCTAssertTrue(empty.stdout.contains("The library is empty"), "\(empty)")

        try fixture.openAndHear(river)
        XCTAssertTrue(try poll(timeout: 10) { try fixture.position() > 3_000_000 }, fixture.context)
        XCTAssertTrue(try fixture.playerctl("pause").succeeded)
        try fixture.openAndHear(short)
        Thread.sleep(forTimeInterval: 1)
        XCTAssertTrue(try fixture.playerctl("pause").succeeded)

        // Piped: tab-separated, most recently heard first, the open book marked.
        var listed = try fixture.cli("library")
        XCTAssertEqual(listed.status, 0, "\(listed)\(fixture.context)")
        var rows = lines(listed.stdout)
        XCTAssertEqual(rows.count, 2, "\(listed)")
        XCTAssertEqual(rows.map { $0.count }, [7, 7], "title, authors, progress, left, listened, state, path: \(rows)")
        XCTAssertEqual(rows[0][6], short.path)
        XCTAssertEqual(rows[0][5], "open")
        XCTAssertEqual(rows[1][6], river.path)
        XCTAssertEqual(rows[1][5], "-")
        let riverProgress = try XCTUnwrap(Int(rows[1][2].dropLast()), "progress \(rows[1][2])")
        XCTAssertGreaterThan(riverProgress, 0, "3 s into a 40 s book")
        XCTAssertLessThan(riverProgress, 50)
        XCTAssertFalse(rows[1][3].isEmpty, "time left")
        XCTAssertNotNil(ISO8601DateFormatter().date(from: rows[1][4]), "last listened: \(rows[1][4])")

        // Over the bus: the documented keys.
        let call = try fixture.call(PlayerFixture.narrator, "GetLibrary", path: PlayerFixture.narratorPath)
        XCTAssertTrue(call.succeeded, "\(call)")
        for key in ["'path'", "'title'", "'authors'", "'progress'", "'time-left'", "'listened-at'", "'missing'", "'open'", "'rate'"] {
            XCTAssertTrue(call.stdout.contains(key), "GetLibrary lacks \(key): \(call.stdout)")
        }

        // Moved away: shown as missing, not dropped. A damaged entry: set aside and reported.
        let away = river.deletingLastPathComponent().appendingPathComponent("elsewhere.txt")
        try FileManager.default.moveItem(at: river, to: away)
        let libraryDirectory = URL(fileURLWithPath: fixture.session.environment["XDG_STATE_HOME"]!)
            .appendingPathComponent("lector/library", isDirectory: true)
        try Data("{ damaged".utf8).write(to: libraryDirectory.appendingPathComponent("0123456789abcdef.json"))
        listed = try fixture.cli("library")
        XCTAssertEqual(listed.status, 0, "\(listed)")
        rows = lines(listed.stdout)
        XCTAssertEqual(rows.first { $0.last == river.path }?[5], "missing", "\(listed)")
        XCTAssertTrue(listed.stderr.contains("unreadable") && listed.stderr.contains("set aside"), "\(listed)")
        let names = try FileManager.default.contentsOfDirectory(atPath: libraryDirectory.path)
        XCTAssertTrue(names.contains { $0.hasPrefix("0123456789abcdef.json.corrupt-") }, "\(names)")
        XCTAssertEqual(try fixture.cli("library").stderr, "", "reported once")

        // Forget: by the (gone) file, and an unknown name changes nothing.
        let unknown = try fixture.cli("library", "--forget", "No Such Book")
        XCTAssertEqual(unknown.status, 1, "\(unknown)")
        XCTAssertTrue(unknown.stderr.contains("no book called") && unknown.stderr.contains("NotFound"), "\(unknown)")
        fixture.assertError(try fixture.call(PlayerFixture.narrator, "ForgetBook", ["'No Such Book'"], path: PlayerFixture.narratorPath),
                            "NotFound", "ForgetBook")
        fixture.assertError(try fixture.call(PlayerFixture.narrator, "ForgetBook", ["''"], path: PlayerFixture.narratorPath),
                            "InvalidArgument", "ForgetBook ''")
        XCTAssertEqual(lines(try fixture.cli("library").stdout).count, 2, "nothing changed")
        let forgot = try fixture.cli("library", "--forget", river.path)
        XCTAssertEqual(forgot.status, 0, "\(forgot)")
        XCTAssertTrue(forgot.stdout.contains(river.path), "\(forgot)")
        rows = lines(try fixture.cli("library").stdout)
        XCTAssertEqual(rows.map { $0[6] }, [short.path])

        // No daemon: the files answer, and none is started.
        fixture.daemon.send(signal: SIGTERM)
        XCTAssertEqual(fixture.daemon.waitForExit(timeout: 10), 0, fixture.context)
        listed = try fixture.cli("library")
        XCTAssertEqual(listed.status, 0, "\(listed)")
        rows = lines(listed.stdout)
        XCTAssertEqual(rows.map { $0[6] }, [short.path], "\(listed)")
        XCTAssertEqual(rows.first?[5], "-", "not open: no daemon")
        XCTAssertFalse(try fixture.session.busNameHasOwner(PlayerFixture.mprisName), "lector library started a daemon")
        let offline = try fixture.cli("library", "--forget", short.path)
        XCTAssertEqual(offline.status, 0, "\(offline)")
        XCTAssertTrue(try fixture.cli("library").stdout.contains("The library is empty"))
        XCTAssertFalse(try fixture.session.busNameHasOwner(PlayerFixture.mprisName))
    }
}
