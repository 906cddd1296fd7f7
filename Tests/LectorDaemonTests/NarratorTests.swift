import Foundation
@testable import LectorDaemon
import LectorAudio
import LectorCore
import LectorSpeech
import LectorTestKit
import XCTest

/// A synthesizer in memory: it speaks each scalar of a request in 1/15 s at rate 1 (shorter at a
/// higher rate), every word at the sample it starts on, when the test pumps it (`deliver`), as
/// the speech thread would push its results to the mailbox.
@MainActor
final class FakeSynthesizer: NarrationSynthesizer {
    static let sampleRate = 22050
    struct Job {
        let id: UInt64
        let text: String
        let rate: Double
    }

    private(set) var pending: [Job] = []
    private(set) var requested: [Job] = []
    private(set) var cancelled: Set<UInt64> = []
    private(set) var consumedFrames = 0

    func synthesize(id: UInt64, request: SpeechRequest, voice: Voice, delivery: SpeechEngine.Delivery) {
        let job = Job(id: id, text: request.text, rate: request.rate)
        pending.append(job)
        requested.append(job)
    }

    func cancel(id: UInt64) {
        cancelled.insert(id)
        pending.removeAll { $0.id == id }
    }

    func consumed(frames: Int) { consumedFrames += frames }
    func forget(job: UInt64) {}

    /// Frames one scalar takes at `rate`.
    static func framesPerScalar(rate: Double) -> Int { Int(Double(sampleRate) / 15 / rate) }

    /// What the engine would push for `job`: word boundaries, the audio, then finished.
    static func outputs(of job: Job) -> [SynthesisOutput] {
        let scalars = Array(job.text.unicodeScalars)
        let perScalar = framesPerScalar(rate: job.rate)
        var outputs: [SynthesisOutput] = []
        var start: Int?
        for index in 0...scalars.count {
            let isSpace = index == scalars.count || scalars[index].properties.isWhitespace
            if !isSpace, start == nil { start = index }
            if isSpace, let first = start {
                outputs.append(.word(id: job.id, WordBoundary(start: UInt32(first), length: UInt32(index - first),
                                                              sample: first * perScalar)))
                start = nil
            }
        }
        let total = scalars.count * perScalar
        // Loud enough that no leading silence is trimmed.
        outputs.append(.audio(id: job.id, samples: [Int16](repeating: 4000, count: total)))
        outputs.append(.finished(id: job.id, ok: true, totalSamples: total))
        return outputs
    }

    /// Hands every pending job's results to `handle`, as the loop's mailbox drain does.
    func deliver(to handle: (SynthesisOutput) -> Void) {
        while !pending.isEmpty {
            let job = pending.removeFirst()
            for output in Self.outputs(of: job) { handle(output) }
        }
    }
}

/// A narration stream in memory: the "server" takes up to `serverSeconds` ahead of the listener
/// (the real stream's 8 s) and the rest waits in the stream, handed over as the listener moves
/// on; the listener's frame moves with the `ManualLoop`'s time unless corked, up to what was
/// enqueued; timing replies are always fresh (the channel never has to ask).
@MainActor
final class FakeNarrationStream: NarrationStream {
    static let serverSeconds: Int64 = 8
    let sampleRate = FakeSynthesizer.sampleRate
    private(set) var isCorked = false
    var state = PlaybackStream.State.ready
    var gain = 1.0
    /// Handed to the server (as of the last change of the stream).
    private(set) var framesWritten: Int64 = 0
    private(set) var endFrame: Int64 = 0
    let serverIndex: UInt32? = nil
    private let loop: ManualLoop
    private var anchorFrame: Int64 = 0
    private var anchorTime: UInt64

    init(loop: ManualLoop) {
        self.loop = loop
        anchorTime = loop.now
    }

    func enqueue(_ samples: [Int16]) {
        anchor()
        endFrame += Int64(samples.count)
        handOver()
    }

    @discardableResult func truncate(atFrame frame: Int64) -> Int64 {
        anchor()
        endFrame = max(anchorFrame, min(frame, endFrame))
        framesWritten = min(framesWritten, endFrame)
        handOver()
        return endFrame
    }

    func pause() { anchor(); isCorked = true }
    func resume() { anchor(); isCorked = false }
    func stop() { anchor(); endFrame = anchorFrame; framesWritten = anchorFrame }

    func currentHeardFrame() -> Int64 {
        guard !isCorked else { return anchorFrame }
        let elapsed = Int64(loop.now - anchorTime) * Int64(sampleRate) / 1_000_000
        return min(endFrame, anchorFrame + elapsed)
    }

    private func handOver() {
        framesWritten = max(framesWritten, min(endFrame, anchorFrame + Self.serverSeconds * Int64(sampleRate)))
    }

    func timingIsFresh(maxAge: UInt64) -> Bool { true }
    func heardFrame(_ completion: @escaping @MainActor (Int64) -> Void) { completion(currentHeardFrame()) }

    func microseconds(untilHeard frame: Int64, atMost longest: UInt64) -> UInt64 {
        let ahead = max(0, frame - currentHeardFrame())
        return min(UInt64(ahead) * 1_000_000 / UInt64(sampleRate) + 1_000, longest)
    }

    private func anchor() {
        anchorFrame = currentHeardFrame()
        anchorTime = loop.now
        handOver()
    }
}

/// `Narrator` with a manual loop, the fake synthesizer and the fake stream: what the listener
/// hears and when, with no sleeps and no sound server.
@MainActor
final class NarratorHarness {
    let loop = ManualLoop()
    let synthesizer = FakeSynthesizer()
    let narrator: Narrator
    private(set) var streams: [FakeNarrationStream] = []
    /// (offset, loop milliseconds since the start) of each SpeakingRange.
    private(set) var spoken: [(offset: Int, at: Double)] = []
    private(set) var seeks: [Int64] = []
    private(set) var bookmarks = 0
    let start: UInt64
    var jobs: UInt64 = 0

    static let voice = Voice(name: "en-us", identifier: "gmw/en-US", languages: [.init(tag: "en-us", priority: 2)], gender: .male)

    init() throws {
        let narrator = try Narrator(loop: loop, engine: synthesizer, allocateJob: { [counter = JobCounter()] in counter.next() })
        self.narrator = narrator
        start = loop.now
        narrator.voice = Self.voice
        narrator.onNeedsStream = { [weak self] in
            guard let self else { return }
            let stream = FakeNarrationStream(loop: self.loop)
            self.streams.append(stream)
            self.narrator.stream = stream
            self.narrator.feed()
        }
        narrator.onSpeakingRange = { [weak self] _, offset, _ in
            guard let self else { return }
            self.spoken.append((offset, Double(self.loop.now - self.start) / 1000))
        }
        narrator.onSeeked = { [weak self] in self?.seeks.append($0) }
        narrator.onBookmark = { [weak self] in self?.bookmarks += 1 }
    }

    final class JobCounter: @unchecked Sendable {
        private var value: UInt64 = 0
        func next() -> UInt64 { value += 1; return value }
    }

    /// A book of `chapters`, all loaded.
    func open(_ chapters: [String], chapter: Int = 0, offset: Int = 0, time: Int64? = nil, play: Bool = true) {
        var book = OpenBook(identity: "urn:test:book", title: "Test", authors: [], language: "en",
                            url: URL(fileURLWithPath: "/tmp/test.txt"), coverURL: nil,
                            chapterTitles: chapters.indices.map { "Chapter \($0 + 1)" })
        for (index, text) in chapters.enumerated() { book.store(text, chapter: index) }
        narrator.open(book, chapter: chapter, offset: offset, time: time, play: play)
        pump()
    }

    /// The speech thread's results reach the narrator.
    func pump() {
        synthesizer.deliver { narrator.handle($0) }
    }

    /// Listening time passes, in 10-ms steps (the engine answering between them).
    func listen(seconds: Double) {
        var left = UInt64(seconds * 1_000_000)
        while left > 0 {
            let step = min(left, 10_000)
            pump()
            loop.advanceTime(by: step)
            left -= step
        }
        pump()
    }

    var positionSeconds: Double { Double(narrator.position) / 1e6 }
    var stream: FakeNarrationStream? { streams.last.flatMap { narrator.stream === $0 ? $0 : nil } }
}

/// XCTest on Linux runs test methods on the main thread but cannot call @MainActor ones.
private func withNarrator(_ body: @MainActor (NarratorHarness) throws -> Void) throws {
    try MainActor.assumeIsolated {
        let harness = try NarratorHarness()
        defer { harness.narrator.close() }
        try body(harness)
    }
}

/// Narration in-process (issue 22's seam): position, pause, seek, rate, buffering, chapters and
/// the bookmark's word and time, against the heard clock of a stream in memory.
final class NarratorTests: XCTestCase {
    /// Ten words of five letters: each word starts 6 scalars (0.4 s at rate 1) after the last.
    static let words = (0..<10).map { "word\($0)" }.joined(separator: " ") + "."
    static func offset(ofWord index: Int) -> Int { index * 6 }

    func testWordsAreSpokenWhenHeardAndPositionFollowsTheClock() throws {
        try withNarrator { harness in
            harness.open([Self.words])
            XCTAssertEqual(harness.narrator.state.status, .playing)
            XCTAssertEqual(harness.streams.count, 1, "Play asks for one stream")
            harness.listen(seconds: 2.05)
            // Words at 0, 0.4, 0.8, 1.2, 1.6 and 2.0 s: each announced when its first frame is heard.
            XCTAssertEqual(harness.spoken.map(\.offset), (0...5).map(Self.offset(ofWord:)))
            for (index, word) in harness.spoken.enumerated() {
                XCTAssertEqual(word.at, Double(index) * 400, accuracy: 15, "word \(index) announced at \(word.at) ms")
            }
            XCTAssertEqual(harness.positionSeconds, 2.05, accuracy: 0.02)
            XCTAssertEqual(harness.narrator.resumePoint.offset, Self.offset(ofWord: 5))
        }
    }

    func testPauseHoldsPositionAndPlayGoesOnAtTheNextWord() throws {
        try withNarrator { harness in
            harness.open([Self.words])
            harness.listen(seconds: 1.0)
            harness.narrator.pause()
            let paused = harness.positionSeconds
            let spoken = harness.spoken.count
            harness.listen(seconds: 5)
            XCTAssertEqual(harness.positionSeconds, paused, accuracy: 0.001, "Position moved while paused")
            XCTAssertEqual(harness.spoken.count, spoken, "a word was announced while paused")
            XCTAssertTrue(harness.stream?.isCorked ?? false, "pause corks the stream at once")
            harness.narrator.play()
            harness.listen(seconds: 1.0)
            let offsets = harness.spoken.map(\.offset)
            XCTAssertEqual(offsets, Array(Set(offsets)).sorted(), "a word repeated or came out of order: \(offsets)")
            XCTAssertEqual(offsets.count, 5, "words 0-4 in two seconds of listening: \(offsets)")
            XCTAssertEqual(harness.positionSeconds, 2.0, accuracy: 0.02)
        }
    }

    /// A pause keeps the audio in hand, so Play synthesizes nothing again: with a neural voice
    /// that refill after every Play cost the pause that followed it at the sink.
    func testPauseKeepsWhatIsSynthesizedAndPlaySynthesizesNothingAgain() throws {
        try withNarrator { harness in
            let sentences = (0..<200).map { "Sentence \($0) has exactly these few words in it." }.joined(separator: " ")
            harness.open([sentences])
            harness.listen(seconds: 1.0)
            let stream = try XCTUnwrap(harness.stream)
            let end = stream.endFrame
            let asked = harness.synthesizer.requested.count
            XCTAssertGreaterThan(Double(end - stream.currentHeardFrame()) / Double(stream.sampleRate), Double(Narrator.refillBelowSeconds))
            harness.narrator.pause()
            XCTAssertEqual(stream.endFrame, end, "pause dropped synthesized audio")
            harness.listen(seconds: 2)
            harness.narrator.play()
            harness.listen(seconds: 2)
            XCTAssertEqual(harness.synthesizer.requested.count, asked, "Play synthesized again what the pause had kept")
            let offsets = harness.spoken.map(\.offset)
            XCTAssertEqual(offsets, Array(Set(offsets)).sorted(), "a word repeated or came out of order: \(offsets)")
            XCTAssertEqual(harness.positionSeconds, 3.0, accuracy: 0.05)
        }
    }

    func testASeekLandsOnAWordStartAndSaysSo() throws {
        try withNarrator { harness in
            harness.open([Self.words])
            harness.listen(seconds: 0.5)
            // Into the middle of word 7: it is read from its start.
            harness.narrator.jump(toChapter: 0, offset: Self.offset(ofWord: 7) + 2, announceSeek: true)
            harness.listen(seconds: 0.05)
            XCTAssertEqual(harness.spoken.last?.offset, Self.offset(ofWord: 7))
            XCTAssertEqual(harness.seeks.count, 1)
            XCTAssertEqual(harness.narrator.resumePoint.offset, Self.offset(ofWord: 7))
        }
    }

    func testARateChangeSpeedsUpFromTheNextWord() throws {
        try withNarrator { harness in
            harness.open([String(repeating: Self.words + " ", count: 4)])
            harness.listen(seconds: 1.0)
            let before = harness.positionSeconds
            harness.narrator.setRate(2.0)
            harness.listen(seconds: 2.0)
            // Position is in normal-rate time: two seconds of listening at 2x move it about 4 s.
            XCTAssertEqual(harness.positionSeconds - before, 4.0, accuracy: 0.5)
            XCTAssertEqual(harness.synthesizer.requested.last?.rate, 2.0, "later segments are asked for at the new rate")
            let offsets = harness.spoken.map(\.offset)
            XCTAssertEqual(offsets, offsets.sorted(), "no word repeated across the rate change: \(offsets)")
        }
    }

    /// Paused with seconds of audio in hand, a rate change is heard from the next word after Play
    /// too, not after what was synthesized at the old rate.
    func testARateChangeWhilePausedIsHeardFromTheNextWord() throws {
        try withNarrator { harness in
            let sentences = (0..<200).map { "Sentence \($0) has exactly these few words in it." }.joined(separator: " ")
            harness.open([sentences])
            harness.listen(seconds: 1.0)
            harness.narrator.pause()
            let before = harness.positionSeconds
            harness.narrator.setRate(2.0)
            harness.narrator.play()
            harness.listen(seconds: 2.0)
            // The next word at least 80 ms ahead (the fake's words are 0.4 s) at 1x, the rest at 2x.
            XCTAssertEqual(harness.positionSeconds - before, 3.75, accuracy: 0.3, "two seconds heard at 2x")
            XCTAssertEqual(harness.synthesizer.requested.last?.rate, 2.0)
            let offsets = harness.spoken.map(\.offset)
            XCTAssertEqual(offsets, Array(Set(offsets)).sorted(), "a word repeated or came out of order: \(offsets)")
        }
    }

    func testSynthesisStaysBetweenFifteenAndThirtySecondsAhead() throws {
        try withNarrator { harness in
            // 200 sentences of about 4 s each: far more than the buffer.
            let sentences = (0..<200).map { "Sentence \($0) has exactly these few words in it." }.joined(separator: " ")
            harness.open([sentences])
            let stream = try XCTUnwrap(harness.stream)
            @MainActor func ahead() -> Double { Double(stream.endFrame - stream.currentHeardFrame()) / Double(stream.sampleRate) }
            XCTAssertGreaterThanOrEqual(ahead(), Double(Narrator.aheadSeconds), "a batch fills the buffer at once")
            XCTAssertLessThan(ahead(), Double(Narrator.aheadSeconds) + 5)
            let asked = harness.synthesizer.requested.count
            harness.listen(seconds: 10)
            XCTAssertEqual(harness.synthesizer.requested.count, asked, "synthesis woke before the buffer fell below 15 s")
            harness.listen(seconds: 6)
            XCTAssertGreaterThan(harness.synthesizer.requested.count, asked, "no refill below 15 s")
            XCTAssertGreaterThanOrEqual(ahead(), Double(Narrator.aheadSeconds))
        }
    }

    func testPlayWithSecondsBufferedLetsTheUncorkGoFirstAndASeekIsNotHeldBack() throws {
        try withNarrator { harness in
            let sentences = (0..<200).map { "Sentence \($0) has exactly these few words in it." }.joined(separator: " ")
            harness.open([sentences])
            // Listening with the engine not answering: the refill below 15 s is asked for and pending.
            let filled = harness.synthesizer.requested.count
            while harness.synthesizer.requested.count == filled { harness.loop.advanceTime(by: 10_000) }
            harness.narrator.pause()
            XCTAssertTrue(harness.synthesizer.pending.isEmpty, "pause cancels the pending refill")
            let asked = harness.synthesizer.requested.count
            harness.narrator.play()
            XCTAssertEqual(harness.synthesizer.requested.count, asked, "Play asked for synthesis beside the uncork")
            harness.loop.advanceTime(by: Narrator.resumeSettleMicroseconds - 10_000)
            XCTAssertEqual(harness.synthesizer.requested.count, asked, "synthesis came before the settle time")
            harness.loop.advanceTime(by: 20_000)
            XCTAssertEqual(harness.synthesizer.requested.count, asked + 1, "the refill was not taken up after the settle time")
            // A seek right after Play has nothing buffered at its word: synthesized at once.
            harness.narrator.pause()
            harness.narrator.play()
            harness.narrator.jump(toChapter: 0, offset: 2_000, announceSeek: true)
            XCTAssertEqual(harness.synthesizer.requested.count, asked + 2, "a seek after Play waited for the settle time")
        }
    }

    func testAChapterHeardToItsEndGoesOnToTheNextAndTheBookEndsStopped() throws {
        try withNarrator { harness in
            harness.open(["One two three.", "Four five."])
            harness.listen(seconds: 2)
            XCTAssertEqual(harness.narrator.state.chapter, 1, "the next chapter after the first was heard")
            harness.listen(seconds: 2)
            XCTAssertEqual(harness.narrator.state.status, .stopped, "the book's end stops")
            XCTAssertGreaterThanOrEqual(harness.bookmarks, 2, "a bookmark at each chapter change and at the end")
        }
    }

    /// Stop keeps the word and its time; opening there again with that time (a restart's
    /// bookmark) shows the same Position, not an estimate from the offset.
    func testStopKeepsTheWordAndItsTimeForTheBookmark() throws {
        try withNarrator { harness in
            harness.open([Self.words])
            harness.listen(seconds: 1.3)
            harness.narrator.stop()
            let point = harness.narrator.resumePoint
            let time = try XCTUnwrap(harness.narrator.resumeTime)
            XCTAssertEqual(point.offset, Self.offset(ofWord: 3))
            XCTAssertEqual(Double(time) / 1e6, 1.2, accuracy: 0.02, "the word's start on the heard clock")
            XCTAssertEqual(harness.narrator.position, time, "Stop leaves Position at the word")
            XCTAssertNil(harness.narrator.stream, "Stop lets the stream go")

            let again = try NarratorHarness()
            defer { again.narrator.close() }
            again.open([Self.words], offset: point.offset, time: time, play: false)
            XCTAssertEqual(again.narrator.position, time)
        }
    }
}
