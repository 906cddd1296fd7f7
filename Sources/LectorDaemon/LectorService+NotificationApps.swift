import Foundation
import LectorBus
import LectorConfig
import LectorCore
import LectorState

/// `lector notifications allow APP | deny APP`: the apps whose notifications are read, chosen
/// from the command line as well as in config.toml's `[notifications] allow` (which stays as it
/// is: the file is the listener's to edit). The listener's additions live in
/// `$XDG_STATE_HOME/lector/notification-apps.json`, written atomically; the apps read are both
/// lists together (Lector1.NotificationApps).
extension LectorService {
    func notificationAppMembers() -> [BusMember<LectorService>] {
        [
            .method("AllowNotifications", in: "s", ["app"]) { service, call in
                try service.allowNotifications(from: try call.reader.readString())
                return .done
            },
            .method("DenyNotifications", in: "s", ["app"]) { service, call in
                try service.denyNotifications(from: try call.reader.readString())
                return .done
            },
            .property("NotificationApps", "as", .change) { try $1.appendStrings($0.notificationRules.allow) },
        ]
    }

    var notificationAppsFile: URL {
        DuckJournalStore.defaultDirectory().appendingPathComponent("notification-apps.json")
    }

    /// Apps allowed with `lector notifications allow` (an unreadable file counts as none, logged).
    var listenerNotificationApps: [String] {
        guard let data = try? Data(contentsOf: notificationAppsFile) else { return [] }
        guard let apps = try? JSONDecoder().decode([String].self, from: data) else {
            Journal.log(.warning, "\(notificationAppsFile.path) is unreadable: no apps allowed from the command line "
                        + "(allow them again, or list them in config.toml)")
            return []
        }
        return apps
    }

    /// The notification rules in force: config.toml's, with the command line's apps allowed too.
    var notificationRules: Configuration.Notifications {
        var rules = configuration.notifications
        for app in listenerNotificationApps where !rules.allow.contains(where: { $0.lowercased() == app.lowercased() }) {
            rules.allow.append(app)
        }
        return rules
    }

    func allowNotifications(from app: String) throws {
        let name = try Self.checkedAppName(app)
        guard !notificationRules.allow.contains(where: { $0.lowercased() == name.lowercased() }) else { return }
        try saveListenerNotificationApps(listenerNotificationApps + [name])
        Journal.log(.info, "notifications of \(name) are read from now on (lector notifications allow)")
    }

    func denyNotifications(from app: String) throws {
        let name = try Self.checkedAppName(app)
        let folded = name.lowercased()
        let mine = listenerNotificationApps
        guard mine.contains(where: { $0.lowercased() == folded }) else {
            if configuration.notifications.allow.contains(where: { $0.lowercased() == folded }) {
                throw LectorError.invalidArgument("\(name) is allowed in \(configurationPath) ([notifications] allow): "
                                                  + "remove it there (the daemon reads the file again on systemctl --user reload lector)")
            }
            throw LectorError(.notFound, "notifications of \(name) are not read (allowed: "
                              + (notificationRules.allow.isEmpty ? "none" : notificationRules.allow.joined(separator: ", ")) + ")")
        }
        try saveListenerNotificationApps(mine.filter { $0.lowercased() != folded })
    }

    private func saveListenerNotificationApps(_ apps: [String]) throws {
        do {
            try AtomicFile.write(try JSONEncoder().encode(apps), to: notificationAppsFile)
        } catch {
            throw LectorError(.failed, "could not write \(notificationAppsFile.path): \(error)")
        }
        bus.emitPropertiesChanged(path: BusNames.objectPath, interface: BusNames.interface, names: ["NotificationApps"])
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
}
