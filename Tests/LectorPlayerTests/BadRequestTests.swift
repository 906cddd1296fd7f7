import Foundation
import LectorTestKit
import XCTest

/// What the D-Bus fuzzer found: every mistake a client can make gets a specific error name and
/// a message that says what to change, and the daemon goes on.
final class BadRequestTests: XCTestCase {
    private static let python = "/usr/bin/python3"

    func testNoBookOpenIsNoBookNotAMissingChapter() throws {
        let fixture = try PlayerFixture()
        defer { fixture.shutdown() }
        let text = try fixture.call(PlayerFixture.narrator, "GetChapterText", ["0"], path: PlayerFixture.narratorPath)
        fixture.assertError(text, "NoBook", "GetChapterText without a book")
        let goTo = try fixture.busCall(PlayerFixture.trackList, "GoTo", ["o", "/io/github/lector/Track/b0/c0"])
        XCTAssertFalse(goTo.succeeded, "GoTo without a book: \(goTo)")
        XCTAssertTrue(goTo.stderr.contains("no book is open"), "GoTo without a book: \(goTo)")
    }

    /// `read --chapter 9` of a 3-chapter book names 9 (the bus option is 0-based, the CLI 1-based:
    /// an ordinal reads right for both), fails with 1, and the book being read goes on.
    func testAChapterPastTheEndIsNamedAsAskedAndNothingIsLost() throws {
        let fixture = try PlayerFixture()
        defer { fixture.shutdown() }
        let playing = try TextBooks.write(TextBooks.runOnChapters, named: "river.txt", in: fixture.session.directory)
        try fixture.openAndHear(playing)
        let track = try fixture.trackID()
        let three = try TextBooks.write(TextBooks.threeShortChapters, named: "three.txt", in: fixture.session.directory)

        let read = try fixture.cli("read", three.path, "--chapter", "9")
        XCTAssertEqual(read.status, 1, "\(read)")
        XCTAssertTrue(read.stderr.contains("three.txt has 3 chapters; there is no 9th chapter"), "\(read)")
        let message = read.stderr.replacingOccurrences(of: fixture.session.directory.path, with: "")
        XCTAssertNil(message.range(of: #"\b8(th)?\b"#, options: .regularExpression), "the message must not name the 0-based 8: \(read)")
        let bus = try fixture.openCall(three.absoluteString, options: "{'chapter': <uint32 8>}")
        fixture.assertError(bus, "InvalidArgument", "Open with chapter 8 (0-based)")
        XCTAssertTrue(bus.stderr.contains("no 9th chapter"), "\(bus)")

        XCTAssertEqual(try fixture.trackID(), track, "a refused Open changed the book")
        XCTAssertEqual(try fixture.status(), "Playing")
        XCTAssertNotNil(fixture.sound(after: Date(), timeout: 3), "the book being read stopped\(fixture.context)")
    }

    /// A PDF is refused as a PDF, by its content (a .pdf and a PDF named .txt), with a named
    /// error and how to convert it; never read aloud as raw bytes, and the book being read goes on.
    func testAPDFIsRefusedAsAPDFWithHowToConvertIt() throws {
        let fixture = try PlayerFixture()
        defer { fixture.shutdown() }
        let playing = try TextBooks.write(TextBooks.runOnChapters, named: "river.txt", in: fixture.session.directory)
        try fixture.openAndHear(playing)
        let track = try fixture.trackID()
        let pdf = fixture.session.directory.appendingPathComponent("paper.pdf")
        let disguised = fixture.session.directory.appendingPathComponent("paper.txt")
        try PDFWriter.data(saying: "Hello PDF").write(to: pdf)
        try PDFWriter.data(saying: "Hello PDF").write(to: disguised)

        for file in [pdf, disguised] {
            let read = try fixture.cli("read", file.path)
            XCTAssertEqual(read.status, 1, "\(read)")
            XCTAssertTrue(read.stderr.contains("\(file.path) is a PDF: Lector reads EPUB and plain text"), "\(read)")
            XCTAssertTrue(read.stderr.contains("pdftotext") && read.stderr.contains("ebook-convert"), "\(read)")
            XCTAssertTrue(read.stderr.contains("io.github.lector.Error.UnsupportedFormat"), "\(read)")
            fixture.assertError(try fixture.openCall(file.absoluteString), "UnsupportedFormat", "Open \(file.lastPathComponent)")
        }
        XCTAssertEqual(try fixture.trackID(), track, "a refused PDF changed the book")
        XCTAssertEqual(try fixture.status(), "Playing")
        XCTAssertNotNil(fixture.sound(after: Date(), timeout: 3), "the book being read stopped\(fixture.context)")
    }

    func testFileURIsAreReadAsUsersWriteThem() throws {
        let fixture = try PlayerFixture()
        defer { fixture.shutdown() }
        let book = try TextBooks.write(TextBooks.threeShortChapters, named: "three.txt", in: fixture.session.directory)
        // The scheme is case-insensitive (RFC 3986).
        let upper = try fixture.openCall("FILE://" + book.path, options: "{'play': <false>}")
        XCTAssertTrue(upper.succeeded, "FILE:// refused: \(upper)")
        // A percent-encoded name that is not UTF-8 is named as such.
        let latin1 = try fixture.openCall("file://" + fixture.session.directory.path + "/latin1-%E9%FF.txt")
        fixture.assertError(latin1, "InvalidArgument", "a non-UTF-8 file name")
        XCTAssertTrue(latin1.stderr.contains("not UTF-8"), "\(latin1)")
    }

    func testANoncharacterInSpeakTextSaysWhatToRemove() throws {
        let fixture = try PlayerFixture()
        defer { fixture.shutdown() }
        let script = """
        import dbus
        speaker = dbus.Interface(dbus.SessionBus().get_object("io.github.lector.Lector1", "/io/github/lector/Lector1"),
                                 "io.github.lector.Lector1")
        try:
            speaker.Speak("bad \\uffff text", dbus.Dictionary({}, signature="sv"))
            print("accepted")
        except dbus.DBusException as error:
            print("error", error.get_dbus_name(), error.get_dbus_message())
        """
        let result = try fixture.session.run(Self.python, ["-I", "-c", script], timeout: 30)
        // libdbus (python-dbus) and dbus-daemon pass U+FFFF; sd-bus refuses to read it.
        XCTAssertTrue(result.stdout.contains("error io.github.lector.Error.InvalidArgument")
                      && result.stdout.contains("noncharacter"), "\(result)")
        XCTAssertTrue(try fixture.session.busNameHasOwner(PlayerFixture.mprisName))
    }

    /// Twice: a real book (it may finish first), then one whose parse takes seconds with the later
    /// Open sent 0.3 s into it, so it stops the parse midway (CI once saw that path name only the
    /// earlier book).
    func testOpensInQuickSuccessionTheLaterWinsAndTheEarlierIsToldWhy() throws {
        let fixture = try PlayerFixture()
        defer { fixture.shutdown() }
        let slow = fixture.session.directory.appendingPathComponent("slow.epub")
        try EPUBWriter.slowToParse(identifier: "slow", body: String(repeating: "<div><span>", count: 150_000) + "Deep.")
            .write(to: slow)
        try openInQuickSuccession(fixture, first: try BookFixtures.require(BookFixtures.wasteland), mustBeStopped: false)
        try openInQuickSuccession(fixture, first: slow, mustBeStopped: true)
    }

    private func openInQuickSuccession(_ fixture: PlayerFixture, first book: URL, mustBeStopped: Bool) throws {
        let other = try TextBooks.write(TextBooks.threeShortChapters, named: "later.txt", in: fixture.session.directory)
        // Both calls on one connection, the second sent before the first is answered: in order.
        let script = """
        import sys, dbus
        from dbus.mainloop.glib import DBusGMainLoop
        from gi.repository import GLib
        DBusGMainLoop(set_as_default=True)
        narrator = dbus.Interface(dbus.SessionBus().get_object("org.mpris.MediaPlayer2.lector", "/io/github/lector/Lector1"),
                                  "io.github.lector.Narrator1")
        loop, answers = GLib.MainLoop(), {}
        def answer(name, text):
            answers[name] = text
            if len(answers) == 2: loop.quit()
        def open_(name, uri):
            narrator.Open(uri, dbus.Dictionary({"play": False}, signature="sv"),
                          reply_handler=lambda n=name: answer(n, "ok"),
                          error_handler=lambda e, n=name: answer(n, e.get_dbus_name() + ": " + e.get_dbus_message()))
        open_("first", sys.argv[1])
        GLib.timeout_add(int(sys.argv[3]), lambda: open_("second", sys.argv[2]))
        loop.run()
        print("first", answers["first"]); print("second", answers["second"])
        """
        let result = try fixture.session.run(Self.python, ["-I", "-c", script, book.absoluteString, other.absoluteString,
                                                                    mustBeStopped ? "300" : "0"], timeout: 60)
        XCTAssertTrue(result.stdout.contains("second ok"), "the later Open must win: \(result)")
        let first = result.stdout.split(separator: "\n").first { $0.hasPrefix("first ") } ?? ""
        print("quick succession:", first)
        XCTAssertTrue((first == "first ok" && !mustBeStopped)
                      || (first.contains("io.github.lector.Error.Superseded") && first.contains("later.txt")
                          && (!mustBeStopped || first.contains("its parse was stopped"))),
                      "the earlier Open either finished first or says which later Open replaced it: \(result)")
        XCTAssertTrue(try poll(timeout: 5) { ((try fixture.metadata()["xesam:url"]?.data as? String) ?? "").hasSuffix("later.txt") },
                      "the later book is not the open one\(fixture.context)")
    }

    /// A Resume joins the open being parsed. When that open is replaced by another and a second
    /// Resume joins the new one, the first is still answered (the D-Bus fuzz found it waiting
    /// forever: the second Resume took the first one's place).
    func testResumesJoiningOpensThatAreReplacedAreAllAnswered() throws {
        let fixture = try PlayerFixture()
        defer { fixture.shutdown() }
        // A large text, so its parse is still running when the calls after it arrive.
        let paragraph = String(repeating: "The quiet river runs past the old mill and the green fields. ", count: 40)
        let slow = try TextBooks.write(Array(repeating: paragraph, count: 3_000), named: "slow.txt",
                                       in: fixture.session.directory)
        let other = try TextBooks.write(TextBooks.threeShortChapters, named: "later.txt", in: fixture.session.directory)
        // All four on one connection, each sent before the earlier ones are answered: in order.
        let script = """
        import sys, dbus
        from dbus.mainloop.glib import DBusGMainLoop
        from gi.repository import GLib
        DBusGMainLoop(set_as_default=True)
        narrator = dbus.Interface(dbus.SessionBus().get_object("org.mpris.MediaPlayer2.lector", "/io/github/lector/Lector1"),
                                  "io.github.lector.Narrator1")
        loop, answers, names = GLib.MainLoop(), {}, ("open1", "resume1", "open2", "resume2")
        def answer(name, text):
            answers[name] = text
            if len(answers) == len(names): loop.quit()
        handlers = lambda name: dict(reply_handler=lambda *_: answer(name, "ok"),
                                     error_handler=lambda e: answer(name, e.get_dbus_name() + ": " + e.get_dbus_message()))
        narrator.Open(sys.argv[1], dbus.Dictionary({"play": False}, signature="sv"), **handlers("open1"))
        narrator.Resume(**handlers("resume1"))
        narrator.Open(sys.argv[2], dbus.Dictionary({"play": False}, signature="sv"), **handlers("open2"))
        narrator.Resume(**handlers("resume2"))
        GLib.timeout_add_seconds(20, loop.quit)
        loop.run()
        for name in names: print(name, answers.get(name, "NO ANSWER"))
        """
        let result = try fixture.session.run(Self.python, ["-I", "-c", script, slow.absoluteString, other.absoluteString],
                                             timeout: 60)
        XCTAssertFalse(result.stdout.contains("NO ANSWER"), "every call is answered: \(result)")
        XCTAssertTrue(result.stdout.contains("open2 ok") && result.stdout.contains("resume2 ok"),
                      "the later Open and the Resume joining it succeed: \(result)")
        let first = result.stdout.split(separator: "\n").first { $0.hasPrefix("resume1 ") } ?? ""
        XCTAssertTrue(first == "resume1 ok" || first.contains("io.github.lector.Error.Superseded"),
                      "the first Resume plays or says which later Open replaced its book: \(result)")
        XCTAssertTrue(try poll(timeout: 5) { try fixture.status() == "Playing" },
                      "the later book plays, as the Resume joining it asked\(fixture.context)")
    }
}
