import ArgumentParser
import LectorCommandLine
import LectorBus
import LectorInterface

/// `lector queue`: what is being spoken and what waits, in the order it will be spoken.
struct Queue: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "queue",
        abstract: "List the announcement being spoken and the waiting ones.",
        discussion: """
            One line each: id, priority, state (speaking or waiting) and the start of the text. \
            It never starts the daemon: without one, nothing is spoken or waiting.

            Example: lector queue
            """)

    func run() throws {
        let reply: MessageReader
        do {
            reply = try DaemonClient().callDaemon(path: BusNames.objectPath, interface: BusNames.interface,
                                                  member: "GetQueue", start: false)
        } catch is DaemonClient.NotRunning {
            print("nothing is being spoken or waiting (Lector is not running)")
            return
        }
        let entries = try reply.readStructArray("tsss") {
            (id: try reply.readUInt64(), priority: try reply.readString(), state: try reply.readString(),
             text: try reply.readString())
        }
        if entries.isEmpty {
            print("nothing is being spoken or waiting")
            return
        }
        for entry in entries {
            let flat = entry.text.split(whereSeparator: { $0.isNewline }).joined(separator: " ")
            let text = flat.count > 60 ? flat.prefix(59) + "…" : Substring(flat)
            print("\(entry.id)\t\(entry.priority)\t\(entry.state)\t\(text)")
        }
    }
}
