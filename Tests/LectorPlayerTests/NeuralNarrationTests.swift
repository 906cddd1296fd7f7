import Foundation
import LectorNeural
import LectorTestKit
import XCTest

/// A book read by a neural (Piper) voice through the daemon, on the real sound server: the voice
/// found where users put voices, chosen by name, heard at the sink, its words on the heard clock;
/// a voice that cannot speak hands over to espeak-ng and says why. The real joe voice and ONNX
/// Runtime come from PyPI (scripts/install-deps --test); under CI their absence fails.
final class NeuralNarrationTests: XCTestCase {
    /// The joe voice's model and ONNX Runtime, as this machine has them.
    private func realVoice() throws -> (model: String, runtime: String) {
        let sites = RuntimeLocator.sitePackages()
        let model = RuntimeLocator.packagedVoices(sitePackages: sites).first { $0.hasSuffix("en_US-joe-medium.onnx") }
        let runtime = RuntimeLocator.runtimeCandidates(environment: [:], sitePackages: sites)
            .first { $0.hasPrefix("/") && FileManager.default.fileExists(atPath: $0) }
        guard let model, let runtime else {
            let message = "no real Piper voice or ONNX Runtime (found model \(model ?? "none"), runtime \(runtime ?? "none")); "
                + "install with: scripts/install-deps --test"
            if ProcessInfo.processInfo.environment["CI"] != nil { XCTFail(message); throw FixtureError(message) }
            throw XCTSkip(message)
        }
        return (model, runtime)
    }

    /// A daemon whose listener keeps `files` (name → source) in ~/.local/share/lector/voices.
    private func fixture(voices files: [String: String]) throws -> PlayerFixture {
        let (_, runtime) = try realVoice()
        let fixture = try PlayerFixture()
        let directory = URL(fileURLWithPath: fixture.session.environment["XDG_DATA_HOME"]!)
            .appendingPathComponent("lector/voices", isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        for (name, source) in files {
            try FileManager.default.copyItem(atPath: source, toPath: directory.appendingPathComponent(name).path)
        }
        fixture.daemon.send(signal: SIGTERM)
        _ = fixture.daemon.waitForExit(timeout: 10)
        try fixture.startDaemon(environment: ["LECTOR_ONNXRUNTIME": runtime])
        return fixture
    }

    private func book(_ fixture: PlayerFixture) throws -> URL {
        try TextBooks.write(["Call me Ishmael. Some years ago, never mind how long precisely, having little money in my purse, "
                             + "I thought I would sail about a little and see the watery part of the world. It is a way I have "
                             + "of driving off the spleen and regulating the circulation.", "The second chapter is short."],
                            named: "moby.txt", in: fixture.session.directory)
    }

    func testABookReadByTheNeuralVoiceIsHeardWithItsWordsInOrder() throws {
        let (model, _) = try realVoice()
        let fixture = try fixture(voices: ["en_US-joe-medium.onnx": model, "en_US-joe-medium.onnx.json": model + ".json"])
        defer { fixture.shutdown() }
        let listed = try fixture.cli("voices", "en")
        XCTAssertTrue(listed.stdout.split(separator: "\n").contains { $0.hasPrefix("joe\t") && $0.contains("piper") },
                      "lector voices does not list joe: \(listed.stdout)")

        let since = Date()
        let read = try fixture.cli("read", try book(fixture).path, "--voice", "joe", "--from-start")
        XCTAssertEqual(read.status, 0, "\(read)\(fixture.context)")
        XCTAssertEqual(try fixture.property("Voice", interface: PlayerFixture.narrator, path: PlayerFixture.narratorPath).data as? String,
                       "joe")
        let heard = try XCTUnwrap(fixture.sound(after: since, timeout: 10), "nothing heard\(fixture.context)")
        print("neural narration: first sound \(String(format: "%.0f", heard.timeIntervalSince(since) * 1000)) ms after lector read "
              + "(model load included)")
        XCTAssertTrue(try poll(timeout: 15) { fixture.signals("SpeakingRange", since: since).count >= 12 },
                      "words are not announced\(fixture.context)")
        let offsets = fixture.signals("SpeakingRange", since: since).compactMap { Int($0.arguments[1]) }
        // "Chapter 1\n\nCall me Ishmael. Some": every word, the title's too, on its own offset.
        XCTAssertEqual(Array(offsets.prefix(6)), [0, 8, 11, 16, 19, 28], "\(offsets)")
        XCTAssertEqual(offsets, offsets.sorted(), "words out of order: \(offsets)")

        // Pause at once, Play at the same place.
        XCTAssertTrue(try fixture.playerctl("pause").succeeded)
        XCTAssertTrue(try poll(timeout: 5) { try fixture.status() == "Paused" }, fixture.context)
        let paused = try fixture.position()
        Thread.sleep(forTimeInterval: 1)
        XCTAssertEqual(try fixture.position(), paused, "Position moved while paused")
        let resumed = Date()
        XCTAssertTrue(try fixture.playerctl("play").succeeded)
        XCTAssertNotNil(fixture.sound(after: resumed, timeout: 5), "not heard after play\(fixture.context)")
        XCTAssertFalse(fixture.daemon.output.contains("cannot speak"), fixture.daemon.output)
    }

    /// Pause with the neural voice is silent at once (within 15 ms of the reply: 10 ms and a 5-ms
    /// chunk of the monitor's dating) and Play is heard at once. Also prints how SpeakingRange falls
    /// against the sound onsets after pauses (issue 22 asks for 40 ms): few onsets stand out after
    /// Piper's short, breathy pauses, so the placement itself is asserted in-process
    /// (NeuralSynthesizerTests, within 20 ms) and the heard clock by espeak-ng's HeardTimingTests.
    func testPauseIsSilentAtOnceAndTheHighlightIsMeasured() throws {
        let (model, _) = try realVoice()
        let fixture = try fixture(voices: ["en_US-joe-medium.onnx": model, "en_US-joe-medium.onnx.json": model + ".json"])
        defer { fixture.shutdown() }
        let words = ["Alpha", "echo", "India", "oscar", "umbrella", "amber", "olive", "ever", "open", "under",
                     "apple", "eagle", "island", "orange", "ultra", "arrow", "ocean", "evening"]
        let book = try TextBooks.write([words.joined(separator: ". ") + "."], named: "onsets.txt", in: fixture.session.directory)
        let opened = Date()
        XCTAssertEqual(try fixture.cli("read", book.path, "--voice", "joe", "--from-start").status, 0, fixture.context)
        let ranges = { fixture.signals("SpeakingRange", since: opened).filter { Int($0.arguments[1]) ?? 0 > 10 } }
        XCTAssertTrue(try poll(timeout: 30) { ranges().count >= words.count }, "\(ranges().count) words announced\(fixture.context)")
        let end = (ranges().last?.receivedAt ?? Date()).addingTimeInterval(1)
        let onsets = fixture.soundOnsets(from: opened, to: end, afterSilence: 0.12)
        let offsets = ranges().compactMap { signal -> TimeInterval? in
            guard let nearest = onsets.min(by: { abs($0.timeIntervalSince(signal.receivedAt)) < abs($1.timeIntervalSince(signal.receivedAt)) }),
                  abs(nearest.timeIntervalSince(signal.receivedAt)) < 0.15 else { return nil }
            return signal.receivedAt.timeIntervalSince(nearest)
        }
        print("neural narration: SpeakingRange - first sound after a pause (ms), \(offsets.count) of \(words.count) matched: "
              + offsets.map { String(format: "%+.0f", $0 * 1000) }.joined(separator: " "))

        // Pause: silent within 15 ms of the reply (10 ms and a 5-ms chunk of the monitor's dating).
        XCTAssertTrue(try fixture.playerctl("play").succeeded)
        XCTAssertNotNil(fixture.sound(after: Date(), timeout: 5))
        Thread.sleep(forTimeInterval: 0.5)
        let asked = Date()
        XCTAssertTrue(try fixture.busCall(PlayerFixture.player, "Pause", []).succeeded)
        let replied = Date()
        Thread.sleep(forTimeInterval: 0.3)
        if let last = fixture.recording.lastSound(after: asked.addingTimeInterval(-1)) {
            print("neural narration: pause -> last sound \(String(format: "%+.4f", last.timeIntervalSince(replied))) s after the reply")
            XCTAssertLessThanOrEqual(last.timeIntervalSince(replied), 0.015, "sound after the pause\(fixture.context)")
        }
    }

    func testAVoiceThatCannotSpeakHandsOverToEspeakNGAndSaysWhy() throws {
        let (model, _) = try realVoice()
        let broken = FileManager.default.temporaryDirectory.appendingPathComponent("broken-\(UUID()).onnx")
        try Data(try Data(contentsOf: URL(fileURLWithPath: model)).prefix(100_000)).write(to: broken)
        defer { try? FileManager.default.removeItem(at: broken) }
        let fixture = try fixture(voices: ["en_US-broken-medium.onnx": broken.path, "en_US-broken-medium.onnx.json": model + ".json"])
        defer { fixture.shutdown() }
        let since = Date()
        let read = try fixture.cli("read", try book(fixture).path, "--voice", "broken", "--from-start")
        XCTAssertEqual(read.status, 0, "\(read)\(fixture.context)")
        XCTAssertNotNil(fixture.sound(after: since, timeout: 10), "espeak-ng did not read instead\(fixture.context)")
        XCTAssertTrue(try poll(timeout: 10) { fixture.signals("SpeakingRange", since: since).count >= 3 }, fixture.context)
        XCTAssertTrue(try poll(timeout: 5) { fixture.daemon.output.contains("the voice en_US-broken-medium cannot speak") },
                      "no warning said why\(fixture.context)")
        XCTAssertTrue(fixture.daemon.isRunning)
    }
}
