import Foundation

/// Helpers for audio-policy tests: sinks that come and go, other applications' streams, saved
/// stream volumes. Each works the same on PulseAudio and on pipewire-pulse.
extension TestSession {
    // MARK: - Sinks

    /// Loads a null sink through `pactl load-module module-null-sink` (rate 22050 like the session's
    /// sinks, `channels` channels) with `properties` as its sink properties (e.g.
    /// `["device.form_factor": "headphone", "device.bus": "bluetooth"]`; device.description
    /// defaults to `name`). Returns the module index, for `unloadModule`. The sink is listed once
    /// this returns. Property keys are [A-Za-z0-9._-]; values cannot contain quotes or backslashes.
    @discardableResult
    public func loadNullSink(name: String, properties: [String: String] = [:], channels: Int = 1) throws -> UInt32 {
        let output = try pactl(["load-module", "module-null-sink"]
                               + Self.nullSinkArguments(name: name, properties: properties, channels: channels))
        guard let module = UInt32(output.trimmingCharacters(in: .whitespacesAndNewlines)) else {
            throw TestKitError.failed("pactl load-module printed no module index: \(output)")
        }
        let deadline = Date(timeIntervalSinceNow: 5)
        while try !sinkInfos().contains(where: { $0.name == name }) {
            guard Date() < deadline else { throw TestKitError.timedOut("sink \(name) (module \(module)) not listed") }
            usleep(10_000)
        }
        return module
    }

    /// `pactl unload-module`, e.g. a sink of `loadNullSink` (its streams move or die as on a desktop).
    public func unloadModule(_ index: UInt32) throws {
        try pactl(["unload-module", String(index)])
    }

    /// module-null-sink arguments, quoted as both PulseAudio's and pipewire-pulse's parsers want
    /// (`sink_properties='key="value" ...'`).
    static func nullSinkArguments(name: String, properties: [String: String], channels: Int) throws -> [String] {
        var properties = properties
        if properties["device.description"] == nil { properties["device.description"] = name }
        let keyCharacters = CharacterSet(charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-")
        for (key, value) in properties {
            guard !key.isEmpty, key.unicodeScalars.allSatisfy(keyCharacters.contains) else {
                throw TestKitError.failed("sink property key \"\(key)\": use [A-Za-z0-9._-]")
            }
            guard !value.contains(where: { "'\"\\".contains($0) }) else {
                throw TestKitError.failed("sink property \(key): the value cannot contain quotes or backslashes: \(value)")
            }
        }
        guard name.unicodeScalars.allSatisfy(keyCharacters.contains), !name.isEmpty else {
            throw TestKitError.failed("sink name \"\(name)\": use [A-Za-z0-9._-]")
        }
        guard (1...8).contains(channels) else { throw TestKitError.failed("channels \(channels): 1 to 8") }
        let list = properties.sorted { $0.key < $1.key }.map { "\($0.key)=\"\($0.value)\"" }.joined(separator: " ")
        return ["sink_name=\(name)", "rate=\(MonitorRecording.sampleRate)", "channels=\(channels)",
                "sink_properties='\(list)'"]
    }

    /// Every sink (index, name, raw volumes, mute, properties).
    public func sinkInfos() throws -> [SinkInfo] {
        try SoundServerParsing.sinks(json: pactl(["--format=json", "list", "sinks"]))
    }

    /// `pactl set-default-sink`, returning once the server reports `name` as the default (under
    /// PipeWire, WirePlumber applies it asynchronously, and moves the streams that follow the default then).
    public func setDefaultSink(_ name: String, timeout: TimeInterval = 5) throws {
        let deadline = Date(timeIntervalSinceNow: timeout)
        while true {
            try pactl(["set-default-sink", name])
            if try pactl(["get-default-sink"]).trimmingCharacters(in: .whitespacesAndNewlines) == name { return }
            guard Date() < deadline else { throw TestKitError.timedOut("\(name) did not become the default sink") }
            usleep(50_000)
        }
    }

    // MARK: - Streams

    /// `pactl move-sink-input`, returning once the stream is listed on `sink`. The move is issued
    /// again every 300 ms until then: pipewire-pulse 0.3.65 with WirePlumber 0.4 acknowledges a move
    /// of a corked stream that sometimes never happens (2 of 4 tries here), and a second move works.
    public func moveStream(_ index: UInt32, to sink: String, timeout: TimeInterval = 5) throws {
        let deadline = Date(timeIntervalSinceNow: timeout)
        while true {
            try pactl(["move-sink-input", String(index), sink])
            let moveDeadline = Date(timeIntervalSinceNow: 0.3)
            repeat {
                if try playbackStreams().first(where: { $0.index == index })?.sinkName == sink { return }
                usleep(20_000)
            } while Date() < moveDeadline
            guard Date() < deadline else {
                throw TestKitError.timedOut("sink input \(index) not on \(sink) \(timeout) s after moving it: "
                                            + "\(String(describing: try? playbackStreams().first { $0.index == index }))")
            }
        }
    }

    /// Every playback stream (sink-input): ours, the daemon's and other applications'.
    public func playbackStreams() throws -> [PlaybackStreamInfo] {
        let sinks = try sinkInfos()
        return try SoundServerParsing.playbackStreams(json: pactl(["--format=json", "list", "sink-inputs"]), sinks: sinks)
    }

    /// The playback streams whose application.name is `name` (as `startPlayback` names them).
    public func playbackStreams(named name: String) throws -> [PlaybackStreamInfo] {
        try playbackStreams().filter { $0.applicationName == name }
    }

    /// Every recording stream (source-output), including the session's own monitor recorders.
    public func captureStreams() throws -> [CaptureStreamInfo] {
        let sources = try SoundServerParsing.sourceNames(json: pactl(["--format=json", "list", "sources"]))
        return try SoundServerParsing.captureStreams(json: pactl(["--format=json", "list", "source-outputs"]),
                                                      sources: sources)
    }

    /// Another application playing: `pacat` with application.name and media.name `name`,
    /// media.role `role` (none if nil), on `sink` (default sink if nil), playing a 440 Hz tone at
    /// about -10 dBFS (`tone`) or digital silence, for a day. Returns once the stream is listed by
    /// `playbackStreams(named: name)`. The session ends it at shutdown; terminate it to end the
    /// "application" earlier. It exits by itself when the sound server goes away.
    @discardableResult
    public func startPlayback(role: String?, sink: String? = nil, name: String, tone: Bool = true) throws -> ManagedProcess {
        var pacat = ["--playback", "--raw", "--format=s16le", "--rate=\(MonitorRecording.sampleRate)", "--channels=1",
                     "--client-name=\(name)", "--stream-name=\(name)"]
        if let role { pacat.append("--property=media.role=\(role)") }
        if let sink { pacat.append("--device=\(sink)") }
        // The pacat arguments go through "$@", so names and roles need no shell quoting.
        let source = tone ? "sine 440 vol 0.3" : "sine 440 vol 0"
        let script = "sox -q -n -t raw -r \(MonitorRecording.sampleRate) -e signed-integer -b 16 -c 1 - synth 86400 \(source)"
            + " | pacat \"$@\""
        let player = try spawn("sh", ["-c", script, "lector-testkit-playback"] + pacat)
        try waitUntilListed("playback stream \(name)", process: player) { try !playbackStreams(named: name).isEmpty }
        return player
    }

    /// Another application recording, e.g. a call (`role` "phone"): `parec` with application.name
    /// and media.name `name` from `source` (default source, i.e. the default sink's monitor, if
    /// nil), discarding what it records. Returns once `captureStreams()` lists it.
    @discardableResult
    public func startCapture(role: String? = "phone", source: String? = nil, name: String) throws -> ManagedProcess {
        var arguments = ["--raw", "--format=s16le", "--rate=\(MonitorRecording.sampleRate)", "--channels=1",
                         "--client-name=\(name)", "--stream-name=\(name)"]
        if let role { arguments.append("--property=media.role=\(role)") }
        if let source { arguments.append("--device=\(source)") }
        let recorder = try launch("parec", arguments, environment: environment,
                                  stdout: .file(URL(fileURLWithPath: "/dev/null")))
        lock.withLock { children.append(recorder) }
        try waitUntilListed("capture stream \(name)", process: recorder) {
            try captureStreams().contains { $0.applicationName == name }
        }
        return recorder
    }

    private func waitUntilListed(_ what: String, process: ManagedProcess, timeout: TimeInterval = 5,
                                 _ listed: () throws -> Bool) throws {
        let deadline = Date(timeIntervalSinceNow: timeout)
        while try !listed() {
            guard process.isRunning else { throw TestKitError.failed("\(what): \(process.name) exited:\n\(process.output)") }
            guard Date() < deadline else {
                process.terminate(grace: 1)
                throw TestKitError.timedOut("\(what) not listed within \(timeout) s:\n\(process.output)")
            }
            usleep(10_000)
        }
    }

    // MARK: - Saved stream volumes

    /// `lector-bench`, built with this package (override: LECTOR_BENCH_BIN), whose `pulse-probe`
    /// subcommand reads and writes saved stream-restore entries through LectorAudio.
    public static var benchPath: String {
        BuiltProduct.path(named: "lector-bench", overrideVariable: "LECTOR_BENCH_BIN")
    }

    /// `lector-bench pulse-probe ARGUMENTS`.
    private func runPulseProbe(_ arguments: [String]) throws -> ProcessResult {
        try run(Self.benchPath, ["pulse-probe"] + arguments, timeout: 15)
    }

    /// Every saved stream-restore entry the server offers through the PulseAudio protocol's
    /// stream-restore extension (PulseAudio's module-stream-restore database; pipewire-pulse's
    /// "route-settings" metadata, see `savedStreamVolumes()`). On PipeWire this is the union of two
    /// reads on two connections: under load pipewire-pulse sometimes serves a new connection none of
    /// the entries (entries are never deleted there, so the union is the truth).
    public func savedStreamEntries() throws -> [SavedStreamEntry] {
        let reads = soundServerKind == .pipewire ? 2 : 1
        var entries: [SavedStreamEntry] = []
        for _ in 0..<reads {
            let result = try runPulseProbe(["stream-restore"])
            guard result.succeeded else { throw TestKitError.failed("lector-bench pulse-probe stream-restore: \(result)") }
            for entry in try SoundServerParsing.savedStreamEntries(probeOutput: result.stdout) {
                entries.removeAll { $0.name == entry.name }
                entries.append(entry)
            }
        }
        return entries
    }

    /// Saved volume (raw per-channel values) by entry name, e.g. `sink-input-by-media-role:music`.
    /// On PulseAudio every volume change of a stream is saved here. On pipewire-pulse (0.3.65 with
    /// WirePlumber 0.4) only what clients wrote through the extension (and WirePlumber's
    /// Notification entry) is listed: volumes WirePlumber saves on its own when a stream's volume
    /// changes go to its state file only (see `wirePlumberRestoreStreamState()`).
    public func savedStreamVolumes() throws -> [String: [UInt32]] {
        Dictionary(try savedStreamEntries().map { ($0.name, $0.volume) }, uniquingKeysWith: { _, last in last })
    }

    /// Saves (replaces) one stream-restore entry through the extension, as a client that crashed
    /// while ducking would leave it: e.g. `saveStreamEntry(name: "sink-input-by-media-role:music", volume: [13107])`.
    /// Returns once a read lists it (pipewire-pulse can acknowledge a write it dropped, and can serve
    /// a connection no entries; see `lector-bench pulse-probe`). pipewire-pulse does not save `device`.
    public func saveStreamEntry(name: String, volume: [UInt32], muted: Bool = false, device: String? = nil) throws {
        var arguments = ["stream-restore-write", name, volume.map(String.init).joined(separator: ","), muted ? "1" : "0"]
        if let device { arguments.append(device) }
        func listed(_ entries: [SavedStreamEntry]) -> Bool {
            entries.contains { entry in
                entry.name == name && entry.muted == muted && entry.volume.count == volume.count
                    && zip(entry.volume, volume).allSatisfy { abs(Int64($0) - Int64($1)) <= 1 }
            }
        }
        var last: ProcessResult?
        var entries: [SavedStreamEntry] = []
        for _ in 0..<4 {
            let result = try runPulseProbe(arguments)
            last = result
            // 0: listed on the probe's connection; 3: written, not listed there; else a real failure.
            guard result.status == 0 || result.status == 3 else { break }
            entries = try savedStreamEntries()
            if listed(entries) { return }
        }
        var metadata = ""
        if soundServerKind == .pipewire {
            metadata = "\nroute-settings metadata: " + ((try? run("pw-metadata", ["-n", "route-settings"], timeout: 1).stdout) ?? "?")
        }
        throw TestKitError.failed("lector-bench pulse-probe \(arguments) did not save it: \(last.map(\.description) ?? "")"
                                  + "\nlisted: \(entries)\(metadata)")
    }

    /// PipeWire only: WirePlumber's restore-stream state file as key → value, e.g.
    /// `Output/Audio:media.role:Music:channelVolumes` → `0.027;` (cubic volumes, 0.3³ for 30 %).
    /// WirePlumber writes it 1 s after the last change. Empty if there is none (and on PulseAudio).
    public func wirePlumberRestoreStreamState() -> [String: String] {
        let home = environment["XDG_STATE_HOME"] ?? directory.appendingPathComponent("home/.local/state").path
        guard let text = try? String(contentsOfFile: home + "/wireplumber/restore-stream", encoding: .utf8) else {
            return [:]
        }
        var state: [String: String] = [:]
        for line in text.split(separator: "\n") where !line.hasPrefix("[") {
            // Keys contain ':' and '/', never '='; values may (they are escaped lists).
            guard let equals = line.firstIndex(of: "=") else { continue }
            state[String(line[..<equals])] = String(line[line.index(after: equals)...])
        }
        return state
    }
}
