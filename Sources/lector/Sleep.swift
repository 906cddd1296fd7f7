import ArgumentParser
import LectorCommandLine
import FoundationEssentials
import Glibc
import LectorBus
import LectorCore
import LectorInterface

/// `lector sleep 20m | 1h30m | chapter | off`: pause narration later, fading the last 20 s.
struct Sleep: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sleep",
        abstract: "Pause narration after a while of listening, or at the chapter's end.",
        discussion: """
            The time counts while narration plays (a pause holds it), up to 24h. The last 20 s \
            fade out (Lector's own narration only; other apps are untouched), then narration \
            pauses and the bookmark is written. Play, seek or a rate change while it fades brings \
            the volume back (the timer still ends on time); a new `lector sleep` replaces it. \
            Without an argument: the timer now.

            Examples:
              lector sleep 45s
              lector sleep 1h30m
              lector sleep chapter      at the end of the chapter being heard
              lector sleep off
            """)

    // All unrecognized: "-5m" is a (bad) value here, not an unknown option.
    @Argument(parsing: .allUnrecognized, help: "45s, 20m, 1h30m, chapter or off.")
    var duration: [String] = []

    func validate() throws {
        guard duration.count <= 1 else {
            throw ValidationError("give one duration (45s, 20m, 1h30m), chapter or off, not \(duration.joined(separator: " "))")
        }
        if let text = duration.first {
            do {
                _ = try SleepRequest(text)
            } catch let error as LectorError {
                throw ValidationError(error.message)
            }
        }
    }

    func run() throws {
        let client = try DaemonClient()
        if let text = duration.first {
            _ = try client.callDaemon(path: BusNames.objectPath, interface: MPRISNames.narrator, member: "SetSleepTimer") {
                try $0.append(text)
            }
        }
        let timer: [String: String]
        do {
            timer = try client.property(BusNames.objectPath, MPRISNames.narrator, "SleepTimer", start: duration.first != nil)
                .readDisplayDictionary()
        } catch is DaemonClient.NotRunning {
            print("No sleep timer (Lector is not running).")
            return
        }
        print(Self.describe(timer, long: true))
    }

    /// "pauses in 19:32", "pauses at the end of this chapter", "off"; `long` for `lector sleep`.
    static func describe(_ timer: [String: String], long: Bool = false) -> String {
        guard let mode = timer["mode"] else { return long ? "No sleep timer." : "off" }
        let fading = timer["fading"] == "true" ? (long ? " (fading out now)" : ", fading") : ""
        if mode == "chapter" {
            return (long ? "Narration pauses at the end of this chapter" : "end of chapter") + fading + (long ? "." : "")
        }
        let left = DurationText.clock(seconds: Int((Int64(timer["remaining"] ?? "") ?? 0) / 1_000_000))
        return long ? "Narration pauses in \(left) of listening; the last 20 s fade out\(fading)." : "\(left) left\(fading)"
    }
}
