import Foundation
import LectorAudio
import LectorLoop
import LectorInterface
import LectorPolicy
import LectorTestKit
#if canImport(Glibc)
import Glibc
#endif

/// One series of samples, in milliseconds.
struct Series {
    let key: String
    let label: String
    /// One of issue 4's four figures (goal: median under 50 ms), or a breakdown row.
    let isGoal: Bool
    var samples: [Double] = []

    init(_ key: String, _ label: String, goal: Bool = false) {
        self.key = key
        self.label = label
        isGoal = goal
    }
}

struct PolicyResults {
    var runs = 0
    var serverName = "?"
    var routeToPaused = Series("sink_removed_to_paused", "sink removed -> Paused signal", goal: true)
    var routeSinkSeen = Series("sink_removed_seen", "  sink removed -> bench mirror sees sink gone")
    var routeCorked = Series("sink_removed_to_corked", "  sink removed -> narration corked (mirror)")
    var callToSilence = Series("phone_start_to_silence", "phone stream start -> narration corked", goal: true)
    var callSeen = Series("phone_stream_seen", "  phone stream start -> bench mirror sees it")
    var callToPaused = Series("phone_start_to_paused", "  phone stream start -> Paused signal")
    var callEndToPlaying = Series("call_end_to_playing", "  call end -> Playing signal (auto-resume)")
    var callEndToUncorked = Series("call_end_to_uncorked", "  call end -> narration uncorked (mirror)")
    var duckFirstStep = Series("announcement_to_first_ramp_step", "  announcement start -> first ramp step")
    var duckDone = Series("announcement_to_ducked", "announcement start -> ducked (30 %)", goal: true)
    var duckReply = Series("announcement_speak_reply", "  announcement start -> Speak reply")
    var restore = Series("end_to_restored", "last announcement end -> restored", goal: true)
    /// Route runs whose pause gave another PausedBecause than device-removed: not counted.
    var routeWrongReason: [String] = []
    var notes: [String] = []

    var all: [Series] {
        [routeToPaused, routeSinkSeen, routeCorked, callToSilence, callSeen, callToPaused, callEndToPlaying,
         callEndToUncorked, duckDone, duckFirstStep, duckReply, restore]
    }
}

@inline(__always)
func milliseconds(_ from: UInt64, _ to: UInt64) -> Double {
    (Double(to) - Double(from)) / 1_000_000
}

/// The measurements, in one private session with one `lector serve`.
final class PolicyRun {
    static let narrationName = "Lector narration"
    static let speechName = "Lector speech"
    static let headset = "bt_headset"
    static let speakers = "lector_test"
    static let musicName = "policy-bench-music"
    /// The other app's music volume before every duck: 75 %, on both channels.
    static let musicVolume = ChannelVolumes(channels: 2, value: ChannelVolumes.norm * 3 / 4)
    static let duckLevel = 0.3
    static let announcement = "Kettle ready."
    /// Narration plays this long before each route or call run (steady state, not a just-started stream).
    static let settleMicroseconds: UInt32 = 250_000
    /// After the bench's mirror sees the paused narration moved to the new default sink, the
    /// daemon's own mirror may not have processed that move yet: a Play sent at once can be
    /// handled first, and the late move then reads as "stream-moved" while playing.
    static let moveSettleMicroseconds: UInt32 = 150_000

    private let session: TestSession
    private let lectorPath: String
    private let runs: Int
    private var loop: BenchLoop!
    private var control: BusClient!
    private let log: Log
    private var daemon: ManagedProcess!
    /// Loop thread only.
    private var call: CallStream?

    init(session: TestSession, lectorPath: String, runs: Int, log: Log) {
        self.log = log
        self.session = session
        self.lectorPath = lectorPath
        self.runs = runs
    }

    func run(into results: inout PolicyResults) throws {
        loop = BenchLoop(properties: ["application.name": "lector-bench policy",
                                      "application.id": "io.github.lector.PolicyBench"])
        try loop.start()
        defer { loop.stop() }
        results.serverName = (try? loop.request("server info") { [self] done in
            self.loop.serverName { done($0) }
        }) ?? "?"

        daemon = try session.spawn(lectorPath, ["serve"], extraEnvironment: ["LECTOR_LOG": "stderr"])
        do {
            try session.waitForBusName(MPRISNames.service, timeout: 15)
        } catch {
            throw BenchError("lector serve did not take its bus names: \(error)\n\(daemon.output)")
        }
        control = try BusClient()
        // The narration stream exists only while a book plays or is paused: it comes with Open.
        try waitUntil("the daemon's announcement stream (\(Self.speechName)) is listed", timeout: 10) {
            $0.stream(named: Self.speechName) != nil
        }

        let book = try writeBook()
        let playing = try loop.arm("PlaybackStatus Playing after Open", statusSignal("Playing"))
        try control.open(book)
        try loop.wait(playing, timeout: 15)
        try waitUntil("the narration stream is uncorked after Open", timeout: 5) { $0.stream(named: Self.narrationName)?.corked == false }
        try pause()
        log("\(results.serverName); lector serve pid \(daemon.pid); book \(book.lastPathComponent) open and paused")

        // 1. Sink removed -> Paused. A pause for another reason is not this measurement: it is
        // logged, counted and replaced by another run (at most `runs` times).
        var run = 0
        while run <= runs {
            let sample: (paused: Double, sinkSeen: Double, corked: Double)
            do {
                sample = try routeRun()
            } catch let wrong as WrongReason {
                try checkDaemon()
                results.routeWrongReason.append(wrong.found)
                log("route run \(run): \(wrong.description)")
                guard results.routeWrongReason.count <= runs else {
                    throw BenchError("\(results.routeWrongReason.count) route runs paused for another reason than device-removed")
                }
                continue
            }
            defer { run += 1 }
            try checkDaemon()
            guard run > 0 else { log(String(format: "route: warm-up %.1f ms", sample.paused)); continue }
            results.routeToPaused.samples.append(sample.paused)
            results.routeSinkSeen.samples.append(sample.sinkSeen)
            results.routeCorked.samples.append(sample.corked)
            log(String(format: "route %d/%d: Paused signal %.1f ms (sink gone seen %.1f, corked %.1f), PausedBecause device-removed",
                             run, runs, sample.paused, sample.sinkSeen, sample.corked))
        }

        // 2. Phone stream -> silence, on the speakers.
        try setDefaultSink(Self.speakers)
        try waitUntil("the paused narration follows the default sink back to \(Self.speakers)", timeout: 5) { snapshot in
            guard let sink = snapshot.sink(named: Self.speakers) else { return false }
            return snapshot.stream(named: Self.narrationName)?.device == sink.index
        }
        usleep(Self.moveSettleMicroseconds)
        try play()
        for run in 0...runs {
            let sample = try callRun()
            try checkDaemon()
            guard run > 0 else { log(String(format: "call: warm-up %.1f ms", sample.corked)); continue }
            results.callToSilence.samples.append(sample.corked)
            results.callSeen.samples.append(sample.seen)
            results.callToPaused.samples.append(sample.paused)
            results.callEndToPlaying.samples.append(sample.resumed)
            results.callEndToUncorked.samples.append(sample.uncorked)
            log(String(format: "call %d/%d: corked %.1f ms, Paused signal %.1f ms (PausedBecause call); end -> Playing %.1f ms, uncorked %.1f ms",
                             run, runs, sample.corked, sample.paused, sample.resumed, sample.uncorked))
        }

        // 3 and 4. Announcement -> ducked, end -> restored, with narration paused by the listener.
        try pause()
        let music = try startMusic()
        for run in 0...runs {
            let sample = try duckRun(music: music)
            try checkDaemon()
            guard run > 0 else {
                log(String(format: "duck: warm-up ducked %.1f ms, restored %.1f ms", sample.ducked, sample.restored))
                continue
            }
            results.duckDone.samples.append(sample.ducked)
            results.duckFirstStep.samples.append(sample.firstStep)
            results.duckReply.samples.append(sample.reply)
            results.restore.samples.append(sample.restored)
            log(String(format: "duck %d/%d: first step %.1f ms, ducked %.1f ms (reply %.1f); SpeechFinished done -> restored %.1f ms",
                             run, runs, sample.firstStep, sample.ducked, sample.reply, sample.restored))
        }
    }

    // MARK: - 1. route

    private func routeRun() throws -> (paused: Double, sinkSeen: Double, corked: Double) {
        // The headset (in-process, untimed): a null sink with a Bluetooth headset's properties, made the default.
        let arguments = "sink_name=\(Self.headset) rate=22050 channels=2 "
            + "sink_properties='device.description=\"\(Self.headset)\" device.form_factor=\"headphone\" device.bus=\"bluetooth\"'"
        let loaded: UInt32? = try loop.request("load module-null-sink \(Self.headset)") { [self] done in
            self.loop.loadModule("module-null-sink", arguments: arguments) { done($0) }
        }
        guard let module = loaded else { throw BenchError("loading module-null-sink \(arguments) failed") }
        try setDefaultSink(Self.headset)
        var headsetIndex: UInt32 = 0
        try waitUntil("the paused narration follows the default sink to \(Self.headset)", timeout: 5) { snapshot in
            guard let sink = snapshot.sink(named: Self.headset) else { return false }
            headsetIndex = sink.index
            return snapshot.stream(named: Self.narrationName)?.device == sink.index
        }
        usleep(Self.moveSettleMicroseconds)
        try play(on: headsetIndex)

        let loop = self.loop!
        let watches = try loop.sync { () -> (t0: UInt64, paused: Watch, reason: Watch, gone: Watch, corked: Watch) in
            let paused = loop.armHere("PropertiesChanged PlaybackStatus Paused after the headset's removal", self.statusSignal("Paused"))
            let reason = loop.armHere("PropertiesChanged PausedBecause after the headset's removal", self.pausedBecauseSignal())
            let gone = loop.armHere("the bench mirror sees \(Self.headset) removed") { _ in
                loop.snapshot.sinks[headsetIndex] == nil
            }
            let corked = loop.armHere("the narration stream corked after the headset's removal") { _ in
                loop.snapshot.stream(named: Self.narrationName)?.corked == true
            }
            let t0 = monotonicNanoseconds()
            loop.unloadModule(module) { _ in }
            return (t0, paused, reason, gone, corked)
        }
        let paused = try loop.wait(watches.paused, timeout: 5)
        let gone = try loop.wait(watches.gone, timeout: 5)
        let corked = try loop.wait(watches.corked, timeout: 5)
        try loop.wait(watches.reason, timeout: 2)
        try expectPausedBecause("device-removed", signal: watches.reason, since: watches.t0)
        return (milliseconds(watches.t0, paused), milliseconds(watches.t0, gone), milliseconds(watches.t0, corked))
    }

    // MARK: - 2. call

    private func callRun() throws -> (corked: Double, seen: Double, paused: Double, resumed: Double, uncorked: Double) {
        try waitUntil("narration playing (uncorked) before the call", timeout: 5) {
            $0.stream(named: Self.narrationName)?.corked == false
        }
        guard try control.playbackStatus() == "Playing" else { throw BenchError("narration is not Playing before the call") }
        usleep(Self.settleMicroseconds)

        let loop = self.loop!
        let start = try loop.sync { () -> (t0: UInt64, corked: Watch, seen: Watch, paused: Watch, reason: Watch) in
            let corked = loop.armHere("the narration stream corked after the phone stream started") { _ in
                loop.snapshot.stream(named: Self.narrationName)?.corked == true
            }
            let seen = loop.armHere("the bench mirror lists the phone stream") { _ in
                loop.snapshot.playbacks.values.contains { $0.applicationName == CallStream.name }
            }
            let paused = loop.armHere("PropertiesChanged PlaybackStatus Paused for the call", self.statusSignal("Paused"))
            let reason = loop.armHere("PropertiesChanged PausedBecause for the call", self.pausedBecauseSignal())
            guard let context = loop.context else { throw BenchError("the benchmark lost its sound server connection") }
            let call = try CallStream(context: context)
            self.call = call
            return (call.connectedAt, corked, seen, paused, reason)
        }
        let corked = try loop.wait(start.corked, timeout: 5)
        let seen = try loop.wait(start.seen, timeout: 5)
        let paused = try loop.wait(start.paused, timeout: 5)
        try loop.wait(start.reason, timeout: 2)
        try expectPausedBecause("call", signal: start.reason, since: start.t0)

        // End the call; narration resumes by itself.
        let end = try loop.sync { () -> (t0: UInt64, playing: Watch, uncorked: Watch) in
            let playing = loop.armHere("PropertiesChanged PlaybackStatus Playing after the call ended", self.statusSignal("Playing"))
            let uncorked = loop.armHere("the narration stream uncorked after the call ended") { _ in
                loop.snapshot.stream(named: Self.narrationName)?.corked == false
                    && !loop.snapshot.playbacks.values.contains { $0.applicationName == CallStream.name }
            }
            let t0 = monotonicNanoseconds()
            self.call?.end()
            self.call = nil
            return (t0, playing, uncorked)
        }
        let resumed = try loop.wait(end.playing, timeout: 5)
        let uncorked = try loop.wait(end.uncorked, timeout: 5)
        let after = try control.pausedBecause()
        guard after.isEmpty else { throw BenchError("after the call ended, PausedBecause is \"\(after)\", not empty") }
        return (milliseconds(start.t0, corked), milliseconds(start.t0, seen), milliseconds(start.t0, paused),
                milliseconds(end.t0, resumed), milliseconds(end.t0, uncorked))
    }

    // MARK: - 3 and 4. duck and restore

    /// Another application playing music (pacat from /dev/zero, media.role=music) on the
    /// speakers, set to `musicVolume`. Returns its sink input index.
    private func startMusic() throws -> UInt32 {
        let script = "exec pacat --playback --raw --format=s16le --rate=22050 --channels=2 "
            + "--client-name=\(Self.musicName) --stream-name=\(Self.musicName) --property=media.role=music </dev/zero"
        let player = try session.spawn("sh", ["-c", script])
        var index: UInt32 = 0
        do {
            try waitUntil("the music stream (pacat) plays", timeout: 10) { snapshot in
                guard let stream = snapshot.playbacks.values.first(where: { $0.applicationName == Self.musicName }),
                      !stream.corked else { return false }
                index = stream.index
                return true
            }
        } catch {
            throw BenchError("\(error)\npacat: \(player.output)")
        }
        let ok: Bool = try loop.request("set the music stream's volume") { [self] done in
            onLoopThread((self.loop, done)) { loop, done in loop.mirror.setPlaybackVolume(index, Self.musicVolume) { done($0) } }
        }
        guard ok else { throw BenchError("could not set the music stream's volume") }
        try waitUntil("the music stream at \(Self.musicVolume)", timeout: 5) { $0.playbacks[index]?.volume == Self.musicVolume }
        try loop.sync { [self] in
            let snapshot = self.loop.snapshot
            guard let speech = snapshot.stream(named: Self.speechName), snapshot.playbacks[index]?.device == speech.device else {
                throw BenchError("the music stream is not on the announcement stream's sink: nothing would be ducked")
            }
        }
        return index
    }

    private func duckRun(music: UInt32) throws -> (firstStep: Double, ducked: Double, reply: Double, restored: Double) {
        let original = Self.musicVolume
        let target = original.scaled(by: Self.duckLevel)
        try waitUntil("the music stream at its original volume before the announcement", timeout: 5) {
            guard let stream = $0.playbacks[music] else { return false }
            return stream.volume == original && !stream.corked
        }
        // The daemon repairs saved volumes after each duck: let that finish.
        usleep(300_000)

        let loop = self.loop!
        final class Reply { var id: UInt64?; var at: UInt64 = 0; var error: String? }
        let reply = Reply()
        let watches = try loop.sync { () -> (t0: UInt64, first: Watch, ducked: Watch, finished: Watch, restored: Watch) in
            let first = loop.armHere("the music stream's first ramp step (volume below \(original))") { _ in
                guard let volume = loop.snapshot.playbacks[music]?.volume else { return false }
                return volume != original
            }
            let ducked = loop.armHere("the music stream ducked to exactly \(target) (\(original) x 0.3)") { _ in
                loop.snapshot.playbacks[music]?.volume == target
            }
            let finished = loop.armHere("SpeechFinished of the announcement") { event in
                if case .speechFinished = event { return true }
                return false
            }
            let restored = loop.armHere("the music stream restored to exactly \(original)") { _ in
                ducked.firedAt != nil && loop.snapshot.playbacks[music]?.volume == original
            }
            let t0 = try loop.callAsync(destination: BusNames.service, path: BusNames.objectPath,
                               interface: BusNames.interface, member: "Speak", { writer in
                try writer.append(Self.announcement)
                try writer.container("a", "{sv}") {}
            }) { result in
                reply.at = monotonicNanoseconds()
                switch result {
                case .success(let message): reply.id = try? message.readUInt64()
                case .failure(let error): reply.error = error.description
                }
            }
            return (t0, first, ducked, finished, restored)
        }
        let ducked = try loop.wait(watches.ducked, timeout: 5)
        let first = try loop.wait(watches.first, timeout: 1)
        let finished = try loop.wait(watches.finished, timeout: 20)
        let restored = try loop.wait(watches.restored, timeout: 5)
        let (id, replyAt, replyError) = try loop.sync { (reply.id, reply.at, reply.error) }
        if let replyError { throw BenchError("Speak failed: \(replyError)") }
        guard let id else { throw BenchError("Speak's reply carried no id") }
        guard case .speechFinished(let finishedID, let reason)? = watches.finished.event, finishedID == id,
              reason == "done" else {
            throw BenchError("expected SpeechFinished(\(id), \"done\"), got \(watches.finished.event.map(String.init(describing:)) ?? "nothing")")
        }
        return (milliseconds(watches.t0, first), milliseconds(watches.t0, ducked), milliseconds(watches.t0, replyAt),
                milliseconds(finished, restored))
    }

    // MARK: - helpers

    private func statusSignal(_ status: String) -> (BenchEvent?) -> Bool {
        { event in
            guard case .properties(let path, let interface, let changed)? = event else { return false }
            return path == MPRISNames.path && interface == MPRISNames.player
                && changed["PlaybackStatus"] == status
        }
    }

    private func pausedBecauseSignal() -> (BenchEvent?) -> Bool {
        { event in
            guard case .properties(let path, let interface, let changed)? = event else { return false }
            return path == BusNames.objectPath && interface == MPRISNames.narrator
                && changed["PausedBecause"] != nil
        }
    }

    /// A benchmark that measures the wrong thing is worthless: the pause must have this reason,
    /// in the signal and in the property.
    private func expectPausedBecause(_ expected: String, signal: Watch, since start: UInt64) throws {
        var signalled = "?"
        if case .properties(_, _, let changed)? = signal.event { signalled = changed["PausedBecause"] ?? "?" }
        let property = try control.pausedBecause()
        guard signalled == expected, property == expected else {
            throw WrongReason(expected: expected, found: property,
                              description: "PausedBecause is \"\(property)\" (signalled \"\(signalled)\"), not \"\(expected)\": "
                                  + "this run did not measure what it should. Events since t0 (the bench's mirror and bus):\n"
                                  + loop.recentEvents(last: 24, since: start))
        }
    }

    /// Waits until `condition` holds for the bench mirror's snapshot (evaluated on the loop thread).
    private func waitUntil(_ what: String, timeout: TimeInterval, _ condition: @escaping (AudioSnapshot) -> Bool) throws {
        let loop = self.loop!
        try loop.wait(try loop.arm(what) { _ in condition(loop.snapshot) }, timeout: timeout)
    }

    private func setDefaultSink(_ name: String) throws {
        let ok: Bool = try loop.request("set the default sink to \(name)") { [self] done in
            self.loop.setDefaultSink(name) { done($0) }
        }
        guard ok else { throw BenchError("could not make \(name) the default sink") }
    }

    /// MPRIS Play; returns once PlaybackStatus is Playing and the narration stream is uncorked
    /// (on `sink`, if given).
    private func play(on sink: UInt32? = nil) throws {
        let playing = try loop.arm("PlaybackStatus Playing after Play", statusSignal("Playing"))
        try control.player("Play")
        try loop.wait(playing, timeout: 5)
        try waitUntil("the narration stream uncorked after Play", timeout: 5) { snapshot in
            guard let stream = snapshot.stream(named: Self.narrationName), !stream.corked else { return false }
            return sink.map { stream.device == $0 } ?? true
        }
        guard try control.pausedBecause().isEmpty else { throw BenchError("PausedBecause is not empty while playing") }
    }

    private func pause() throws {
        let paused = try loop.arm("PlaybackStatus Paused after Pause", statusSignal("Paused"))
        try control.player("Pause")
        try loop.wait(paused, timeout: 5)
        try waitUntil("the narration stream corked after Pause", timeout: 5) {
            $0.stream(named: Self.narrationName)?.corked == true
        }
    }

    private func checkDaemon() throws {
        guard !daemon.isRunning else { return }
        throw BenchError("lector serve (pid \(daemon.pid)) exited with status \(daemon.exitStatus.map(String.init) ?? "?")")
    }

    var daemonOutput: String { daemon?.output ?? "(not started)" }

    /// A plain-text book long enough to narrate for the whole run (about 3 h of speech).
    private func writeBook() throws -> URL {
        let folder = session.directory.appendingPathComponent("books", isDirectory: true)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let sentence = "The quiet river runs past the old mill and the green fields where the farmer walks. "
        var text = ""
        for chapter in 1...20 {
            text += "Chapter \(chapter)\n\n" + String(repeating: sentence, count: 100) + "\n\n"
        }
        let file = folder.appendingPathComponent("river.txt")
        try text.write(to: file, atomically: true, encoding: .utf8)
        return file
    }
}

/// The daemon paused, but gave another reason than the one this measurement is about.
struct WrongReason: Error, CustomStringConvertible {
    let expected: String
    let found: String
    let description: String
}

extension AudioSnapshot {
    /// The playback stream with this media.name (the daemon's: "Lector narration", "Lector speech").
    func stream(named mediaName: String) -> StreamSnapshot? {
        playbacks.values.first { $0.mediaName == mediaName }
    }
}
