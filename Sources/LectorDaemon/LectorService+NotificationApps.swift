import LectorBus

/// `lector notifications allow APP | deny APP`: the apps whose notifications are read, chosen
/// from the command line as well as in config.toml's `[notifications] allow` (which stays as it
/// is: the file is the listener's to edit). The listener's additions live in
/// `$XDG_STATE_HOME/lector/notification-apps.json`, written atomically; the apps read are both
/// lists together (Lector1.NotificationApps). The work is `NotificationReader`'s.
extension LectorService {
    func notificationAppMembers() -> [BusMember<LectorService>] {
        [
            .method("AllowNotifications", in: "s", ["app"]) { service, call in
                try service.notifications.allow(try call.reader.readString())
                return .done
            },
            .method("DenyNotifications", in: "s", ["app"]) { service, call in
                try service.notifications.deny(try call.reader.readString(), configurationPath: service.configurationPath)
                return .done
            },
            .property("NotificationApps", "as", .change) { try $1.appendStrings($0.notifications.rules.allow) },
        ]
    }
}
