import ArgumentParser
import LectorCommandLine
import LectorBus
import LectorInterface

/// `lector notifications on|off|status|allow APP|deny APP`: read desktop notifications aloud, or
/// stop; which apps are read.
struct Notifications: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "notifications",
        abstract: "Read desktop notifications aloud or not, and choose the apps.",
        discussion: """
            Only allowed apps are read, as "app: summary" (the body only with read-body = true), \
            never during quiet-hours: the apps in config.toml's [notifications] allow list and \
            those allowed here. This choice is remembered across restarts and wins over the file's `enabled`.

            Examples:
              lector notifications on
              lector notifications allow Thunderbird   the name its notifications carry
              lector notifications allow '*'           every app
              lector notifications deny Thunderbird
              lector notifications status
            """)

    enum Choice: String, ExpressibleByArgument, CaseIterable { case on, off, status, allow, deny }

    @Argument(help: "on, off, status, allow APP or deny APP.") var choice: Choice
    @Argument(help: "The app, for allow and deny: the name its notifications carry (e.g. Thunderbird), or *.") var app: String?

    func validate() throws {
        switch choice {
        case .allow, .deny:
            if app?.allSatisfy(\.isWhitespace) ?? true {
                throw ValidationError("name the app: lector notifications \(choice.rawValue) Thunderbird (the name its notifications carry; * for every app)")
            }
        case .on, .off, .status:
            if let app { throw ValidationError("\(choice.rawValue) takes no app (\"\(app)\"); allow or deny one with lector notifications allow APP") }
        }
    }

    func run() throws {
        let client = try DaemonClient()
        switch choice {
        case .on, .off:
            _ = try client.callDaemon(path: BusNames.objectPath, interface: "org.freedesktop.DBus.Properties",
                                      member: "Set") { writer in
                try writer.append(BusNames.interface)
                try writer.append("ReadNotifications")
                try writer.container("v", "b") { try writer.append(choice == .on) }
            }
        case .allow, .deny:
            _ = try client.callDaemon(path: BusNames.objectPath, interface: BusNames.interface,
                                      member: choice == .allow ? "AllowNotifications" : "DenyNotifications") { try $0.append(app ?? "") }
        case .status:
            break
        }
        let enabled = try client.property(BusNames.objectPath, BusNames.interface, "ReadNotifications").readDisplayVariant() == "true"
        let apps = try client.property(BusNames.objectPath, BusNames.interface, "NotificationApps").readDisplayVariant()
        switch choice {
        case .allow: print("notifications of \(app ?? "") are read" + (enabled ? "" : " once reading is on (lector notifications on)"))
        case .deny: print("notifications of \(app ?? "") are not read")
        case .on, .off, .status: print(enabled ? "notifications are read aloud" : "notifications are not read aloud")
        }
        if enabled, apps.isEmpty {
            print("""
                but no app is allowed yet, so nothing will be read. Allow one with:
                  lector notifications allow APP     (the name its notifications carry, e.g. Thunderbird; * for every app)
                or list apps in config.toml's [notifications] allow (man 5 lector.conf).
                """)
        }
    }
}
