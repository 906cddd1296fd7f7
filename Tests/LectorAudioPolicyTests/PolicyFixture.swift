import Foundation
import LectorTestKit
import XCTest

/// A private session (bus + sound server with two null sinks) with `lector serve` in it, a book
/// long enough to narrate for minutes, and the tools the audio-policy tests need: the state of
/// our narration stream, other apps' streams, PlaybackStatus and PausedBecause.
final class PolicyFixture {
    static let mprisName = "org.mpris.MediaPlayer2.lector"
    static let objectPath = "/io/github/lector/Lector1"
    static let narrator = "io.github.lector.Narrator1"

    let session: TestSession
    private(set) var daemons: [ManagedProcess] = []
    var daemon: ManagedProcess { daemons[daemons.count - 1] }
    var lector: String { LectorExecutable.path }

    init(sinks: [String] = ["lector_test", "speakers"], config: String? = nil) throws {
        session = try TestSession(sinks: sinks)
        do {
            if let config { try writeConfig(config) }
            try startDaemon()
        } catch {
            session.shutdown()
            throw error
        }
    }

    func shutdown() { session.shutdown() }

    func startDaemon() throws {
        let started = try session.spawn(lector, ["serve"], extraEnvironment: ["LECTOR_LOG": "stderr"])
        daemons.append(started)
        try session.waitForBusName(Self.mprisName, timeout: 15)
    }

    func writeConfig(_ text: String) throws {
        let folder = URL(fileURLWithPath: session.environment["XDG_CONFIG_HOME"]!).appendingPathComponent("lector")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try text.write(to: folder.appendingPathComponent("config.toml"), atomically: true, encoding: .utf8)
    }

    /// Daemon logs, sound server state: attached to failure messages.
    var context: String {
        let logs = daemons.enumerated().map { "--- daemon \($0.offset + 1) (running: \($0.element.isRunning)) ---\n\($0.element.output)" }
        let streams = (try? session.pactl(["list", "sink-inputs"])) ?? "(pactl failed)"
        return "\n" + logs.joined(separator: "\n") + "\n--- sink inputs ---\n" + streams
    }

    // MARK: - narration

    /// Opens a long plain-text book and waits until it plays.
    func narrate() throws {
        let folder = session.directory.appendingPathComponent("books", isDirectory: true)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let sentence = "The quiet river runs past the old mill and the green fields where the farmer walks. "
        let file = folder.appendingPathComponent("river.txt")
        try ("Chapter 1\n\n" + String(repeating: sentence, count: 60)).write(to: file, atomically: true, encoding: .utf8)
        let result = try session.run(lector, ["read", file.path, "--from-start"], timeout: 30)
        guard result.succeeded else { throw FixtureError("lector read failed: \(result)\(context)") }
        guard try poll(timeout: 10, { try status() == "Playing" }) else {
            throw FixtureError("narration did not start: \(String(describing: try? status()))\(context)")
        }
        guard try poll(timeout: 10, { try narrationStream()?.corked == false }) else {
            throw FixtureError("the narration stream did not start playing\(context)")
        }
    }

    func playerctl(_ arguments: String...) throws -> ProcessResult {
        try session.run("playerctl", ["-p", "lector"] + arguments, timeout: 10)
    }

    func status() throws -> String {
        try playerctl("status").stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    func pausedBecause() throws -> String {
        let result = try session.run("busctl", ["--user", "get-property", Self.mprisName, Self.objectPath,
                                                Self.narrator, "PausedBecause"], timeout: 10)
        guard result.succeeded else { throw FixtureError("PausedBecause: \(result)") }
        // s "device-removed"
        return result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
            .dropFirst(2).trimmingCharacters(in: CharacterSet(charactersIn: "\""))
    }

    /// Our narration stream (media.name "Lector narration").
    func narrationStream() throws -> PlaybackStreamInfo? {
        try session.playbackStreams().first { $0.properties["media.name"] == "Lector narration" }
    }

    func announcementStream() throws -> PlaybackStreamInfo? {
        try session.playbackStreams().first { $0.properties["media.name"] == "Lector speech" }
    }

    func stream(_ index: UInt32) throws -> PlaybackStreamInfo? {
        try session.playbackStreams().first { $0.index == index }
    }

    /// `lector say TEXT` with options, not waiting.
    func say(_ text: String, _ options: [String] = []) throws {
        let result = try session.run(lector, ["say"] + options + [text], timeout: 30)
        guard result.succeeded else { throw FixtureError("lector say failed: \(result)\(context)") }
    }

    /// Starts `lector say --wait` in the background.
    func sayAndWait(_ text: String, _ options: [String] = []) throws -> ManagedProcess {
        try session.spawn(lector, ["say", "--wait"] + options + [text])
    }
}

struct FixtureError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

