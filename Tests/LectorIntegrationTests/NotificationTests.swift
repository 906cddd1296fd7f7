import Foundation
import LectorTestKit
import XCTest

/// Desktop notifications read aloud: opt-in, allow-listed apps only, "app: summary", heard on
/// the sink. A small notification server (python3-dbus) owns org.freedesktop.Notifications, as
/// a desktop's would; notifications are sent with a plain `gdbus call` of Notify.
final class NotificationTests: XCTestCase {
    private var session: TestSession!
    private var recording: MonitorRecording!
    private var daemon: ManagedProcess!

    private static let server = """
        import dbus, dbus.service, dbus.mainloop.glib
        from gi.repository import GLib
        dbus.mainloop.glib.DBusGMainLoop(set_as_default=True)
        class Server(dbus.service.Object):
            @dbus.service.method("org.freedesktop.Notifications", in_signature="susssasa{sv}i", out_signature="u")
            def Notify(self, app, replaces, icon, summary, body, actions, hints, timeout): return 7
            @dbus.service.method("org.freedesktop.Notifications", out_signature="ssss")
            def GetServerInformation(self): return ("lector-test", "lector", "1", "1.2")
            @dbus.service.method("org.freedesktop.Notifications", out_signature="as")
            def GetCapabilities(self): return ["body"]
        bus = dbus.SessionBus()
        name = dbus.service.BusName("org.freedesktop.Notifications", bus)
        Server(bus, "/org/freedesktop/Notifications")
        GLib.MainLoop().run()
        """

    private func start(config: String?) throws {
        session = try TestSession()
        if let config {
            let folder = URL(fileURLWithPath: session.environment["XDG_CONFIG_HOME"]!).appendingPathComponent("lector")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            try config.write(to: folder.appendingPathComponent("config.toml"), atomically: true, encoding: .utf8)
        }
        let script = session.directory.appendingPathComponent("notification-server.py")
        try Self.server.write(to: script, atomically: true, encoding: .utf8)
        _ = try session.spawn("/usr/bin/python3", [script.path])
        try session.waitForBusName("org.freedesktop.Notifications", timeout: 10)
        recording = try session.record()
        daemon = try session.spawn(LectorExecutable.path, ["serve"], extraEnvironment: ["LECTOR_LOG": "stderr"])
        try session.waitForBusName("io.github.lector.Lector1", timeout: 15)
    }

    override func tearDown() {
        session?.shutdown()
    }

    /// Sends a notification the way any app does; returns when the server answered.
    private func notify(app: String, summary: String, body: String = "") throws -> Date {
        let sent = Date()
        let result = try session.run("gdbus", ["call", "--session", "--dest", "org.freedesktop.Notifications",
                                               "--object-path", "/org/freedesktop/Notifications", "--method",
                                               "org.freedesktop.Notifications.Notify", app, "0", "", summary, body,
                                               "[]", "{}", "5000"], timeout: 10)
        XCTAssertTrue(result.succeeded, "Notify: \(result)")
        return sent
    }

    private func lector(_ arguments: String...) throws -> ProcessResult {
        try session.run(LectorExecutable.path, arguments, timeout: 30)
    }

    private var context: String { "\n--- daemon ---\n\(daemon?.output ?? "")" }

    func testOffByDefault() throws {
        try start(config: "[notifications]\nallow = [\"Thunderbird\"]\n")
        let sent = try notify(app: "Thunderbird", summary: "New mail from Ann")
        Thread.sleep(forTimeInterval: 2)
        XCTAssertNil(recording.firstSound(after: sent), "read aloud although not enabled\(context)")
        XCTAssertEqual(try lector("notifications", "status").stdout, "notifications are not read aloud\n")
    }

    func testEnabledReadsAllowListedAppsAsAppColonSummaryOnly() throws {
        try start(config: "[notifications]\nenabled = true\nallow = [\"Thunderbird\"]\n")
        XCTAssertTrue(poll(timeout: 5) { self.daemon.output.contains("reading notifications of: Thunderbird") }, context)

        let other = try notify(app: "Slack", summary: "Ping")
        Thread.sleep(forTimeInterval: 1.5)
        XCTAssertNil(recording.firstSound(after: other), "an app not on the allow list was read\(context)")

        let sent = try notify(app: "Thunderbird", summary: "New mail from Ann", body: "the secret body")
        let queue = try lector("queue").stdout
        XCTAssertTrue(queue.contains("notification\tspeaking\tThunderbird: New mail from Ann"), queue)
        XCTAssertFalse(queue.contains("secret"), "the body is read only with read-body = true: \(queue)")
        XCTAssertNotNil(recording.waitForSound(after: sent, timeout: 5), "not heard\(context)")
    }

    func testTheCommandLineTurnsItOnAndOffAndIsRemembered() throws {
        try start(config: "[notifications]\nallow = [\"*\"]\n")
        XCTAssertEqual(try lector("notifications", "on").stdout, "notifications are read aloud\n")
        XCTAssertTrue(poll(timeout: 5) { self.daemon.output.contains("reading notifications of: *") }, context)
        let on = try notify(app: "make", summary: "Build finished")
        XCTAssertNotNil(recording.waitForSound(after: on, timeout: 5), "not heard after `lector notifications on`\(context)")
        XCTAssertTrue(recording.waitForSilence(quiet: 0.5, timeout: 15))

        // A new daemon remembers the choice.
        daemon.terminate()
        daemon = try session.spawn(LectorExecutable.path, ["serve"], extraEnvironment: ["LECTOR_LOG": "stderr"])
        try session.waitForBusName("io.github.lector.Lector1", timeout: 15)
        XCTAssertEqual(try lector("notifications", "status").stdout, "notifications are read aloud\n")

        XCTAssertEqual(try lector("notifications", "off").stdout, "notifications are not read aloud\n")
        let off = try notify(app: "make", summary: "Tests failed")
        Thread.sleep(forTimeInterval: 2)
        XCTAssertNil(recording.firstSound(after: off), "read aloud after `lector notifications off`\(context)")
    }

    /// `notifications on` with nobody allowed says that nothing will be read and how to allow an
    /// app; `allow`/`deny` choose apps from the command line, beside config.toml's list.
    func testAnEmptyAllowListIsSaidAndAppsAreAllowedFromTheCommandLine() throws {
        try start(config: nil)
        let on = try lector("notifications", "on")
        XCTAssertEqual(on.status, 0, "\(on)")
        XCTAssertTrue(on.stdout.hasPrefix("notifications are read aloud\nbut no app is allowed yet, so nothing will be read"), on.stdout)
        XCTAssertTrue(on.stdout.contains("lector notifications allow APP"), on.stdout)
        let unread = try notify(app: "Thunderbird", summary: "New mail")
        Thread.sleep(forTimeInterval: 1.5)
        XCTAssertNil(recording.firstSound(after: unread), "read with nobody allowed\(context)")

        let allow = try lector("notifications", "allow", "Thunderbird")
        XCTAssertEqual(allow.status, 0, "\(allow)")
        XCTAssertEqual(allow.stdout, "notifications of Thunderbird are read\n")
        XCTAssertEqual(try lector("notifications", "status").stdout, "notifications are read aloud\n", "no hint once an app is allowed")
        let read = try notify(app: "thunderbird", summary: "New mail from Ann")
        XCTAssertNotNil(recording.waitForSound(after: read, timeout: 5), "an app allowed from the command line is not read\(context)")
        XCTAssertTrue(recording.waitForSilence(quiet: 0.5, timeout: 15))

        // Remembered by a new daemon; config.toml's apps stay the file's to edit.
        daemon.terminate()
        let folder = URL(fileURLWithPath: session.environment["XDG_CONFIG_HOME"]!).appendingPathComponent("lector")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try "[notifications]\nallow = [\"Signal\"]\n".write(to: folder.appendingPathComponent("config.toml"), atomically: true, encoding: .utf8)
        daemon = try session.spawn(LectorExecutable.path, ["serve"], extraEnvironment: ["LECTOR_LOG": "stderr"])
        try session.waitForBusName("io.github.lector.Lector1", timeout: 15)
        let apps = try session.run("busctl", ["--user", "get-property", "io.github.lector.Lector1", "/io/github/lector/Lector1",
                                              "io.github.lector.Lector1", "NotificationApps"], timeout: 10)
        XCTAssertEqual(apps.stdout, "as 2 \"Signal\" \"Thunderbird\"\n", "\(apps)")
        let inFile = try lector("notifications", "deny", "Signal")
        XCTAssertEqual(inFile.status, 1, "\(inFile)")
        XCTAssertTrue(inFile.stderr.contains("config.toml") && inFile.stderr.contains("InvalidArgument"), "\(inFile)")
        let nobody = try lector("notifications", "deny", "Nobody")
        XCTAssertEqual(nobody.status, 1, "\(nobody)")
        XCTAssertTrue(nobody.stderr.contains("NotFound"), "\(nobody)")
        XCTAssertEqual(try lector("notifications", "allow").status, 64)
        XCTAssertEqual(try lector("notifications", "on", "Thunderbird").status, 64)

        XCTAssertEqual(try lector("notifications", "deny", "Thunderbird").stdout, "notifications of Thunderbird are not read\n")
        let denied = try notify(app: "Thunderbird", summary: "More mail")
        Thread.sleep(forTimeInterval: 1.5)
        XCTAssertNil(recording.firstSound(after: denied), "read after deny\(context)")
    }
}
