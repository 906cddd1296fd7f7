import ArgumentParser
import LectorBus
import LectorInterface

/// `lector cancel ID | --all`: ends a waiting or speaking announcement (reason "cancelled").
struct Cancel: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Cancel an announcement by id, or all of them.",
        discussion: """
            Ids are printed by `lector say --print-id` and listed by `lector queue`.
            Examples:
              lector cancel 42
              lector cancel --all
            """)

    @Flag(help: "Cancel everything: the speech being spoken, then every waiting one.") var all = false
    @Argument(help: "The id of the speech to cancel.") var id: UInt64?

    func validate() throws {
        if all == (id != nil) { throw ValidationError("give an id or --all (not both)") }
    }

    func run() throws {
        let client = try DaemonClient()
        if let id {
            _ = try client.callDaemon(path: BusNames.objectPath, interface: BusNames.interface, member: "Cancel") {
                try $0.append(id)
            }
        } else {
            _ = try client.callDaemon(path: BusNames.objectPath, interface: BusNames.interface, member: "Stop")
        }
    }
}
