import ArgumentParser
import CPulse
import Foundation
import LectorAudio
import LectorLoop
import LectorPolicy

/// `lector-bench pulse-probe`: what libpulse offers but pactl does not print (saved stream-restore
/// entries), for the test kit (`TestSession.savedStreamEntries()`, `saveStreamEntry(...)`).
/// Reads and writes through LectorAudio's own saved-stream code (`SoundServerMirror.readSavedStreams`
/// and `writeSavedStreams`) on the benchmark's loop (`BenchLoop`, no bus).
///
/// The server is the one libpulse finds on its own (PULSE_SERVER etc.); never autospawned. Exit 0 on
/// success; 1 with a message on stderr when the server cannot be reached, does not offer the
/// stream-restore extension or refuses the request; 2 for bad arguments; 3 for a write not confirmed
/// by a read on the same connection.
struct PulseProbe: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pulse-probe",
        abstract: "Test tool: read or write the sound server's saved stream-restore entries.",
        subcommands: [StreamRestore.self, StreamRestoreWrite.self])

    static func fail(_ message: String, status: Int32 = 1) -> ExitCode {
        FileHandle.standardError.write(Data("lector-bench pulse-probe: \(message)\n".utf8))
        return ExitCode(status)
    }

    struct StreamRestore: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "stream-restore",
            abstract: "Print every saved stream-restore entry, one a line.",
            discussion: """
                NAME<TAB>v1,v2,...<TAB>muted (0/1)<TAB>device, with the raw pa_volume_t of each channel (empty when the entry saves no volume) and an empty device when none is saved.
                """)

        func run() throws {
            let entries = try SavedStreamProbe.connected { try $0.read() }
            for entry in entries { print(SavedStreamProbe.line(entry)) }
        }
    }

    struct StreamRestoreWrite: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "stream-restore-write",
            abstract: "Save (replace) one stream-restore entry, as a crashed client would leave it.",
            discussion: """
                e.g. `stream-restore-write sink-input-by-media-role:music 13107`. The volume list may be empty to save no volume. Reads it back and writes it again every 100 ms until listed; exit 3 if it is still not listed on this connection after 1.5 s (pipewire-pulse, under load, sometimes serves a connection no route-settings entries at all while its writes do land: read again on a new connection before writing again).
                """)

        @Argument(help: "The entry's name, e.g. sink-input-by-media-role:music.") var name: String
        @Argument(help: "Raw pa_volume_t values, comma-separated (may be empty).") var volumes: String
        @Argument(help: "0 or 1.") var muted = "0"
        @Argument(help: "The device to save (PulseAudio only).") var device: String?

        func parsedVolumes() -> [UInt32]? {
            guard !volumes.isEmpty else { return [] }
            let values = volumes.split(separator: ",", omittingEmptySubsequences: false).map { UInt32(String($0)) }
            guard values.count <= Int(PA_CHANNELS_MAX), values.allSatisfy({ $0 != nil && $0! <= ChannelVolumes.max }) else {
                return nil
            }
            return values.map { $0! }
        }

        func validate() throws {
            guard parsedVolumes() != nil else {
                throw PulseProbe.fail("bad volume list \"\(volumes)\" (raw pa_volume_t values, comma-separated)", status: 2)
            }
            guard muted == "0" || muted == "1" else { throw PulseProbe.fail("MUTED must be 0 or 1", status: 2) }
        }

        func run() throws {
            var entry = SavedStreamEntry(name: name, volume: ChannelVolumes(parsedVolumes() ?? []))
            entry.muted = muted == "1"
            entry.device = device
            try SavedStreamProbe.connected { try $0.write(entry) }
        }
    }
}

/// One connection to the sound server for the probe: `BenchLoop` without a bus, its mirror's
/// saved-stream requests, bounded by deadlines.
final class SavedStreamProbe {
    /// pipewire-pulse answers the extension from a per-connection copy of WirePlumber's
    /// "route-settings" metadata, which a new connection receives asynchronously after it is ready:
    /// a read right away can miss entries and a write can be dropped (acknowledged all the same).
    static let pipeWireSettleMicroseconds: UInt32 = 250_000

    private let loop: BenchLoop

    /// Connects, runs `body`, disconnects; a failure is said on stderr and becomes the exit status.
    static func connected<T>(_ body: (SavedStreamProbe) throws -> T) throws -> T {
        let loop = BenchLoop(properties: ["application.name": "lector-bench pulse-probe"], bus: false)
        defer { loop.stop() }
        do {
            try loop.start(timeout: 10)
            let server = try loop.request("server info") { done in loop.serverName { done($0) } }
            if server.contains("PipeWire") { usleep(pipeWireSettleMicroseconds) }
            return try body(SavedStreamProbe(loop: loop))
        } catch let exit as ExitCode {
            throw exit
        } catch {
            throw PulseProbe.fail("\(error)")
        }
    }

    private init(loop: BenchLoop) { self.loop = loop }

    static func line(_ entry: SavedStreamEntry) -> String {
        "\(entry.name)\t\(entry.volume.values.map(String.init).joined(separator: ","))\t\(entry.muted ? 1 : 0)\t\(entry.device ?? "")"
    }

    func read() throws -> [SavedStreamEntry] {
        let entries: [SavedStreamEntry]? = try loop.request("reading the stream-restore entries") { [loop] done in
            onLoopThread(done) { done in loop.mirror.readSavedStreams { done($0) } }
        }
        guard let entries else {
            // LectorAudio's read answers nil when the server has no such extension (or refused the read).
            throw BenchError("the sound server does not offer the stream-restore extension "
                             + "(PulseAudio: load module-stream-restore)")
        }
        return entries
    }

    /// Writes, then reads back until the entry is listed: pipewire-pulse acknowledges a write that
    /// it dropped, so an unlisted entry is written again every 100 ms, for at most 1.5 s.
    func write(_ entry: SavedStreamEntry) throws {
        let started = Date()
        var attempts = 0
        var entries: [SavedStreamEntry] = []
        while true {
            attempts += 1
            let saved: Bool = try loop.request("saving \(entry.name)") { [loop] done in
                onLoopThread((entry, done)) { entry, done in
                    loop.mirror.writeSavedStreams([entry], applyImmediately: true) { done($0) }
                }
            }
            guard saved else { throw BenchError("the server refused to save the entry") }
            entries = try read()
            // Exact on PulseAudio; pipewire-pulse stores floats, so allow one step of rounding.
            let listed = entries.contains { read in
                read.name == entry.name && read.muted == entry.muted && read.volume.channels == entry.volume.channels
                    && zip(read.volume.values, entry.volume.values).allSatisfy { abs(Int64($0) - Int64($1)) <= 1 }
            }
            if listed { return }
            if Date().timeIntervalSince(started) > 1.5 {
                throw PulseProbe.fail("written \(attempts) times but not listed on this connection: "
                                      + "\(entries.map(Self.line)) (read again on a new connection)", status: 3)
            }
            usleep(100_000)
        }
    }
}
