import Foundation
import LectorTestKit
import XCTest

/// Nothing a client asks for makes the daemon build a message the bus refuses (the bus would
/// disconnect it): too large an answer is the named error ReplyTooLarge, and it goes on serving.
final class BusLimitTests: XCTestCase {
    /// Debian's python3 with python3-dbus (gdbus cannot pass a 10 MB argument on a command line).
    private static let python = "/usr/bin/python3"

    private static let script = """
    import sys, dbus
    bus = dbus.SessionBus()
    tracklist = dbus.Interface(bus.get_object("org.mpris.MediaPlayer2.lector", "/org/mpris/MediaPlayer2"),
                               "org.mpris.MediaPlayer2.TrackList")
    ids = [dbus.ObjectPath(sys.argv[1])] * int(sys.argv[2])
    try:
        answer = tracklist.GetTracksMetadata(ids, timeout=60)
        print("answered", len(answer))
    except dbus.DBusException as error:
        print("error", error.get_dbus_name(), error.get_dbus_message())
    """

    private static let hugeArguments = """
    import sys, dbus
    bus = dbus.SessionBus()
    lector = dbus.Interface(bus.get_object("io.github.lector.Lector1", "/io/github/lector/Lector1"), sys.argv[1])
    huge = "\\u8a9e" * int(sys.argv[3])
    try:
        if sys.argv[2] == "Speak":
            lector.Speak(huge, dbus.Dictionary({}, signature="sv"), timeout=60)
        else:
            lector.Open(huge, dbus.Dictionary({}, signature="sv"), timeout=60)
        print("accepted")
    except dbus.DBusException as error:
        print("error", error.get_dbus_name(), error.get_dbus_message())
    """

    /// A string argument of megabytes is refused by name before it is copied out of the message
    /// (Speak's text past 64 KiB, an Open URI longer than any path), so it costs the daemon the
    /// message and no more: a 6.5-MB URI took 50 MB in URL parsing, a 10-MB text twice its size.
    func testMegabyteArgumentsAreRefusedBeforeTheyCostMoreThanTheMessage() throws {
        let fixture = try PlayerFixture()
        defer { fixture.shutdown() }
        let file = fixture.session.directory.appendingPathComponent("huge.py")
        try Self.hugeArguments.write(to: file, atomically: true, encoding: .utf8)
        let pid = fixture.daemon.pid
        // 2,200,000 three-byte characters: 6.6 MB.
        for (interface, member, error, says) in [("io.github.lector.Lector1", "Speak", "TextTooLong", "the limit is 65536 bytes"),
                                                 ("io.github.lector.Narrator1", "Open", "InvalidArgument", "longer than")] {
            let before = try XCTUnwrap(ProcessProbe.peakResidentKiB(pid))
            let result = try fixture.session.run(Self.python, ["-I", file.path, interface, member, "2200000"], timeout: 90)
            XCTAssertTrue(result.stdout.contains("error io.github.lector.Error.\(error)"), "\(member): \(result)")
            XCTAssertTrue(result.stdout.contains(says), "\(member): \(result)")
            let grown = try XCTUnwrap(ProcessProbe.peakResidentKiB(pid)) - before
            print("\(member) with a 6.6-MB argument: VmHWM grew \(grown) kB")
            XCTAssertLessThan(grown, 6_600 * 3 / 2, "\(member)'s 6.6-MB argument cost more than its message")
        }
        XCTAssertTrue(fixture.daemon.isRunning, "the daemon died\n\(fixture.daemon.output)")
        XCTAssertTrue(try fixture.session.busNameHasOwner(PlayerFixture.mprisName), "the daemon lost its bus name")
    }

    func testGetTracksMetadataTooLargeForTheBusIsANamedErrorAndTheDaemonGoesOn() throws {
        let book = try BookFixtures.require(BookFixtures.wasteland)
        let fixture = try PlayerFixture()
        defer { fixture.shutdown() }
        try fixture.open(book, play: false)
        let text = try fixture.call(PlayerFixture.narrator, "GetChapterText", ["0"], path: PlayerFixture.narratorPath)
        XCTAssertTrue(text.succeeded, "\(text)")
        let track = try XCTUnwrap(text.stdout.firstMatch(of: /objectpath '([^']+)'/)?.1, "no track id in \(text.stdout)")

        let file = fixture.session.directory.appendingPathComponent("tracks.py")
        try Self.script.write(to: file, atomically: true, encoding: .utf8)
        // A few thousand ids are answered in full ...
        let small = try fixture.session.run(Self.python, ["-I", file.path, String(track), "5000"], timeout: 60)
        XCTAssertTrue(small.stdout.contains("answered 5000"), "\(small)")
        // ... 200,000 (about 70 MB of metadata) are refused by name, not sent, and cost the daemon
        // their 9-MB message and the 4 MiB it answers at most, not a list of them and a reply the
        // bus's size (50 MB more).
        let before = try XCTUnwrap(ProcessProbe.peakResidentKiB(fixture.daemon.pid))
        let large = try fixture.session.run(Self.python, ["-I", file.path, String(track), "200000"], timeout: 90)
        XCTAssertTrue(large.stdout.contains("error io.github.lector.Error.ReplyTooLarge"), "\(large)\(fixture.context)")
        XCTAssertTrue(large.stdout.contains("ask for less"), "the message says what to change: \(large)")
        let grown = try XCTUnwrap(ProcessProbe.peakResidentKiB(fixture.daemon.pid)) - before
        print("GetTracksMetadata of 200,000 ids: VmHWM grew \(grown) kB")
        XCTAssertLessThan(grown, 20 * 1024, "200,000 ids cost more than their message and 4 MiB of answer")

        XCTAssertTrue(fixture.daemon.isRunning, "the daemon died\n\(fixture.daemon.output)")
        XCTAssertTrue(try fixture.session.busNameHasOwner(PlayerFixture.mprisName), "the daemon lost its bus name")
        XCTAssertEqual(try fixture.status(), "Stopped", "the daemon still answers (opened without playing)\(fixture.context)")
    }
}
