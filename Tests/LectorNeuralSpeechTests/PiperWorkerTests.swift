import Foundation
import Glibc
import LectorCore
import LectorNeural
@testable import LectorNeuralSpeech
import LectorSpeech
import XCTest

/// The voice worker process (`lector-piper`, built beside this test bundle) with the real joe
/// voice: it speaks as the in-process voice does, a load failure is the worker's own named error,
/// and a crash, a hang or a cancel each end as they must, with the process reaped.
final class PiperWorkerTests: XCTestCase {

    var executable: String {
        get throws {
            try XCTUnwrap(PiperWorker.installedExecutable(environment: [:]).path,
                          "lector-piper is not built beside the tests (swift build builds it)")
        }
    }

    /// A clause long enough (about 6 s of audio) that a run can be caught while it runs.
    func longIDs(_ worker: PiperWorker) throws -> [Int64] {
        let reading = try XCTUnwrap(NeuralSynthesizerTests.engine.phonemeReading(
            of: try SpeechRequest(text: String(repeating: "and the long grey sea rolled on without an end ", count: 6)),
            voice: try VoiceCatalog(voices: NeuralSynthesizerTests.engine.voices).resolve(language: nil, voice: "en-us")))
        let ids = NeuralWordTiming.ids(for: reading, table: worker.phonemeIDs).mapping.ids
        XCTAssertGreaterThan(ids.count, 300)
        return ids
    }

    func isAlive(_ pid: pid_t) -> Bool { kill(pid, 0) == 0 }

    func testTheWorkerSpeaksAsTheVoiceDoesInProcess() throws {
        let model = try NeuralSynthesizerTests.model()
        let worker = try PiperWorker(executable: try executable, modelPath: model)
        defer { worker.close() }
        let local = try PiperVoice(modelPath: model)
        XCTAssertTrue(worker.runtime.contains("onnxruntime"), worker.runtime)
        let ids = try longIDs(worker)
        let there = try worker.speak(ids: ids, lengthScale: 1, cancellation: SynthesisCancellation())
        let here = try local.speak(ids: ids, lengthScale: 1, cancellation: SynthesisCancellation())
        XCTAssertEqual(there.sampleRate, 22_050)
        XCTAssertEqual(there.idSamples.count, ids.count)
        XCTAssertEqual(there.idSamples.reduce(0, +), there.samples.count)
        // The model draws noise, so two runs differ a little; their lengths barely do.
        XCTAssertEqual(Double(there.samples.count), Double(here.samples.count), accuracy: Double(here.samples.count) * 0.1)
        XCTAssertGreaterThan(there.samples.map(abs).max() ?? 0, 0.2, "the worker's audio is sound")
    }

    func testABrokenModelFailsWithTheWorkersNamedError() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("worker-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let real = try NeuralSynthesizerTests.model()
        let broken = directory.appendingPathComponent("en_US-cut-medium.onnx").path
        try Data(try Data(contentsOf: URL(fileURLWithPath: real)).prefix(4096)).write(to: URL(fileURLWithPath: broken))
        try FileManager.default.copyItem(atPath: real + ".json", toPath: broken + ".json")
        XCTAssertThrowsError(try PiperWorker(executable: try executable, modelPath: broken)) { error in
            XCTAssertTrue("\(error)".contains("is not a whole ONNX model"), "\(error)")
        }
        XCTAssertThrowsError(try PiperWorker(executable: "/nonexistent/lector-piper", modelPath: real)) { error in
            XCTAssertTrue("\(error)".contains("cannot start /nonexistent/lector-piper"), "\(error)")
        }
    }

    func testACrashMidRunFailsByNameAndIsReaped() throws {
        let worker = try PiperWorker(executable: try executable, modelPath: try NeuralSynthesizerTests.model())
        let ids = try longIDs(worker)
        let pid = worker.pid
        DispatchQueue.global().asyncAfter(deadline: .now() + 0.05) { kill(pid, SIGSEGV) }
        XCTAssertThrowsError(try worker.speak(ids: ids, lengthScale: 1, cancellation: SynthesisCancellation())) { error in
            XCTAssertTrue("\(error)".contains("was killed by signal 11"), "\(error)")
        }
        XCTAssertFalse(worker.isRunning)
        XCTAssertFalse(isAlive(pid), "reaped, not a zombie")
        XCTAssertThrowsError(try worker.speak(ids: [1, 0, 2], lengthScale: 1, cancellation: SynthesisCancellation()))
    }

    func testAHungWorkerIsStoppedAfterItsTime() throws {
        let worker = try PiperWorker(executable: try executable, modelPath: try NeuralSynthesizerTests.model(), hangSeconds: 1)
        let pid = worker.pid
        kill(pid, SIGSTOP)
        let started = Date()
        XCTAssertThrowsError(try worker.speak(ids: [1, 0, 20, 0, 2], lengthScale: 1, cancellation: SynthesisCancellation())) { error in
            XCTAssertTrue("\(error)".contains("did not answer in 1 s and was stopped"), "\(error)")
        }
        XCTAssertLessThan(Date().timeIntervalSince(started), 5)
        XCTAssertFalse(isAlive(pid))
    }

    func testCancelStopsTheRunAtOnceAndTheWorkerGoesOn() throws {
        let worker = try PiperWorker(executable: try executable, modelPath: try NeuralSynthesizerTests.model())
        defer { worker.close() }
        let ids = try longIDs(worker)
        let full = Date()
        _ = try worker.speak(ids: ids, lengthScale: 1, cancellation: SynthesisCancellation())
        let fullSeconds = Date().timeIntervalSince(full)
        let cancellation = SynthesisCancellation()
        DispatchQueue.global().asyncAfter(deadline: .now() + 0.02) { cancellation.cancel() }
        let started = Date()
        XCTAssertThrowsError(try worker.speak(ids: ids, lengthScale: 1, cancellation: cancellation)) { error in
            XCTAssertEqual(error as? NeuralError, .cancelled)
        }
        let cancelledSeconds = Date().timeIntervalSince(started)
        print("worker: a full run \(Int(fullSeconds * 1000)) ms, cancelled after 20 ms: answered in \(Int(cancelledSeconds * 1000)) ms")
        XCTAssertLessThan(cancelledSeconds, fullSeconds, "the run was stopped, not finished")
        let after = try worker.speak(ids: [1, 0, 20, 0, 2], lengthScale: 1, cancellation: SynthesisCancellation())
        XCTAssertEqual(after.idSamples.count, 5)
        // Cancelled before it is sent: answered cancelled too, and the worker still speaks.
        let early = SynthesisCancellation()
        early.cancel()
        XCTAssertThrowsError(try worker.speak(ids: ids, lengthScale: 1, cancellation: early))
        XCTAssertEqual(try worker.speak(ids: [1, 0, 20, 0, 2], lengthScale: 1, cancellation: SynthesisCancellation()).idSamples.count, 5)
    }

    func testClosingEndsTheWorker() throws {
        let worker = try PiperWorker(executable: try executable, modelPath: try NeuralSynthesizerTests.model())
        let pid = worker.pid
        XCTAssertTrue(isAlive(pid))
        let started = Date()
        worker.close()
        XCTAssertFalse(isAlive(pid))
        XCTAssertLessThan(Date().timeIntervalSince(started), 0.9, "it exited on EOF, not killed after its grace")
    }

    // MARK: The synthesizer's worker

    func synthesizer(idleSeconds: Double, problems: NeuralSynthesizerTests.ProblemLog = .init(),
                     modelPath: String? = nil) throws -> NeuralSynthesizer {
        let espeakVoice = try VoiceCatalog(voices: NeuralSynthesizerTests.engine.voices).resolve(language: nil, voice: "en-us")
        return NeuralSynthesizer(modelPath: try modelPath ?? NeuralSynthesizerTests.model(),
                                 engine: .worker(path: try executable, idleSeconds: idleSeconds, hangSeconds: 10),
                                 espeakVoice: espeakVoice, espeak: NeuralSynthesizerTests.engine,
                                 mailbox: NeuralSynthesizerTests.engine.mailbox,
                                 outputRate: NeuralSynthesizerTests.engine.sampleRate) { problems.add($0 ?? "speaks again") }
    }

    /// Each job's `finished` (ok or not) and whether audio came, waiting at most 20 s.
    func outcomes(_ ids: Set<UInt64>) -> [UInt64: Bool] {
        var finished: [UInt64: Bool] = [:]
        let deadline = Date().addingTimeInterval(20)
        while Set(finished.keys) != ids, Date() < deadline {
            for output in NeuralSynthesizerTests.engine.mailbox.drain() {
                if case .finished(let id, let ok, _) = output, ids.contains(id) { finished[id] = ok }
            }
            usleep(10_000)
        }
        for id in ids { NeuralSynthesizerTests.engine.mailbox.forget(id) }
        return finished
    }

    func testAnIdleWorkerEndsAndTheNextJobStartsAnother() throws {
        let neural = try synthesizer(idleSeconds: 0.5)
        defer { neural.shutdown() }
        _ = NeuralSynthesizerTests.engine.mailbox.drain()
        neural.synthesize(id: 700, request: try SpeechRequest(text: "Call me Ishmael."))
        XCTAssertEqual(outcomes([700]), [700: true])
        let first = try XCTUnwrap(neural.workerPID, "the worker runs after a job")
        XCTAssertTrue(isAlive(first))
        let deadline = Date().addingTimeInterval(10)
        while neural.workerPID != nil, Date() < deadline { usleep(20_000) }
        XCTAssertNil(neural.workerPID, "the idle worker ended")
        XCTAssertFalse(isAlive(first))
        neural.synthesize(id: 701, request: try SpeechRequest(text: "Some years ago."))
        XCTAssertEqual(outcomes([701]), [701: true])
        XCTAssertNotNil(neural.workerPID)
        XCTAssertNotEqual(neural.workerPID, first)
    }

    func testAWorkerThatDiedHandsTheJobToEspeakNGAndIsReplaced() throws {
        let problems = NeuralSynthesizerTests.ProblemLog()
        let neural = try synthesizer(idleSeconds: 30, problems: problems)
        defer { neural.shutdown() }
        _ = NeuralSynthesizerTests.engine.mailbox.drain()
        neural.synthesize(id: 710, request: try SpeechRequest(text: "Call me Ishmael."))
        XCTAssertEqual(outcomes([710]), [710: true])
        let first = try XCTUnwrap(neural.workerPID)
        kill(first, SIGKILL)
        neural.synthesize(id: 711, request: try SpeechRequest(text: "Some years ago, never mind how long precisely."))
        XCTAssertEqual(outcomes([711]), [711: true], "espeak-ng spoke it")
        XCTAssertEqual(problems.all.count, 1, "\(problems.all)")
        XCTAssertTrue(problems.all.first?.contains("was killed by signal 9") ?? false, "\(problems.all)")
        neural.synthesize(id: 712, request: try SpeechRequest(text: "Having little or no money in my purse."))
        XCTAssertEqual(outcomes([712]), [712: true])
        let second = try XCTUnwrap(neural.workerPID, "a new worker")
        XCTAssertNotEqual(second, first)
        XCTAssertEqual(problems.all.count, 2, "the new worker spoke: \(problems.all)")
        XCTAssertEqual(problems.all.last, "speaks again", "the new worker spoke: \(problems.all)")
    }

    /// `lector voices add --force` while the daemon reads: the files written in place of a broken
    /// voice are loaded at the next job (the problem withdrawn), and a replaced working voice too.
    func testReplacedVoiceFilesAreLoadedAtTheNextJob() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("replaced-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let real = try NeuralSynthesizerTests.model()
        let model = directory.appendingPathComponent("en_US-swap-medium.onnx").path
        let whole = try Data(contentsOf: URL(fileURLWithPath: real))
        // As `voices add` installs: written beside, then renamed into place.
        func install(_ bytes: Data) throws {
            try bytes.write(to: URL(fileURLWithPath: model + ".new"))
            XCTAssertEqual(rename(model + ".new", model), 0)
        }
        try install(whole.prefix(4096))
        try FileManager.default.copyItem(atPath: real + ".json", toPath: model + ".json")

        let problems = NeuralSynthesizerTests.ProblemLog()
        let neural = try synthesizer(idleSeconds: 30, problems: problems, modelPath: model)
        defer { neural.shutdown() }
        _ = NeuralSynthesizerTests.engine.mailbox.drain()
        neural.synthesize(id: 720, request: try SpeechRequest(text: "Call me Ishmael."))
        XCTAssertEqual(outcomes([720]), [720: true], "espeak-ng spoke it")
        XCTAssertNil(neural.workerPID)
        XCTAssertEqual(problems.all.count, 1, "\(problems.all)")
        XCTAssertTrue(problems.all.first?.contains("is not a whole ONNX model") ?? false, "\(problems.all)")
        neural.synthesize(id: 721, request: try SpeechRequest(text: "Some years ago."))
        XCTAssertEqual(outcomes([721]), [721: true])
        XCTAssertEqual(problems.all.count, 1, "the same files fail again, untold: \(problems.all)")

        try install(whole)
        neural.synthesize(id: 722, request: try SpeechRequest(text: "Having little or no money in my purse."))
        XCTAssertEqual(outcomes([722]), [722: true])
        let first = try XCTUnwrap(neural.workerPID, "the voice written in its place loaded")
        XCTAssertEqual(problems.all, [problems.all[0], "speaks again"])

        try install(whole)
        neural.synthesize(id: 723, request: try SpeechRequest(text: "I thought I would sail about a little."))
        XCTAssertEqual(outcomes([723]), [723: true])
        let second = try XCTUnwrap(neural.workerPID)
        XCTAssertNotEqual(second, first, "the replaced voice is loaded in a new worker")
        XCTAssertFalse(isAlive(first), "the old worker ended")
        XCTAssertEqual(problems.all.count, 2, "\(problems.all)")
    }

    /// The worker's memory bound (issue 22: at most 250 MB while narrating) at the rates that make
    /// the most and the least audio per run: Moby-Dick's first paragraph cut as narration cuts it.
    /// Runs of up to 90 scalars at every rate peaked at 275-291 MB at 0.5.
    func testTheWorkerStaysWithinItsMemoryAtEveryRate() throws {
        let model = try NeuralSynthesizerTests.model()
        let text = try String(contentsOf: URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../LectorNeuralTests/moby-dick.txt").standardized, encoding: .utf8)
        let reader = try VoiceCatalog(voices: NeuralSynthesizerTests.engine.voices).resolve(language: nil, voice: "en-us")
        for rate in [SpeechRequest.rateRange.lowerBound, 1, SpeechRequest.rateRange.upperBound] {
            let worker = try PiperWorker(executable: try executable, modelPath: model)
            defer { worker.close() }
            var seconds = 0.0
            for sentence in text.split(separator: "\n") {
                let reading = try XCTUnwrap(NeuralSynthesizerTests.engine.phonemeReading(of: try SpeechRequest(text: String(sentence)), voice: reader))
                for clause in NeuralSynthesizer.clauses(of: reading, rate: rate) {
                    let ids = NeuralWordTiming.ids(for: clause, table: worker.phonemeIDs).mapping.ids
                    seconds += try worker.speak(ids: ids, lengthScale: worker.config.lengthScale / Float(rate),
                                                cancellation: SynthesisCancellation()).seconds
                }
            }
            let environ = (try? Data(contentsOf: URL(fileURLWithPath: "/proc/\(worker.pid)/environ"))) ?? Data()
            XCTAssertTrue(environ.split(separator: 0).contains { String(decoding: $0, as: UTF8.self).hasPrefix("GLIBC_TUNABLES=") && String(decoding: $0, as: UTF8.self).contains("glibc.malloc.hugetlb=1") },
                          "the worker's memory is not in huge pages (PiperWorker.tunables)")
            let peak = try XCTUnwrap(peakResidentMB(worker.pid))
            print("worker at rate \(rate): \(Int(seconds)) s of audio, peak \(Int(peak)) MB")
            XCTAssertGreaterThan(seconds, 20 / rate, "the paragraph was spoken")
            XCTAssertLessThanOrEqual(peak, 250, "the worker's peak at rate \(rate)")
        }
    }

    /// VmHWM of /proc/PID/status.
    func peakResidentMB(_ pid: pid_t) -> Double? {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }) else { return nil }
        return line.split(separator: " ").dropFirst().first.flatMap { Double($0) }.map { $0 / 1024 }
    }
}
