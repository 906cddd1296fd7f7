import Foundation
import Glibc
import LectorBus
import LectorConfig
import LectorCore
import LectorLoop
import LectorState

/// Desktop notifications read aloud (opt-in), a component of its own: a monitor connection
/// overhears `org.freedesktop.Notifications.Notify` calls and allow-listed apps are announced as
/// "app: summary" at `notification` priority (so they never interrupt anything).
///
/// What it reads is held, not read per notification: config.toml's `[notifications]` (set at each
/// reload), the listener's `lector notifications on|off` and `allow APP` files (read once, again
/// when the configuration is reloaded, and the apps file when its stamp changed: another writer).
///
///     let notifications = NotificationReader(loop: loop, announce: { announcer.announceNotification($0) })
///     notifications.configuration = configuration.notifications
///     notifications.start()          // overhears while reading is on
///     try notifications.allow("Thunderbird")
@MainActor
final class NotificationReader {
    static let notifyRule = "type='method_call',interface='org.freedesktop.Notifications',member='Notify'"

    /// `lector notifications on|off` is remembered here and wins over config's `enabled`.
    let choiceFile: URL
    /// The apps allowed with `lector notifications allow`, beside config.toml's.
    let appsFile: URL
    /// config.toml's `[notifications]`; the service sets it at each reload (then `reload()`).
    var configuration = Configuration.Notifications()
    /// ReadNotifications or NotificationApps changed: the service emits PropertiesChanged.
    var onChanged: ((_ properties: [String]) -> Void)?

    private let loop: EventLoop
    private let announce: (String) -> UInt64?
    private var monitor: BusMonitor?
    private var choice: Bool?
    private var listenerApps: (stamp: FileStamp?, apps: [String]) = (nil, [])
    private var started = false

    init(loop: EventLoop, directory: URL = DuckJournalStore.defaultDirectory(), announce: @escaping (String) -> UInt64?) {
        self.loop = loop
        self.announce = announce
        choiceFile = directory.appendingPathComponent("read-notifications")
        appsFile = directory.appendingPathComponent("notification-apps.json")
        choice = Self.readChoice(choiceFile)
        listenerApps = Self.readApps(appsFile)
    }

    /// Whether notifications are read: the listener's choice, else config.toml's.
    var reads: Bool { choice ?? configuration.enabled }

    /// The rules in force: config.toml's, with the command line's apps allowed too.
    var rules: Configuration.Notifications {
        var rules = configuration
        for app in currentListenerApps where !rules.allow.contains(where: { $0.lowercased() == app.lowercased() }) {
            rules.allow.append(app)
        }
        return rules
    }

    /// Overhears while reading is on; after the bus names are taken.
    func start() {
        started = true
        updateMonitor()
    }

    /// After a configuration reload: the listener's files are read again too.
    func reload() {
        let before = (reads, rules.allow)
        choice = Self.readChoice(choiceFile)
        listenerApps = Self.readApps(appsFile)
        if before.0 != reads { onChanged?(["ReadNotifications"]) }
        if before.1 != rules.allow { onChanged?(["NotificationApps"]) }
        updateMonitor()
    }

    /// Teardown: the monitor connection goes.
    func close() {
        started = false
        monitor?.close()
        monitor = nil
    }

    // MARK: - The listener's choices

    func setReads(_ on: Bool) {
        let before = reads
        do {
            try FileManager.default.createDirectory(at: choiceFile.deletingLastPathComponent(), withIntermediateDirectories: true)
            try (on ? "on\n" : "off\n").write(to: choiceFile, atomically: true, encoding: .utf8)
        } catch {
            Journal.log(.warning, "could not remember the notification choice: \(error)")
        }
        choice = on
        if reads != before { onChanged?(["ReadNotifications"]) }
        updateMonitor()
    }

    func allow(_ app: String) throws {
        let name = try Self.checkedAppName(app)
        guard !rules.allow.contains(where: { $0.lowercased() == name.lowercased() }) else { return }
        try saveListenerApps(currentListenerApps + [name])
        Journal.log(.info, "notifications of \(name) are read from now on (lector notifications allow)")
    }

    /// `configurationPath` names config.toml in the error for an app allowed there.
    func deny(_ app: String, configurationPath: String) throws {
        let name = try Self.checkedAppName(app)
        let folded = name.lowercased()
        let mine = currentListenerApps
        guard mine.contains(where: { $0.lowercased() == folded }) else {
            if configuration.allow.contains(where: { $0.lowercased() == folded }) {
                throw LectorError.invalidArgument("\(name) is allowed in \(configurationPath) ([notifications] allow): "
                                                  + "remove it there (the daemon reads the file again on systemctl --user reload lector)")
            }
            throw LectorError(.notFound, "notifications of \(name) are not read (allowed: "
                              + (rules.allow.isEmpty ? "none" : rules.allow.joined(separator: ", ")) + ")")
        }
        try saveListenerApps(mine.filter { $0.lowercased() != folded })
    }

    /// An app name as notifications carry it: not empty, no control characters, at most 200 characters.
    static func checkedAppName(_ app: String) throws -> String {
        let name = app.trimmingCharacters(in: .whitespaces)
        guard !name.isEmpty, name.count <= 200, !name.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) else {
            throw LectorError.invalidArgument("an app is named as its notifications name it, e.g. Thunderbird (or * for every app), "
                                              + "not \"\(BusText.capped(app, maxCharacters: 40))\"")
        }
        return name
    }

    // MARK: - Files

    /// The apps file's contents, read again only when its stamp changed (a stat, not a read).
    private var currentListenerApps: [String] {
        let stamp = FileStamp(appsFile)
        if stamp != listenerApps.stamp { listenerApps = Self.readApps(appsFile) }
        return listenerApps.apps
    }

    private func saveListenerApps(_ apps: [String]) throws {
        do {
            try AtomicFile.write(try JSONEncoder().encode(apps), to: appsFile)
        } catch {
            throw LectorError(.failed, "could not write \(appsFile.path): \(error)")
        }
        listenerApps = (FileStamp(appsFile), apps)
        onChanged?(["NotificationApps"])
    }

    /// Apps allowed with `lector notifications allow` (an unreadable file counts as none, logged).
    private static func readApps(_ file: URL) -> (stamp: FileStamp?, apps: [String]) {
        let stamp = FileStamp(file)
        guard let data = try? Data(contentsOf: file) else { return (stamp, []) }
        guard let apps = try? JSONDecoder().decode([String].self, from: data) else {
            Journal.log(.warning, "\(file.path) is unreadable: no apps allowed from the command line "
                        + "(allow them again, or list them in config.toml)")
            return (stamp, [])
        }
        return (stamp, apps)
    }

    private static func readChoice(_ file: URL) -> Bool? {
        guard let text = try? String(contentsOf: file, encoding: .utf8) else { return nil }
        switch text.trimmingCharacters(in: .whitespacesAndNewlines) {
        case "on": return true
        case "off": return false
        default: return nil
        }
    }

    // MARK: - Overhearing

    /// Starts or stops overhearing to match `reads`.
    private func updateMonitor() {
        guard started, reads != (monitor != nil) else { return }
        guard reads else {
            monitor?.close()
            monitor = nil
            Journal.log(.info, "no longer reading notifications")
            return
        }
        do {
            let monitor = try BusMonitor(loop: loop, rules: [Self.notifyRule]) { [weak self] message in
                self?.overheard(message)
            }
            monitor.onReady = { [weak self] failure in
                if let failure {
                    Journal.log(.warning, "cannot overhear notifications: \(failure)", fields: ["LECTOR_ERROR": "Failed"])
                } else if let self {
                    Journal.log(.info, "reading notifications of: \(self.rules.allow.joined(separator: ", "))")
                }
            }
            self.monitor = monitor
        } catch {
            Journal.log(.warning, "cannot overhear notifications: \(error)", fields: ["LECTOR_ERROR": "Failed"])
        }
    }

    /// `Notify(s app_name, u replaces_id, s app_icon, s summary, s body, as actions, a{sv} hints, i timeout)`
    private func overheard(_ message: MessageReader) {
        guard reads,
              let app = try? message.readString(), (try? message.readUInt32()) != nil, (try? message.readString()) != nil,
              let summary = try? message.readString(), let body = try? message.readString() else { return }
        var now = time(nil)
        var local = tm()
        localtime_r(&now, &local)
        guard let text = rules.announcement(app: app, summary: summary, body: body,
                                            minuteOfDay: Int(local.tm_hour) * 60 + Int(local.tm_min)),
              let id = announce(text) else { return }
        Journal.log(.debug, "reading a notification from \(app) as speech \(id)", fields: ["LECTOR_SPEECH_ID": String(id)])
    }
}

/// Which version of a file is on disk (device, inode, size, modification time), or nil when
/// there is none: a changed stamp means another read is due.
struct FileStamp: Equatable {
    let device: UInt64
    let inode: UInt64
    let size: Int64
    let modified: timespec

    init?(_ file: URL) {
        var info = stat()
        guard stat(file.path, &info) == 0 else { return nil }
        device = UInt64(info.st_dev)
        inode = UInt64(info.st_ino)
        size = Int64(info.st_size)
        modified = info.st_mtim
    }

    static func == (a: FileStamp, b: FileStamp) -> Bool {
        a.device == b.device && a.inode == b.inode && a.size == b.size
            && a.modified.tv_sec == b.modified.tv_sec && a.modified.tv_nsec == b.modified.tv_nsec
    }
}
