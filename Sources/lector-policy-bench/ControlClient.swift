import Foundation
import LectorBus

/// Blocking calls that set the scene between measurements (Open, Play, Pause, property reads),
/// on a bus connection of the orchestrating thread: never on the benchmark's loop, which keeps
/// dating events meanwhile. Nothing timed goes through here.
final class ControlClient {
    static let mprisName = "org.mpris.MediaPlayer2.lector"
    static let mprisPath = "/org/mpris/MediaPlayer2"
    static let playerInterface = "org.mpris.MediaPlayer2.Player"
    static let objectPath = "/io/github/lector/Lector1"
    static let narratorInterface = "io.github.lector.Narrator1"
    static let lectorInterface = "io.github.lector.Lector1"

    let bus: Bus

    /// Connects to `DBUS_SESSION_BUS_ADDRESS` of this process (the session's private bus).
    init() throws { bus = try Bus.session() }

    func player(_ member: String) throws {
        do {
            _ = try bus.call(destination: Self.mprisName, path: Self.mprisPath, interface: Self.playerInterface,
                             member: member)
        } catch {
            throw BenchError("MPRIS \(member) failed: \(error)")
        }
    }

    /// Narrator1.Open(uri, {}).
    func open(_ url: URL) throws {
        do {
            _ = try bus.call(destination: Self.mprisName, path: Self.objectPath, interface: Self.narratorInterface,
                             member: "Open") { writer in
                try writer.append(url.absoluteString)
                try writer.container("a", "{sv}") {}
            }
        } catch {
            throw BenchError("Narrator1.Open \(url.lastPathComponent) failed: \(error)")
        }
    }

    func property(path: String, interface: String, _ name: String) throws -> String {
        do {
            return try bus.call(destination: Self.mprisName, path: path, interface: "org.freedesktop.DBus.Properties",
                                member: "Get") {
                try $0.append(interface)
                try $0.append(name)
            }.readDisplayVariant()
        } catch {
            throw BenchError("reading \(interface).\(name) failed: \(error)")
        }
    }

    func playbackStatus() throws -> String {
        try property(path: Self.mprisPath, interface: Self.playerInterface, "PlaybackStatus")
    }

    func pausedBecause() throws -> String {
        try property(path: Self.objectPath, interface: Self.narratorInterface, "PausedBecause")
    }
}
