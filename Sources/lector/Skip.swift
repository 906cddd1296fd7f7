import ArgumentParser
import LectorCommandLine
import FoundationEssentials
import Glibc
import LectorBus
import LectorCore
import LectorInterface

/// `lector skip -15s | +30s | +2m`: move back or ahead in the book, across chapters.
struct Skip: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "skip",
        abstract: "Skip back or ahead in the book being read.",
        discussion: """
            Book time, as MPRIS Seek counts it (at 2× speed, +30s is 15 s of listening). It goes \
            across chapters, lands on the start of a word, and stops at the book's start and its \
            last word. Playing goes on playing, paused stays paused.

            Examples:
              lector skip -15s
              lector skip +30s
              lector skip 2m
            """)

    // All unrecognized: "-15s" is the value, not an unknown option.
    @Argument(parsing: .allUnrecognized, help: "How far: -15s back, +30s or 2m ahead (h, m, s).")
    var offset: [String] = []

    func validate() throws {
        guard offset.count == 1 else {
            throw ValidationError(offset.isEmpty ? "say how far: lector skip -15s (back) or lector skip +30s (ahead)"
                                                 : "give one offset such as -15s or +30s, not \(offset.joined(separator: " "))")
        }
        do {
            _ = try DurationText.signedMicroseconds(offset[0])
        } catch let error as LectorError {
            throw ValidationError(error.message)
        }
    }

    func run() throws {
        let microseconds = try DurationText.signedMicroseconds(offset[0])
        let client = try DaemonClient()
        _ = try client.callDaemon(path: BusNames.objectPath, interface: MPRISNames.narrator, member: "Skip") {
            try $0.append(microseconds)
        }
        let metadata = try client.property(MPRISNames.path, MPRISNames.player, "Metadata").readDisplayDictionary()
        let position = Int64(try client.property(MPRISNames.path, MPRISNames.player, "Position").readDisplayVariant()) ?? 0
        print("At \(Status.Snapshot.clock(position)) of chapter \(metadata["xesam:trackNumber"] ?? "?"): \(metadata["xesam:title"] ?? "")")
    }
}
