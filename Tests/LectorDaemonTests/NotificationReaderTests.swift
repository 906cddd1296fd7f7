import Foundation
@testable import LectorDaemon
import LectorConfig
import LectorLoop
import XCTest

/// The notification component's files: held, read again when another writer changed the apps
/// file or the configuration is reloaded; the listener's choices written and told.
final class NotificationReaderTests: XCTestCase {
    private var directory: URL!

    override func setUpWithError() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("notifications-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    override func tearDown() {
        try? FileManager.default.removeItem(at: directory)
    }

    /// XCTest on Linux cannot call @MainActor test methods; it runs them on the main thread.
    private func run(_ body: @MainActor (_ reader: () throws -> (NotificationReader, () -> [String])) throws -> Void) throws {
        let directory = self.directory!
        try MainActor.assumeIsolated {
            try body {
                let reader = NotificationReader(loop: try EventLoop(), directory: directory) { _ in nil }
                let changes = Changes()
                reader.onChanged = { changes.all += $0 }
                return (reader, { changes.all })
            }
        }
    }

    @MainActor private final class Changes { var all: [String] = [] }

    func testAppsAllowedFromTheCommandLineJoinTheConfigsAndAreKept() throws { try run { make in
        let (reader, changes) = try make()
        reader.configuration.allow = ["Thunderbird"]
        XCTAssertEqual(reader.rules.allow, ["Thunderbird"])
        try reader.allow("Signal")
        try reader.allow("signal")   // already allowed, whatever its case
        XCTAssertEqual(reader.rules.allow, ["Thunderbird", "Signal"])
        XCTAssertEqual(changes(), ["NotificationApps"])
        XCTAssertEqual(try JSONDecoder().decode([String].self, from: Data(contentsOf: reader.appsFile)), ["Signal"])
        // A new reader (the daemon restarted) finds them.
        let (again, _) = try make()
        XCTAssertEqual(again.rules.allow, ["Signal"])
        XCTAssertThrowsError(try reader.deny("Thunderbird", configurationPath: "/c/config.toml")) {
            XCTAssertTrue("\($0)".contains("is allowed in /c/config.toml"), "\($0)")
        }
        try reader.deny("SIGNAL", configurationPath: "/c/config.toml")
        XCTAssertEqual(reader.rules.allow, ["Thunderbird"])
        XCTAssertThrowsError(try reader.allow(" \u{7} "))
    } }

    func testTheAppsFileIsReadAgainOnlyWhenAnotherWriterChangedIt() throws { try run { make in
        let (reader, _) = try make()
        XCTAssertEqual(reader.rules.allow, [])
        try JSONEncoder().encode(["Evolution"]).write(to: reader.appsFile, options: .atomic)
        XCTAssertEqual(reader.rules.allow, ["Evolution"], "a change by another writer is seen")
        try Data("not json".utf8).write(to: reader.appsFile, options: .atomic)
        XCTAssertEqual(reader.rules.allow, [], "an unreadable file counts as none")
    } }

    func testTheChoiceIsHeldUntilAReload() throws { try run { make in
        let (reader, changes) = try make()
        XCTAssertFalse(reader.reads, "off by default")
        reader.setReads(true)
        XCTAssertTrue(reader.reads)
        XCTAssertEqual(try String(contentsOf: reader.choiceFile, encoding: .utf8), "on\n")
        XCTAssertEqual(changes(), ["ReadNotifications"])
        try "off\n".write(to: reader.choiceFile, atomically: true, encoding: .utf8)
        XCTAssertTrue(reader.reads, "held, not read per notification")
        reader.reload()
        XCTAssertFalse(reader.reads, "read again at a reload")
        XCTAssertEqual(changes(), ["ReadNotifications", "ReadNotifications"])
    } }
}
