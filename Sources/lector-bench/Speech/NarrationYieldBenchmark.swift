import Foundation
import LectorInterface
import LectorTestKit

/// Issue 5's figures: `Speak` to the announcement's first sound while a book is being narrated,
/// and from the announcement's end back to narration, with `lector say` and `spd-say` speaking
/// the same sentence on the same sink while the same narration plays.
///
/// One private session with two null sinks: announcements on `lector_test` (the default sink),
/// narration moved to `lector_book` (while no book is open, so the move pauses nothing), each
/// monitor recorded, so announcement and narration audio are told apart by where they sound.
/// The daemon's signals are read on a connection of their own (`SignalRecorder`), each dated
/// when it reaches this process. Everything is started through the session, never Foundation.Process.
final class NarrationYieldBenchmark {
    static let announcementSink = "lector_test"
    static let narrationSink = "lector_book"
    static let narrationName = "Lector narration"
    static let speechName = "Lector speech"
    static let playerInterface = MPRISNames.player
    static let narratorInterface = MPRISNames.narrator
    /// Goals of issue 5, on the medians.
    static let speakGoalMs = 60.0
    static let resumeGoalMs = 100.0
    /// Two monitors recorded by two parec processes, each sample dated from its own 5 ms chunk's
    /// arrival: narration sound within this of the announcement's first or last sound is dating noise.
    static let overlapToleranceMs = 5.0

    enum Kind: String {
        case inProcess = "in-process Speak"
        case cli = "lector say"
        case speechDispatcher = "spd-say"
    }

    private let text: String
    private let runs: Int
    private let lectorPath: String
    private let log: Log
    private var session: TestSession!
    private var announcements: MonitorRecording!
    private var narration: MonitorRecording!
    private var daemon: ManagedProcess!
    private var client: BusClient!
    private var signals: SignalRecorder!
    /// Silence this long on the announcement sink means the previous speech is over.
    private var quietGap: TimeInterval = 1.0
    /// Deterministic, so two runs of the benchmark land the announcements alike.
    private var random = SplitMix64(seed: 5)
    private var results = NarrationYieldResults()
    private var anomalies = 0

    init(text: String, runs: Int, lectorPath: String, log: Log) {
        self.text = text
        self.runs = runs
        self.lectorPath = lectorPath
        self.log = log
    }

    func run() throws -> NarrationYieldResults {
        session = try BenchSession.start(sinks: [Self.announcementSink, Self.narrationSink], log: log)
        defer {
            signals?.stop()
            session.shutdown()
        }
        do {
            try measure()
        } catch {
            throw BenchError("\(error)\n--- lector serve output (last 6000 characters):\n"
                             + String((daemon?.output ?? "(not started)").suffix(6000)) + "\n" + session.diagnostics)
        }
        return results
    }

    private func measure() throws {
        announcements = try session.record(sink: Self.announcementSink)
        narration = try session.record(sink: Self.narrationSink)
        daemon = try session.spawn(lectorPath, ["serve"], extraEnvironment: ["LECTOR_LOG": "stderr"])
        do {
            try session.waitForBusName(BusNames.service, timeout: 15)
            try session.waitForBusName(MPRISNames.service, timeout: 5)
        } catch {
            throw BenchError("lector serve did not take its bus names: \(error)")
        }
        signals = try SignalRecorder()
        client = try BusClient()

        // Narration onto its own sink. Its stream exists only while a book plays or is paused:
        // open, pause at once (a corked stream moves without pausing anything), move it, play.
        let book = try writeBook()
        try client.open(book, timeout: 30)
        try client.player("Pause")
        let narrationStream = try waitFor("the daemon's \(Self.narrationName) stream", timeout: 10) {
            try session.playbackStreams().first { $0.mediaName == Self.narrationName }
        }
        try session.moveStream(narrationStream.index, to: Self.narrationSink)
        log("yield: sinks \(Self.announcementSink) (announcements, default) and \(Self.narrationSink) "
            + "(narration stream \(narrationStream.index) moved there); lector serve pid \(daemon.pid)")
        _ = announcements.waitForSilence(quiet: 0.5, timeout: 5)

        let opened = Date()
        try client.player("Play")
        guard let firstNarration = narration.waitForSound(after: opened, timeout: 30) else {
            throw BenchError("the book was opened but no narration was heard on \(Self.narrationSink)")
        }
        log(String(format: "yield: narration heard %.0f ms after Open", firstNarration.timeIntervalSince(opened) * 1000))
        Thread.sleep(forTimeInterval: 1)
        if let stray = announcements.firstSound(after: opened) {
            throw BenchError(String(format: "narration was heard on %@ too (%.0f ms after Open): the sinks are not separate",
                                    Self.announcementSink, stray.timeIntervalSince(opened) * 1000))
        }

        // Warm-up, untimed: the daemon's first announcement (voice, stream), which also calibrates
        // the longest pause inside the sentence; spd-say's first run autospawns speech-dispatcher.
        let warmUp = Date()
        _ = try lectorRun(.inProcess, warmUp: true)
        calibrateQuietGap(since: warmUp)
        log(String(format: "yield: silence of %.2f s on %@ ends a speech", quietGap, Self.announcementSink))
        _ = try lectorRun(.cli, warmUp: true)
        let haveSpdSay = LatencyBenchmark.isOnPath("spd-say", environment: session.environment)
        if haveSpdSay {
            _ = try speechDispatcherRun(warmUp: true)
        } else {
            results.spdSay.unavailable = "spd-say: not installed"
            log("yield: spd-say not installed")
        }

        let kinds: [Kind] = haveSpdSay ? [.inProcess, .cli, .speechDispatcher] : [.inProcess, .cli]
        let start = Date()
        for round in 0..<runs {
            var summary: [String] = []
            for offset in 0..<kinds.count {
                let kind = kinds[(round + offset) % kinds.count]
                let outcome = kind == .speechDispatcher ? try speechDispatcherRun(warmUp: false)
                    : try lectorRun(kind, warmUp: false)
                summary.append("\(kind.rawValue) \(outcome)")
            }
            log("yield round \(round + 1)/\(runs): " + summary.joined(separator: "; "))
        }
        results.totalSeconds = Date().timeIntervalSince(start)
        if !daemon.isRunning { results.notes.append("lector serve exited during the benchmark") }
    }

    // MARK: - One lector run

    /// Narration playing; an announcement (`Speak` in-process, or `lector say`) while it plays;
    /// back to narration after it. Returns a short summary for the progress line.
    private func lectorRun(_ kind: Kind, warmUp: Bool) throws -> String {
        try prepare()
        let mark = signals.count
        var speechID: UInt64?
        let start: Date
        var replyMs: Double?
        var process: ManagedProcess?
        switch kind {
        case .inProcess:
            start = Date()
            do {
                speechID = try client.speak(text)
            } catch {
                try checkDaemon()
                throw BenchError("Speak failed: \(error)")
            }
            replyMs = Date().timeIntervalSince(start) * 1000
        case .cli:
            start = Date()
            process = try session.spawn(lectorPath, ["say", text])
        case .speechDispatcher:
            preconditionFailure("not a lector run")
        }

        let heard = announcements.waitForSound(after: start, timeout: 10)
        if let process, process.waitForExit(timeout: 30) != 0 {
            process.terminate(grace: 1)
            return try failed(kind, "lector say failed: \(process.output)", warmUp: warmUp)
        }
        guard let heard else {
            return try failed(kind, "no announcement sound on \(Self.announcementSink) within 10 s", warmUp: warmUp)
        }
        guard let finished = signals.wait(after: mark, timeout: 60, for: {
            guard let id = $0.speechFinished?.id else { return false }
            return speechID == nil || id == speechID
        }), let reason = finished.speechFinished?.reason else {
            return try failed(kind, "no SpeechFinished within 60 s", warmUp: warmUp)
        }
        guard let resumed = narration.waitForSound(after: finished.receivedAt, timeout: 10) else {
            let status = (try? playbackStatus()) ?? "?"
            let pausedBecause = (try? pausedBecause()) ?? "?"
            let outcome = try failed(kind, "narration not heard again within 10 s of SpeechFinished (\(reason)); "
                                     + "PlaybackStatus \(status), PausedBecause \"\(pausedBecause)\"", warmUp: warmUp)
            try recoverNarration()
            return outcome
        }
        // Settle the property signals that follow the release.
        Thread.sleep(forTimeInterval: 0.05)
        let lastAnnouncement = announcements.lastSound(after: start)
        // Narration's last sound before the announcement's first (give or take the dating tolerance),
        // and any narration heard while the announcement sounded (from its first sound + tolerance to
        // its last sound - tolerance, and never past the resume): there should be none.
        let tolerance = Self.overlapToleranceMs / 1000
        let narrationCut = lastSound(of: narration, from: start, before: heard.addingTimeInterval(tolerance))
        let announcementEnd = min(lastAnnouncement ?? finished.receivedAt, resumed).addingTimeInterval(-tolerance)
        let narrationDuring = lastSound(of: narration, from: heard.addingTimeInterval(tolerance), before: announcementEnd)
        let runSignals = signals.signals(from: mark)

        let speakMs = heard.timeIntervalSince(start) * 1000
        let resumeMs = resumed.timeIntervalSince(finished.receivedAt) * 1000
        let silentMs = max(0, (narrationCut ?? start).timeIntervalSince(start) * 1000)
        let overlapMs = narrationDuring.map { $0.timeIntervalSince(heard) * 1000 }
        let gapMs = lastAnnouncement.map { resumed.timeIntervalSince($0) * 1000 }
        let statusChanges = runSignals.compactMap { $0.interface == Self.playerInterface ? $0.changed["PlaybackStatus"] : nil }
        let reasons = runSignals.compactMap { $0.interface == Self.narratorInterface ? $0.changed["PausedBecause"] : nil }
        let summary = String(format: "%.1f/%.1f ms", speakMs, resumeMs)
            + (overlapMs.map { String(format: " NARRATION HEARD %.1f ms into the announcement", $0) } ?? "")
            + (statusChanges.isEmpty ? "" : " PlaybackStatus \(statusChanges)")
            + (reason == "done" ? "" : " (\(reason))")
        if overlapMs != nil || resumeMs > 30 || speakMs > 30 {
            logTimeline(kind, start: start, heard: heard, lastAnnouncement: lastAnnouncement, finished: finished,
                        resumed: resumed, signals: runSignals)
        }
        if warmUp {
            log("yield warm-up \(kind.rawValue): \(summary), PausedBecause \(reasons)")
            return summary
        }

        switch kind {
        case .inProcess:
            results.speak.samples.append(speakMs)
            results.speakReply.samples.append(replyMs ?? .nan)
            results.speakToSilent.samples.append(silentMs)
            if let narrationCut { results.silentToAnnouncement.samples.append(heard.timeIntervalSince(narrationCut) * 1000) }
            results.resume.samples.append(resumeMs)
            if let gapMs { results.heardGap.samples.append(gapMs) }
            if let lastAnnouncement {
                results.tailToFinished.samples.append(finished.receivedAt.timeIntervalSince(lastAnnouncement) * 1000)
            }
        case .cli:
            results.cliSpeak.samples.append(speakMs)
            results.cliResume.samples.append(resumeMs)
        case .speechDispatcher: break
        }
        results.lectorRuns += 1
        if reason != "done" { results.notes.append("\(kind.rawValue) run ended \"\(reason)\"") }
        if let overlapMs {
            results.overlapRuns += 1
            results.maxOverlapMs = max(results.maxOverlapMs, overlapMs)
        }
        if !statusChanges.isEmpty {
            results.statusFlickerRuns += 1
            results.notes.append("\(kind.rawValue) run: PlaybackStatus changed during the announcement: \(statusChanges)")
        }
        if reasons.contains("announcement") { results.pausedBecauseAnnouncementRuns += 1 }
        if reasons.last == "" { results.pausedBecauseClearedRuns += 1 }
        return summary
    }

    // MARK: - One spd-say run

    /// speech-dispatcher knows nothing of the book: its speech goes to the announcement sink while
    /// narration keeps playing on its own. Only the plain latency is comparable.
    private func speechDispatcherRun(warmUp: Bool) throws -> String {
        try prepare()
        let mark = signals.count
        let start = Date()
        let process = try session.spawn("spd-say", [text])
        let heard = announcements.waitForSound(after: start, timeout: 15)
        let status = process.waitForExit(timeout: 30)
        if status != 0 {
            process.terminate(grace: 1)
            return try failed(.speechDispatcher, "spd-say exited with \(status.map(String.init) ?? "no status"): "
                              + process.output, warmUp: warmUp)
        }
        guard let heard else { return try failed(.speechDispatcher, "no sound within 15 s", warmUp: warmUp) }
        let milliseconds = heard.timeIntervalSince(start) * 1000
        // Did the book go on meanwhile? Narration within the first 0.8 s of spd-say's speech.
        let talkedOver = narration.waitForSound(after: heard, timeout: 0.8).map { $0 < heard.addingTimeInterval(0.8) } ?? false
        let reacted = signals.signals(from: mark).contains { $0.changed["PlaybackStatus"] != nil }
        if warmUp {
            log(String(format: "yield warm-up spd-say: %.1f ms (narration %@ meanwhile)", milliseconds,
                       talkedOver ? "went on" : "was silent"))
            return String(format: "%.1f ms", milliseconds)
        }
        results.spdSay.samples.append(milliseconds)
        if talkedOver { results.spdSayNarrationAudibleRuns += 1 }
        if reacted { results.notes.append("the daemon changed PlaybackStatus during an spd-say run") }
        return String(format: "%.1f ms", milliseconds)
    }

    // MARK: - Between runs

    /// The announcement sink silent for `quietGap`, narration heard, then a pseudo-random 0.3-1.0 s
    /// more of it, so announcements land at different places in words and sentences.
    private func prepare() throws {
        guard announcements.waitForSilence(quiet: quietGap, timeout: 60) else {
            throw BenchError("\(Self.announcementSink) never fell silent before a run")
        }
        if narration.waitForSound(after: Date(), timeout: 5) == nil {
            try checkDaemon()
            let status = (try? playbackStatus()) ?? "?"
            results.notes.append("narration was silent for 5 s between runs (PlaybackStatus \(status)); sent Play")
            log("yield: narration silent for 5 s before a run (PlaybackStatus \(status)); sending Play")
            try recoverNarration()
        }
        Thread.sleep(forTimeInterval: 0.3 + 0.7 * random.nextUnit())
    }

    private func recoverNarration() throws {
        try checkDaemon()
        try client.player("Play")
        guard narration.waitForSound(after: Date(), timeout: 10) != nil else {
            throw BenchError("narration stays silent after Play (PlaybackStatus \((try? playbackStatus()) ?? "?"))")
        }
    }

    private func failed(_ kind: Kind, _ reason: String, warmUp: Bool) throws -> String {
        try checkDaemon()
        log("yield: \(warmUp ? "warm-up " : "")\(kind.rawValue) run failed: \(reason)")
        if warmUp { throw BenchError("the warm-up \(kind.rawValue) run failed: \(reason)") }
        switch kind {
        case .inProcess: results.speak.failures += 1
        case .cli: results.cliSpeak.failures += 1
        case .speechDispatcher: results.spdSay.failures += 1
        }
        results.notes.append("\(kind.rawValue) run failed: \(reason)")
        return "failed"
    }

    private func checkDaemon() throws {
        guard !daemon.isRunning else { return }
        throw BenchError("lector serve (pid \(daemon.pid)) exited with status "
                         + "\(daemon.exitStatus.map(String.init) ?? "?") during the narration-yield benchmark")
    }

    private func playbackStatus() throws -> String { try client.playbackStatus() }

    private func pausedBecause() throws -> String { try client.pausedBecause() }

    // MARK: - Helpers

    /// What happened in an unusual run, in ms from t0: narration's sound spans on its sink, the
    /// announcement's, and the daemon's signals as received. Both recordings are written as WAV files
    /// into the session directory (kept with LECTOR_TEST_KEEP_DIRECTORY=1).
    private func logTimeline(_ kind: Kind, start: Date, heard: Date, lastAnnouncement: Date?,
                             finished: ReceivedSignal, resumed: Date, signals: [ReceivedSignal]) {
        func ms(_ date: Date) -> String { String(format: "%.1f", date.timeIntervalSince(start) * 1000) }
        let spans = soundSpans(of: narration, from: start, before: resumed.addingTimeInterval(0.05))
            .map { "\(ms($0.0))-\(ms($0.1))" }
        let events = signals.map { signal -> String in
            var name = signal.member
            if let value = signal.changed["PlaybackStatus"] { name += " PlaybackStatus=\(value)" }
            if let value = signal.changed["PausedBecause"] { name += " PausedBecause=\"\(value)\"" }
            if let finished = signal.speechFinished { name += "(\(finished.id), \(finished.reason))" }
            return "\(ms(signal.receivedAt)) \(name)"
        }
        anomalies += 1
        let base = session.directory.appendingPathComponent("yield-anomaly-\(anomalies)")
        try? announcements.writeWAV(to: base.appendingPathExtension("announcements.wav"))
        try? narration.writeWAV(to: base.appendingPathExtension("narration.wav"))
        log("yield timeline (\(kind.rawValue), ms from t0): announcement sound \(ms(heard))-"
            + "\(lastAnnouncement.map(ms) ?? "?"); SpeechFinished received \(ms(finished.receivedAt)); narration heard again "
            + "\(ms(resumed)); narration sound spans \(spans.joined(separator: " ")); signals: "
            + events.joined(separator: ", ") + "; recordings: \(base.path).*.wav "
            + String(format: "(t0 at %.3f s into the announcement recording, %.3f s into the narration recording; "
                     + "recorders behind the clock by %.0f and %.0f ms)",
                     start.timeIntervalSince(announcements.startedAt), start.timeIntervalSince(narration.startedAt),
                     Self.lag(of: announcements) * 1000, Self.lag(of: narration) * 1000))
    }

    /// Wall-clock time since a recording's first sample minus the audio it holds: about one chunk
    /// when parec keeps up; more means its samples arrive late (and are dated late).
    private static func lag(of recording: MonitorRecording) -> TimeInterval {
        Date().timeIntervalSince(recording.startedAt) - recording.recordedDuration
    }

    /// Spans of sound (loud samples less than 30 ms apart) in [from, before).
    private func soundSpans(of recording: MonitorRecording, from: Date, before limit: Date) -> [(Date, Date)] {
        var spans: [(Date, Date)] = []
        var cursor = from
        while let loud = recording.firstSound(after: cursor), loud < limit {
            if let last = spans.last, loud.timeIntervalSince(last.1) < 0.03 {
                spans[spans.count - 1].1 = loud
            } else {
                spans.append((loud, loud))
            }
            cursor = max(loud, cursor).addingTimeInterval(0.0005)
        }
        return spans
    }

    /// The last sample above the threshold in [from, before), walking the loud samples forward.
    private func lastSound(of recording: MonitorRecording, from: Date, before limit: Date) -> Date? {
        var cursor = from
        var last: Date?
        while let loud = recording.firstSound(after: cursor), loud < limit {
            last = loud
            cursor = max(loud, cursor).addingTimeInterval(0.0005)
        }
        return last
    }

    private func waitFor<T>(_ what: String, timeout: TimeInterval, _ probe: () throws -> T?) throws -> T {
        let deadline = Date(timeIntervalSinceNow: timeout)
        while true {
            if let value = try probe() { return value }
            try checkDaemon()
            guard Date() < deadline else { throw BenchError("\(what) not there within \(timeout) s") }
            Thread.sleep(forTimeInterval: 0.05)
        }
    }

    /// The longest pause inside the warm-up announcement, plus 0.3 s (at least 0.5 s).
    private func calibrateQuietGap(since start: Date) {
        quietGap = QuietGap.calibrated(from: announcements, since: start, scratch: session.directory) ?? quietGap
    }

    /// A long plain-text book (20 chapters of a few varied sentences), so narration never runs out.
    private func writeBook() throws -> URL {
        let folder = session.directory.appendingPathComponent("books", isDirectory: true)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let sentences = [
            "The quiet river runs past the old mill and the green fields where the farmer walks.",
            "In the evening the lamps of the village come on one by one along the road.",
            "She kept the letters in a wooden box under the window, tied with a blue ribbon.",
            "Nobody in the house remembered who had planted the pear tree by the gate.",
        ]
        var text = ""
        for chapter in 1...20 {
            text += "Chapter \(chapter)\n\n"
            for paragraph in 0..<25 {
                text += (0..<4).map { sentences[($0 + paragraph + chapter) % sentences.count] }.joined(separator: " ") + "\n\n"
            }
        }
        let file = folder.appendingPathComponent("yield-book.txt")
        try text.write(to: file, atomically: true, encoding: .utf8)
        return file
    }
}
