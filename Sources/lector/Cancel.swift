import ArgumentParser
import LectorCommandLine
import LectorBus
import LectorInterface

/// `lector cancel ID | --all`: ends a waiting or speaking announcement (reason "cancelled").
struct Cancel: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cancel",
        abstract: "Cancel an announcement by id, or all of them.",
        discussion: """
            Ids are printed by `lector say --print-id` and listed by `lector queue`.

            Examples:
              lector cancel 42
              lector cancel --all
            """)

    @Flag(name: [.short, .long], help: "Cancel everything: the speech being spoken, then every waiting one.") var all = false
    @Argument(help: "The id of the speech to cancel.") var id: UInt64?

    func validate() throws {
        if all == (id != nil) { throw ValidationError("give an id or --all (not both)") }
    }

    /// Never starts a daemon: without one nothing speaks, so --all is done and an id is unknown.
    func run() throws {
        let client = try DaemonClient()
        do {
            if let id {
                _ = try client.callDaemon(path: BusNames.objectPath, interface: BusNames.interface, member: "Cancel",
                                          start: false) { try $0.append(id) }
            } else {
                _ = try client.callDaemon(path: BusNames.objectPath, interface: BusNames.interface, member: "Stop", start: false)
            }
        } catch is DaemonClient.NotRunning {
            if let id { throw CLIError("no speech \(id) is waiting or speaking: Lector is not running") }
        }
    }
}
