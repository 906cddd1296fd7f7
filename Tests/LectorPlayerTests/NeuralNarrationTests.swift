import Foundation
import LectorNeural
import LectorTestKit
import XCTest

/// A book read by a neural (Piper) voice through the daemon, on the real sound server: the voice
/// found where users put voices, chosen by name, heard at the sink, its words on the heard clock;
/// a voice that cannot speak hands over to espeak-ng and says why. The real joe voice and ONNX
/// Runtime come from PyPI (scripts/install-deps --test); under CI their absence fails.
final class NeuralNarrationTests: XCTestCase {
    private func realVoice() throws -> (model: String, runtime: String) { try RealPiperVoice.joe() }

    private func fixture(voices files: [String: String], environment: [String: String] = [:]) throws -> PlayerFixture {
        try PlayerFixture.withVoices(files, environment: environment)
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
        XCTAssertTrue(poll(timeout: 15) { fixture.signals("SpeakingRange", since: since).count >= 12 },
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
        XCTAssertTrue(poll(timeout: 30) { ranges().count >= words.count }, "\(ranges().count) words announced\(fixture.context)")
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
        XCTAssertTrue(poll(timeout: 10) { fixture.signals("SpeakingRange", since: since).count >= 3 }, fixture.context)
        XCTAssertTrue(poll(timeout: 5) { fixture.daemon.output.contains("the voice en_US-broken-medium cannot speak") },
                      "no warning said why\(fixture.context)")
        // Said where the listener looks too: Narrator1.Book's voice-problem, shown by lector status.
        XCTAssertTrue(try poll(timeout: 5) { try fixture.cli("status").stdout.contains("Warning:  the voice en_US-broken-medium cannot speak") },
                      "lector status does not say why: \((try? fixture.cli("status").stdout) ?? "")")
        XCTAssertTrue(fixture.daemon.isRunning)
    }

    /// The offset of the one book's bookmark.
    private func onlyBookmark(_ fixture: PlayerFixture) -> (chapter: Int, offset: Int)? {
        let files = (try? FileManager.default.contentsOfDirectory(at: fixture.bookmarkDirectory, includingPropertiesForKeys: nil)) ?? []
        guard let file = files.first(where: { $0.pathExtension == "json" }), let data = try? Data(contentsOf: file),
              let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
              let chapter = (object["chapter"] as? NSNumber)?.intValue, let offset = (object["offset"] as? NSNumber)?.intValue
        else { return nil }
        return (chapter, offset)
    }

    /// Thirty sentences: minutes of narration, so a test can act while it plays.
    private func longBook(_ fixture: PlayerFixture) throws -> URL {
        // The second sentence runs on without a comma for about 20 s: the worker cuts it between words.
        let sentences = (1...30).map { "Sentence number \($0) tells of the grey sea, the long voyage and the whale that waited for them." }
            .enumerated().map { $0.offset == 1 ? $0.element + " And then the sailors who had waited " + String(repeating: "all through the long and quiet night ", count: 8) + "saw the morning come over the water." : $0.element }
        return try TextBooks.write([sentences.joined(separator: " ")], named: "voyage.txt", in: fixture.session.directory)
    }

    private func joe(_ fixture: PlayerFixture) throws -> Int32 {
        try XCTUnwrap(pollValue(timeout: 10) { ProcessProbe.children(of: fixture.daemon.pid, named: "lector-piper").first },
                      "no voice worker runs under the daemon\(fixture.context)")
    }

    /// The engine killed mid-chapter: espeak-ng reads on from the same place at once, the
    /// listener is told why (journal, Narrator1.Book, lector status), and the next sentences are
    /// the neural voice's again, from a new worker.
    func testAWorkerKilledMidChapterCostsNothingAndIsReplaced() throws {
        let (model, _) = try realVoice()
        let fixture = try fixture(voices: ["en_US-joe-medium.onnx": model, "en_US-joe-medium.onnx.json": model + ".json"])
        defer { fixture.shutdown() }
        let since = Date()
        XCTAssertEqual(try fixture.cli("read", try longBook(fixture).path, "--voice", "joe", "--from-start").status, 0, fixture.context)
        XCTAssertNotNil(fixture.sound(after: since, timeout: 10), "nothing heard\(fixture.context)")
        let first = try joe(fixture)
        XCTAssertEqual(kill(first, SIGKILL), 0)
        let killed = Date()
        XCTAssertTrue(poll(timeout: 20) { fixture.daemon.output.contains("was killed by signal 9") },
                      "the crash was not noticed\(fixture.context)")
        XCTAssertTrue(try poll(timeout: 5) { try fixture.cli("status").stdout.contains("was killed by signal 9") },
                      "lector status does not say why: \((try? fixture.cli("status").stdout) ?? "")")
        let replaced = pollValue(timeout: 20) {
            ProcessProbe.children(of: fixture.daemon.pid, named: "lector-piper").first { $0 != first }
        }
        XCTAssertNotNil(replaced, "no new worker for the next sentences\(fixture.context)")
        // Once the new worker has spoken, the warning is over: status no longer says it.
        XCTAssertTrue(try poll(timeout: 10) { !(try fixture.cli("status").stdout.contains("was killed by signal 9")) },
                      "lector status still warns after the new worker spoke: \((try? fixture.cli("status").stdout) ?? "")")
        XCTAssertTrue(fixture.daemon.output.contains("the voice joe speaks again"), "not in the journal\(fixture.context)")
        // Narration never stopped: words keep coming and sound keeps being heard.
        let before = fixture.signals("SpeakingRange", since: killed).count
        XCTAssertTrue(poll(timeout: 10) { fixture.signals("SpeakingRange", since: killed).count >= before + 5 },
                      "narration stopped after the worker was killed\(fixture.context)")
        XCTAssertNotNil(fixture.sound(after: Date(), timeout: 5), "silent after the worker was killed\(fixture.context)")
        XCTAssertEqual(try fixture.status(), "Playing")
        let offsets = fixture.signals("SpeakingRange", since: since).compactMap { Int($0.arguments[1]) }
        XCTAssertEqual(offsets, offsets.sorted(), "words went back or skipped around: \(offsets)")
        XCTAssertTrue(fixture.daemon.isRunning)
    }

    /// The model never lives in the daemon: ONNX Runtime is never mapped there, the worker ends
    /// after its idle time once the listener stops, and the daemon is no larger than before.
    func testTheWorkerEndsWhenTheListenerStopsAndTheDaemonNeverHoldsTheModel() throws {
        let (model, _) = try realVoice()
        let fixture = try fixture(voices: ["en_US-joe-medium.onnx": model, "en_US-joe-medium.onnx.json": model + ".json"],
                                  environment: ["LECTOR_NEURAL_IDLE_SECONDS": "2"])
        defer { fixture.shutdown() }
        let since = Date()
        XCTAssertEqual(try fixture.cli("read", try longBook(fixture).path, "--voice", "joe", "--from-start").status, 0, fixture.context)
        XCTAssertNotNil(fixture.sound(after: since, timeout: 10), "nothing heard\(fixture.context)")
        let worker = try joe(fixture)
        Thread.sleep(forTimeInterval: 3)
        let maps = (try? String(contentsOfFile: "/proc/\(fixture.daemon.pid)/maps", encoding: .utf8)) ?? ""
        XCTAssertFalse(maps.contains("onnxruntime"), "ONNX Runtime is mapped in the daemon")
        XCTAssertTrue(((try? String(contentsOfFile: "/proc/\(worker)/maps", encoding: .utf8)) ?? "").contains("onnxruntime"),
                      "the worker does not run the model")
        let narrating = ProcessProbe.residentKiB(fixture.daemon.pid) ?? 0
        let workerPeak = ProcessProbe.peakResidentKiB(worker) ?? 0
        XCTAssertTrue(try fixture.playerctl("stop").succeeded)
        XCTAssertTrue(poll(timeout: 15) { !ProcessProbe.isAlive(worker) }, "the worker outlived its idle time after Stop")
        let stopped = ProcessProbe.residentKiB(fixture.daemon.pid) ?? 0
        print("neural narration: daemon RSS \(narrating / 1024) MB narrating, \(stopped / 1024) MB after Stop with the worker gone; "
              + "worker peak \(workerPeak / 1024) MB")
        XCTAssertLessThanOrEqual(stopped, narrating + 5 * 1024, "the daemon grew after Stop")
        XCTAssertLessThanOrEqual(workerPeak, 250 * 1024, "the worker took more than 250 MB")
    }

    /// Rate and seek with the neural voice, then the session bus goes: the bookmark holds the
    /// word being heard, and the worker ends with the daemon (no orphan keeps the model).
    func testRateSeekAndTheBookmarkOnBusLossHoldWithTheNeuralVoice() throws {
        let (model, _) = try realVoice()
        let fixture = try fixture(voices: ["en_US-joe-medium.onnx": model, "en_US-joe-medium.onnx.json": model + ".json"])
        defer { fixture.shutdown() }
        let book = try longBook(fixture)
        let since = Date()
        XCTAssertEqual(try fixture.cli("read", book.path, "--voice", "joe", "--from-start").status, 0, fixture.context)
        XCTAssertNotNil(fixture.sound(after: since, timeout: 10), "nothing heard\(fixture.context)")
        let worker = try joe(fixture)

        XCTAssertTrue(try fixture.setProperty("Rate", "d", "1.8").succeeded, fixture.context)
        let faster = Date()
        XCTAssertTrue(poll(timeout: 10) { fixture.signals("SpeakingRange", since: faster).count >= 3 },
                      "no words after the rate changed\(fixture.context)")
        let beforeSeek = fixture.signals("SpeakingRange", since: since).compactMap { Int($0.arguments[1]) }.last ?? 0
        let seeked = Date()
        XCTAssertTrue(try fixture.playerctl("position", "10+").succeeded, fixture.context)
        XCTAssertTrue(poll(timeout: 10) { fixture.signals("SpeakingRange", since: seeked).count >= 2 }, fixture.context)
        let afterSeek = try XCTUnwrap(fixture.signals("SpeakingRange", since: seeked).compactMap { Int($0.arguments[1]) }.first)
        XCTAssertGreaterThan(afterSeek, beforeSeek + 60, "the seek did not move ahead")
        print("neural narration: seek +10 s at rate 1.8 moved from offset \(beforeSeek) to \(afterSeek)")
        XCTAssertNotNil(fixture.sound(after: seeked, timeout: 5), "not heard after the seek\(fixture.context)")

        Thread.sleep(forTimeInterval: 1)
        let heard = try XCTUnwrap(fixture.signals("SpeakingRange", since: since).compactMap { Int($0.arguments[1]) }.last)
        try fixture.session.restartBus()
        XCTAssertEqual(fixture.daemon.waitForExit(timeout: 10), 1, fixture.daemon.output)
        let saved = try XCTUnwrap(onlyBookmark(fixture), "no bookmark\n\(fixture.daemon.output)")
        XCTAssertGreaterThanOrEqual(saved.offset, heard, "the bookmark is behind the last word heard")
        XCTAssertLessThanOrEqual(saved.offset, heard + 60, "the bookmark is past the word heard at exit")
        XCTAssertTrue(poll(timeout: 5) { !ProcessProbe.isAlive(worker) }, "the voice worker outlived the daemon")
    }

    /// Chosen like any voice: `[voices]` names joe for English, Narrator1.Voice switches to
    /// espeak-ng and back at the word being heard, and an announcement is spoken by espeak-ng
    /// while the neural narration yields, then goes on from the word it was at.
    func testConfigVoiceSwitchAndAnnouncementsWithTheNeuralVoice() throws {
        let (model, _) = try realVoice()
        let fixture = try fixture(voices: ["en_US-joe-medium.onnx": model, "en_US-joe-medium.onnx.json": model + ".json"])
        defer { fixture.shutdown() }
        let config = URL(fileURLWithPath: fixture.session.environment["XDG_CONFIG_HOME"]! + "/lector/config.toml")
        try FileManager.default.createDirectory(at: config.deletingLastPathComponent(), withIntermediateDirectories: true)
        try "[voices]\nen = \"joe\"\n".write(to: config, atomically: true, encoding: .utf8)
        XCTAssertTrue(try fixture.call("io.github.lector.Lector1", "Reload", path: "/io/github/lector/Lector1").succeeded, fixture.context)
        let book = try longBook(fixture)
        let since = Date()
        XCTAssertEqual(try fixture.cli("read", book.path, "--from-start").status, 0, fixture.context)
        XCTAssertNotNil(fixture.sound(after: since, timeout: 10), "nothing heard\(fixture.context)")
        let voice = { try fixture.property("Voice", interface: PlayerFixture.narrator, path: PlayerFixture.narratorPath).data as? String }
        XCTAssertEqual(try voice(), "joe", "[voices] en = joe did not choose it")
        _ = try joe(fixture)

        // To espeak-ng and back, at the word being heard.
        for name in ["en-us", "joe"] {
            let heard = fixture.lastHeardOffset(since: since) ?? 0
            let switched = Date()
            let set = try fixture.call("org.freedesktop.DBus.Properties", "Set",
                                       ["'\(PlayerFixture.narrator)'", "'Voice'", "<'\(name)'>"], path: PlayerFixture.narratorPath)
            XCTAssertTrue(set.succeeded, "\(set)\(fixture.context)")
            XCTAssertTrue(poll(timeout: 10) { fixture.signals("SpeakingRange", since: switched).count >= 2 },
                          "no words after switching to \(name)\(fixture.context)")
            let next = try XCTUnwrap(fixture.signals("SpeakingRange", since: switched).compactMap { Int($0.arguments[1]) }.first)
            XCTAssertGreaterThanOrEqual(next, heard, "switching to \(name) went back")
            XCTAssertLessThanOrEqual(next, heard + 120, "switching to \(name) skipped ahead")
        }

        // An announcement: espeak-ng speaks it, narration holds and goes on from its word.
        Thread.sleep(forTimeInterval: 1)
        let before = try XCTUnwrap(fixture.lastHeardOffset(since: since))
        let announced = Date()
        // In English, for which [voices] names joe: still espeak-ng's voice for announcements.
        let said = try fixture.call("io.github.lector.Lector1", "Speak", ["'Attention please.'", "{'language': <'en'>}"],
                                    path: "/io/github/lector/Lector1")
        XCTAssertTrue(said.succeeded, "\(said)")
        XCTAssertTrue(poll(timeout: 10) {
            fixture.signals("SpeechFinished", since: announced).contains { $0.interface == "io.github.lector.Lector1" }
        }, "the announcement did not finish\(fixture.context)")
        XCTAssertTrue(poll(timeout: 10) { fixture.signals("SpeakingRange", since: announced).contains {
            $0.interface == PlayerFixture.narrator && (Int($0.arguments[1]) ?? 0) >= before } },
                      "narration did not go on after the announcement\(fixture.context)")
        let resumedAt = try XCTUnwrap(fixture.signals("SpeakingRange", since: announced)
            .first { $0.interface == PlayerFixture.narrator }.flatMap { Int($0.arguments[1]) })
        XCTAssertGreaterThanOrEqual(resumedAt, before - 120, "narration went back too far after the announcement")
        XCTAssertLessThanOrEqual(resumedAt, before + 120, "narration skipped ahead after the announcement")
        XCTAssertEqual(try fixture.status(), "Playing")
        XCTAssertFalse(fixture.daemon.output.contains("cannot speak"), fixture.daemon.output)
    }

    /// A neural voice of another language than the book's: asked for at Open, the book's
    /// language's espeak-ng voice reads instead and says why; set while reading, a named error
    /// and nothing changes.
    func testANeuralVoiceOfAnotherLanguageIsRefusedByName() throws {
        let (model, _) = try realVoice()
        let fixture = try fixture(voices: ["en_US-joe-medium.onnx": model, "en_US-joe-medium.onnx.json": model + ".json"])
        defer { fixture.shutdown() }
        let german = fixture.session.directory.appendingPathComponent("deutsch.epub")
        _ = try EPUBWriter.chapters(2, identifier: "urn:uuid:deutsch", title: "Deutsch", language: "de") { _ in
            "<p>Es war einmal ein kleines Haus am Rande des Waldes, und dort wohnte eine alte Frau mit ihrer Katze.</p>"
        }.write(to: german)
        let since = Date()
        let read = try fixture.cli("read", german.path, "--voice", "joe", "--from-start")
        XCTAssertEqual(read.status, 0, "\(read)\(fixture.context)")
        XCTAssertNotNil(fixture.sound(after: since, timeout: 10), "nothing heard\(fixture.context)")
        let voice = { try fixture.property("Voice", interface: PlayerFixture.narrator, path: PlayerFixture.narratorPath).data as? String }
        let reading = try XCTUnwrap(try voice())
        XCTAssertNotEqual(reading, "joe", "an English neural voice reads a German book")
        XCTAssertTrue(try poll(timeout: 5) {
            try fixture.cli("status").stdout.contains("the voice joe speaks en-us, not this book's language (de): German reads it instead; "
                                                      + "choose a voice that speaks it (lector voices de)")
        }, "lector status does not say why: \((try? fixture.cli("status").stdout) ?? "")")
        XCTAssertTrue(ProcessProbe.children(of: fixture.daemon.pid, named: "lector-piper").isEmpty, "the worker was started")

        let set = try fixture.call("org.freedesktop.DBus.Properties", "Set",
                                   ["'\(PlayerFixture.narrator)'", "'Voice'", "<'joe'>"], path: PlayerFixture.narratorPath)
        fixture.assertError(set, "InvalidArgument", "an English neural voice set for a German book")
        XCTAssertTrue(set.stderr.contains("the voice joe speaks en-us, not this book's language (de); choose a voice that speaks it (lector voices de)"), "\(set)")
        XCTAssertEqual(try voice(), reading, "the refused voice changed it")
        XCTAssertEqual(try fixture.status(), "Playing")
    }

    /// No ONNX Runtime (the one named is not there): joe cannot speak, espeak-ng reads the book
    /// from the first word, and the listener is told why and what to install.
    func testWithTheRuntimeHiddenEspeakNGReadsAndSaysWhatToInstall() throws {
        let fixture = try PlayerFixture.withJoe(environment: ["LECTOR_ONNXRUNTIME": "/nonexistent/libonnxruntime.so.1"])
        defer { fixture.shutdown() }
        let since = Date()
        XCTAssertEqual(try fixture.cli("read", try book(fixture).path, "--voice", "joe", "--from-start").status, 0, fixture.context)
        XCTAssertNotNil(fixture.sound(after: since, timeout: 10), "espeak-ng did not read instead\(fixture.context)")
        XCTAssertTrue(poll(timeout: 10) { fixture.signals("SpeakingRange", since: since).count >= 3 }, fixture.context)
        XCTAssertEqual(fixture.signals("SpeakingRange", since: since).compactMap { Int($0.arguments[1]) }.first, 0,
                       "not read from the first word")
        XCTAssertTrue(try poll(timeout: 5) {
            try fixture.cli("status").stdout.contains("ONNX Runtime not found (pip install onnxruntime")
        }, "lector status does not say what to install: \((try? fixture.cli("status").stdout) ?? "")")
        XCTAssertEqual(try fixture.property("Voice", interface: PlayerFixture.narrator, path: PlayerFixture.narratorPath).data as? String,
                       "joe", "the listener's choice stays (espeak-ng reads for it until the runtime is there)")
        XCTAssertTrue(fixture.daemon.isRunning)
    }
}
