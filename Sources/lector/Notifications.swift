import ArgumentParser
import LectorBus
import LectorInterface

/// `lector notifications on|off|status`: read desktop notifications aloud, or stop.
struct Notifications: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Turn reading desktop notifications aloud on or off (remembered across restarts).",
        discussion: """
            Only apps in config.toml's [notifications] allow list are read, as "app: summary"
            (the body only with read-body = true), never during quiet-hours. This choice wins
            over the file's `enabled`.
            Examples:
              lector notifications on
              lector notifications status
            """)

    enum Choice: String, ExpressibleByArgument, CaseIterable { case on, off, status }

    @Argument(help: "on, off or status.") var choice: Choice

    func run() throws {
        let client = try DaemonClient()
        if choice != .status {
            _ = try client.callDaemon(path: BusNames.objectPath, interface: "org.freedesktop.DBus.Properties",
                                      member: "Set") { writer in
                try writer.append(BusNames.interface)
                try writer.append("ReadNotifications")
                try writer.container("v", "b") { try writer.append(choice == .on) }
            }
        }
        let enabled = try client.property(BusNames.objectPath, BusNames.interface, "ReadNotifications").readDisplayVariant()
        print(enabled == "true" ? "notifications are read aloud" : "notifications are not read aloud")
    }
}
