import ArgumentParser
import LectorCommandLine
import FoundationEssentials
import Glibc
import LectorBus
import LectorCore
import LectorInterface

/// `lector rate [1.4]`: the speed of the book being read, remembered for that book.
struct Rate: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rate",
        abstract: "Show or set the speed of the book being read (remembered per book).",
        discussion: """
            1.0 is normal, from 0.5 to 2.5; it changes at the next word. Other books keep \
            config.toml's [speech] rate (or their own).

            Examples:
              lector rate 1.4
              lector rate           the speed now
            """)

    @Argument(help: "The new speed, 0.5 to 2.5 (1.0 is normal).") var rate: Double?

    func validate() throws {
        try Say.check("rate", rate, in: PlayerState.rateRange)
    }

    func run() throws {
        let client = try DaemonClient()
        let book: [String: String]
        do {
            book = try client.property(BusNames.objectPath, MPRISNames.narrator, "Book", start: rate != nil).readDisplayDictionary()
        } catch is DaemonClient.NotRunning {
            throw CLIError(Status.notRunning + " Start a book with: lector read FILE")
        }
        guard let title = book["title"] else {
            throw CLIError("No book is open: the speed is the book's (lector read FILE --rate \(rate.map { String($0) } ?? "1.4"))")
        }
        if let rate {
            _ = try client.callDaemon(path: MPRISNames.path, interface: "org.freedesktop.DBus.Properties", member: "Set") { writer in
                try writer.append(MPRISNames.player)
                try writer.append("Rate")
                try writer.container("v", "d") { try writer.append(rate) }
            }
        }
        let now = Double(try client.property(MPRISNames.path, MPRISNames.player, "Rate").readDisplayVariant()) ?? 1
        print(rate == nil ? "Reading \(title) at \(Self.format(now))."
                          : "Reading \(title) at \(Self.format(now)) from the next word; remembered for this book.")
    }

    /// "1.4×", "1×".
    static func format(_ rate: Double) -> String {
        let rounded = (rate * 100).rounded() / 100
        return (rounded == rounded.rounded() ? String(Int(rounded)) : String(rounded)) + "×"
    }
}
