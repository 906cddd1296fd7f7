import Foundation
@testable import LectorDaemon
import LectorConfig
import LectorLoop
import XCTest

/// The notification component's files: held, read again when another writer changed the apps
/// file or the configuration is reloaded; the listener's choices written and told.
@MainActor
final class NotificationReaderTests: XCTestCase {
    private var directory: URL!

    override func setUp() async throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("notifications-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    override func tearDown() async throws {
        try? FileManager.default.removeItem(at: directory)
    }

    private func reader() throws -> (NotificationReader, () -> [[String]]) {
        let reader = NotificationReader(loop: try EventLoop(), directory: directory) { _ in nil }
        var changes: [[String]] = []
        reader.onChanged = { changes.append($0) }
        return (reader, { changes })
    }

    func testAppsAllowedFromTheCommandLineJoinTheConfigsAndAreKept() throws {
        let (reader, changes) = try reader()
        reader.configuration.allow = ["Thunderbird"]
        XCTAssertEqual(reader.rules.allow, ["Thunderbird"])
        try reader.allow("Signal")
        try reader.allow("signal")   // already allowed, whatever its case
        XCTAssertEqual(reader.rules.allow, ["Thunderbird", "Signal"])
        XCTAssertEqual(changes(), [["NotificationApps"]])
        XCTAssertEqual(try JSONDecoder().decode([String].self, from: Data(contentsOf: reader.appsFile)), ["Signal"])
        // A new reader (the daemon restarted) finds them.
        let (again, _) = try self.reader()
        XCTAssertEqual(again.rules.allow, ["Signal"])
        XCTAssertThrowsError(try reader.deny("Thunderbird", configurationPath: "/c/config.toml")) {
            XCTAssertTrue("\($0)".contains("is allowed in /c/config.toml"), "\($0)")
        }
        try reader.deny("SIGNAL", configurationPath: "/c/config.toml")
        XCTAssertEqual(reader.rules.allow, ["Thunderbird"])
        XCTAssertThrowsError(try reader.allow(" \u{7} "))
    }

    func testTheAppsFileIsReadAgainOnlyWhenAnotherWriterChangedIt() throws {
        let (reader, _) = try reader()
        XCTAssertEqual(reader.rules.allow, [])
        try JSONEncoder().encode(["Evolution"]).write(to: reader.appsFile, options: .atomic)
        XCTAssertEqual(reader.rules.allow, ["Evolution"], "a change by another writer is seen")
        try Data("not json".utf8).write(to: reader.appsFile, options: .atomic)
        XCTAssertEqual(reader.rules.allow, [], "an unreadable file counts as none")
    }

    func testTheChoiceIsHeldUntilAReload() throws {
        let (reader, changes) = try reader()
        XCTAssertFalse(reader.reads, "off by default")
        reader.setReads(true)
        XCTAssertTrue(reader.reads)
        XCTAssertEqual(try String(contentsOf: reader.choiceFile, encoding: .utf8), "on\n")
        XCTAssertEqual(changes(), [["ReadNotifications"]])
        try "off\n".write(to: reader.choiceFile, atomically: true, encoding: .utf8)
        XCTAssertTrue(reader.reads, "held, not read per notification")
        reader.reload()
        XCTAssertFalse(reader.reads, "read again at a reload")
        XCTAssertEqual(changes(), [["ReadNotifications"], ["ReadNotifications"]])
    }
}
