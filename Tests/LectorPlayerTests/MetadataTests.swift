import Foundation
import LectorTestKit
import XCTest

/// What MPRIS clients read about the book: Metadata (values and D-Bus types), the root
/// interface, and the TrackList of chapters.
final class MetadataTests: SharedDaemonTestCase {
    func testMetadataOfWastelandThroughPlayerctlAndItsDBusTypes() throws {
        let book = try BookFixtures.require(BookFixtures.wasteland)
        try fixture.openAndHear(book, chapter: 0)

        let format = "{{xesam:title}}|{{xesam:album}}|{{xesam:artist}}|{{xesam:trackNumber}}|{{mpris:length}}|{{mpris:artUrl}}|{{xesam:url}}|{{mpris:trackid}}"
        let result = try fixture.playerctl("metadata", "--format", format)
        XCTAssertTrue(result.succeeded, "\(result)\(fixture.context)")
        let fields = result.stdout.trimmingCharacters(in: .newlines).components(separatedBy: "|")
        guard fields.count == 8 else { return XCTFail("playerctl printed \(result.stdout), not 8 fields") }
        XCTAssertEqual(fields[0], "The Waste Land", "xesam:title is the chapter's title")
        XCTAssertEqual(fields[1], "The Waste Land", "xesam:album is the book's title")
        XCTAssertEqual(fields[2], "T.S. Eliot", "xesam:artist")
        XCTAssertEqual(fields[3], "1", "xesam:trackNumber")
        let length = try XCTUnwrap(Int64(fields[4]), "mpris:length \(fields[4])")
        // The title page is a few lines: seconds, not minutes, at ~15 characters a second.
        XCTAssertGreaterThan(length, 3_000_000, "mpris:length")
        XCTAssertLessThan(length, 120_000_000, "mpris:length")

        let art = fields[5]
        let coverPrefix = "file://" + fixture.coverDirectory.path + "/"
        XCTAssertTrue(art.hasPrefix(coverPrefix), "mpris:artUrl \(art) must be a file:// under \(coverPrefix)")
        let cover = try XCTUnwrap(URL(string: art), art)
        let image = try XCTUnwrap(FileManager.default.contents(atPath: cover.path), "cover \(cover.path) does not exist")
        XCTAssertEqual(Array(image.prefix(3)), [0xFF, 0xD8, 0xFF], "the cover is not a JPEG")
        XCTAssertTrue(cover.path.hasSuffix(".jpg") || cover.path.hasSuffix(".jpeg"), cover.path)

        XCTAssertEqual(fields[6], book.absoluteString, "xesam:url")
        // playerctl prints the object path in GVariant text: '/io/…'.
        let printedTrack = fields[7].trimmingCharacters(in: CharacterSet(charactersIn: "'"))
        XCTAssertNotNil(printedTrack.range(of: #"^/io/github/lector/Track/b[0-9a-f]{16}/c0$"#, options: .regularExpression),
                        "mpris:trackid \(fields[7])")

        // The D-Bus types, as busctl prints them.
        let typed = try fixture.busctl(["get-property", PlayerFixture.mprisName, PlayerFixture.mprisPath,
                                        PlayerFixture.player, "Metadata"])
        XCTAssertTrue(typed.succeeded, "\(typed)")
        let text = typed.stdout
        XCTAssertTrue(text.hasPrefix("a{sv} "), text)
        let trackID = try XCTUnwrap(PlayerFixture.capture(#""mpris:trackid" o "([^"]+)""#, in: text),
                                    "mpris:trackid must be an object path (o): \(text)")
        XCTAssertEqual(trackID, printedTrack)
        XCTAssertFalse(trackID.hasPrefix("/org/mpris"), "track ids must not be under /org/mpris (the spec reserves it)")
        XCTAssertNotNil(PlayerFixture.capture(#""mpris:length" x ([0-9]+)"#, in: text), "mpris:length must be x: \(text)")
        XCTAssertTrue(text.contains(#""xesam:artist" as 1 "T.S. Eliot""#), "xesam:artist must be as: \(text)")
        XCTAssertTrue(text.contains(#""xesam:trackNumber" i 1"#), "xesam:trackNumber must be i: \(text)")
        XCTAssertTrue(text.contains(#""xesam:title" s "The Waste Land""#), text)
        XCTAssertTrue(text.contains(#""xesam:album" s "The Waste Land""#), text)
        XCTAssertTrue(text.contains(#""mpris:artUrl" s "file://"#), text)
        XCTAssertTrue(text.contains(#""xesam:url" s "file://"#), text)
    }

    func testTwoAuthorsAndAPNGCover() throws {
        let book = try BookFixtures.require(BookFixtures.childrensLiterature)
        try fixture.openAndHear(book)
        let metadata = try fixture.metadata()
        XCTAssertEqual(metadata["xesam:artist"]?.type, "as")
        XCTAssertEqual(metadata["xesam:artist"]?.data as? [String], ["Charles Madison Curry", "Erle Elsworth Clippinger"])
        XCTAssertEqual(metadata["xesam:album"]?.data as? String, "Children's Literature")
        let art = try XCTUnwrap(metadata["mpris:artUrl"]?.data as? String, "no mpris:artUrl")
        let cover = try XCTUnwrap(URL(string: art))
        XCTAssertTrue(cover.path.hasPrefix(fixture.coverDirectory.path + "/"), art)
        let image = try XCTUnwrap(FileManager.default.contents(atPath: cover.path), "cover \(cover.path) does not exist")
        XCTAssertEqual(Array(image.prefix(8)), [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A], "the cover is not a PNG")
    }

    /// Plain text has no authors: no `xesam:artist` at all (an empty list made shells show an
    /// empty artist line), in Metadata and in GetTracksMetadata.
    func testABookWithoutAuthorsHasNoArtistKey() throws {
        let book = try TextBooks.write(TextBooks.threeShortChapters, named: "anonymous.txt", in: fixture.session.directory)
        try fixture.openAndHear(book)
        let metadata = try fixture.metadata()
        XCTAssertNil(metadata["xesam:artist"], "xesam:artist without authors: \(String(describing: metadata["xesam:artist"]))")
        XCTAssertEqual(metadata["xesam:album"]?.data as? String, "anonymous")
        XCTAssertNotNil(metadata["mpris:length"])
        let answer = try fixture.busctl(["call", PlayerFixture.mprisName, PlayerFixture.mprisPath, PlayerFixture.trackList,
                                         "GetTracksMetadata", "ao", "1", try fixture.trackID()])
        XCTAssertTrue(answer.succeeded, "\(answer)")
        XCTAssertTrue(answer.stdout.contains("xesam:title"), answer.stdout)
        XCTAssertFalse(answer.stdout.contains("xesam:artist"), answer.stdout)
        let printed = try fixture.playerctl("metadata", "--format", "[{{xesam:artist}}]")
        XCTAssertEqual(printed.stdout, "[]\n", "\(printed)")
    }

    func testRootInterfaceProperties() throws {
        func root(_ name: String) throws -> (type: String, data: Any) {
            try fixture.property(name, interface: PlayerFixture.root)
        }
        XCTAssertEqual(try root("Identity").data as? String, "Lector")
        XCTAssertEqual(try root("DesktopEntry").data as? String, "io.github.lector.Lector")
        XCTAssertEqual(try root("CanQuit").data as? Bool, true)
        XCTAssertEqual(try root("CanRaise").data as? Bool, true, "Raise opens the read-along page")
        XCTAssertEqual(try root("HasTrackList").data as? Bool, true)
        let schemes = try root("SupportedUriSchemes")
        XCTAssertEqual(schemes.type, "as")
        XCTAssertEqual(schemes.data as? [String], ["file"])
        let types = try root("SupportedMimeTypes")
        XCTAssertEqual(types.type, "as")
        XCTAssertTrue((types.data as? [String] ?? []).contains("application/epub+zip"), "\(types)")
        XCTAssertEqual(try fixture.double("MinimumRate"), 0.5)
        XCTAssertEqual(try fixture.double("MaximumRate"), 2.5)
    }

    func testTrackListHasOneTrackPerChapterAndGoToJumps() throws {
        let book = try BookFixtures.require(BookFixtures.wasteland)
        try fixture.openAndHear(book, chapter: 0)
        let current = try fixture.trackID()
        let prefix = String(current.dropLast("/c0".count))
        XCTAssertTrue(current.hasSuffix("/c0"), current)

        let tracks = try fixture.property("Tracks", interface: PlayerFixture.trackList)
        XCTAssertEqual(tracks.type, "ao")
        let paths = try XCTUnwrap(tracks.data as? [String], "\(tracks)")
        XCTAssertEqual(paths, (0..<7).map { "\(prefix)/c\($0)" }, "one track per chapter, in order")
        XCTAssertEqual(Set(paths).count, paths.count, "track ids must be unique")

        // GetTracksMetadata for two of them.
        let answer = try fixture.busctl(["--json=short", "call", PlayerFixture.mprisName, PlayerFixture.mprisPath,
                                         PlayerFixture.trackList, "GetTracksMetadata", "ao", "2", paths[1], paths[4]])
        XCTAssertTrue(answer.succeeded, "\(answer)")
        let decoded = try JSONSerialization.jsonObject(with: Data(answer.stdout.utf8)) as? [String: Any]
        let list = try XCTUnwrap((decoded?["data"] as? [Any])?.first as? [[String: Any]], answer.stdout)
        XCTAssertEqual(list.count, 2, answer.stdout)
        func field(_ entry: [String: Any], _ key: String) -> Any? { (entry[key] as? [String: Any])?["data"] }
        XCTAssertEqual(list.compactMap { field($0, "xesam:title") as? String },
                       [BookFixtures.wastelandTitles[1], BookFixtures.wastelandTitles[4]])
        XCTAssertEqual(list.compactMap { field($0, "mpris:trackid") as? String }, [paths[1], paths[4]])
        XCTAssertEqual(list.compactMap { (field($0, "xesam:trackNumber") as? NSNumber)?.intValue }, [2, 5])

        // GoTo chapter 3.
        let since = Date()
        let goTo = try fixture.busCall(PlayerFixture.trackList, "GoTo", ["o", paths[2]])
        XCTAssertTrue(goTo.succeeded, "\(goTo)")
        XCTAssertTrue(try poll(timeout: 3) { try fixture.trackNumber() == 3 }, "GoTo did not reach chapter 3\(fixture.context)")
        XCTAssertEqual(try fixture.trackID(), paths[2])
        XCTAssertEqual(try fixture.metadata()["xesam:title"]?.data as? String, BookFixtures.wastelandTitles[2])
        XCTAssertNotNil(fixture.waitForChange("Metadata", since: since, timeout: 2) { $0.contains("'xesam:trackNumber': <3>") },
                        "no PropertiesChanged(Metadata) for the new chapter\(fixture.context)")
        XCTAssertEqual(try fixture.status(), "Playing")
        XCTAssertNotNil(fixture.sound(after: Date(), timeout: 3), "GoTo must keep playing\(fixture.context)")

        // A track id of no chapter is refused.
        let wrong = try fixture.call(PlayerFixture.trackList, "GoTo", ["objectpath '\(prefix)/c99'"])
        fixture.assertError(wrong, "InvalidArgument", "GoTo to a chapter that does not exist")
        XCTAssertEqual(try fixture.trackNumber(), 3)
    }
}

/// A daemon that has no book yet.
final class NoBookTests: XCTestCase {
    func testWithoutABookNothingCanPlayAndPlayPauseFails() throws {
        let fixture = try PlayerFixture()
        defer { fixture.shutdown() }

        XCTAssertEqual(try fixture.bool("CanPlay"), false, "CanPlay with no book\(fixture.context)")
        XCTAssertEqual(try fixture.bool("CanPause"), false, "CanPause with no book")
        XCTAssertEqual(try fixture.bool("CanSeek"), false, "CanSeek with no book")
        XCTAssertEqual(try fixture.bool("CanGoNext"), false, "CanGoNext with no book")
        XCTAssertEqual(try fixture.bool("CanGoPrevious"), false, "CanGoPrevious with no book")
        XCTAssertEqual(try fixture.status(), "Stopped")
        XCTAssertEqual(try fixture.trackID(), "/org/mpris/MediaPlayer2/TrackList/NoTrack")

        let since = Date()
        let playPause = try fixture.call(PlayerFixture.player, "PlayPause")
        fixture.assertError(playPause, "NoBook", "PlayPause with no book")
        XCTAssertNil(fixture.sound(after: since, timeout: 0.5), "nothing may be heard")

        let book = try TextBooks.write(TextBooks.threeShortChapters, named: "nobook.txt", in: fixture.session.directory)
        let opened = Date()
        try fixture.openAndHear(book)
        XCTAssertEqual(try fixture.bool("CanPlay"), true, "CanPlay once a book is open")
        XCTAssertEqual(try fixture.bool("CanPause"), true, "CanPause once a book is open")
        XCTAssertNotNil(fixture.waitForChange("CanPlay", since: opened, timeout: 2) { $0 == "true" },
                        "no PropertiesChanged(CanPlay)\(fixture.context)")
        // PlayPause now pauses.
        let paused = try fixture.call(PlayerFixture.player, "PlayPause")
        XCTAssertTrue(paused.succeeded, "\(paused)")
        XCTAssertEqual(try fixture.status(), "Paused")
    }
}
