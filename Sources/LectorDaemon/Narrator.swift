import LectorAudio
import LectorCore
import LectorLoop
import LectorSpeech

/// Reads the open book aloud: chapter text → sentence segments → the speech engine → its own
/// playback stream (`media.role=music`), with Position kept on that stream's clock.
///
/// Owned by the event loop thread. Synthesis runs in batches, 15 to 30 s ahead of the listener,
/// and the stream keeps seconds on the sound server (`PlaybackStream.Buffering.narration`);
/// pausing corks the stream (resume continues at that sample) and stops synthesis at the next
/// word not yet sent to the server, so the speech thread is free for announcements meanwhile; a
/// rate change cuts the server's audio at the next word (`setRate`).
@MainActor
final class Narrator {
    /// A word of the current run, on the stream timeline.
    struct Word {
        var offset: Int
        var length: Int
        var frame: Int64
    }

    enum Event {
        case word(Word)
        case chapterEnd
    }

    /// The segment being synthesized.
    struct Synthesis {
        let job: UInt64
        let range: Range<Int>
        var baseFrame: Int64?
        /// Only a run's first segment is trimmed: later ones keep espeak's natural pauses.
        var trimmer: LeadingSilenceTrimmer
        var words: [Word] = []
        var earlyWords: [WordBoundary] = []
        /// From what espeak-ng was given back to the chapter's words (nil: one scalar for one).
        var rewrite: TextRewrite?
    }

    /// Synthesis runs in batches: once less than `refillBelowSeconds` of audio is ahead of the
    /// listener it goes on, segment after segment, until `aheadSeconds` are; then the speech
    /// thread sleeps until the listener has heard the difference.
    static let aheadSeconds: Int64 = 30
    static let refillBelowSeconds: Int64 = 15
    /// Play with seconds still buffered on the server holds synthesis back this long, so the
    /// uncork is not competing for the CPU with a refill batch (on 2 cores that slowed play →
    /// sound at the sink, and with a neural voice the pause after it, by ~0.5-1 ms).
    static let resumeSettleMicroseconds: UInt64 = 300_000

    let engine: any NarrationSynthesizer
    let allocateJob: () -> UInt64
    /// Called after every change of `state` with the state before it.
    var onStateChange: ((PlayerState) -> Void)?
    var onSeeked: ((Int64) -> Void)?
    var onSpeakingRange: ((String, Int, Int) -> Void)?
    var onBookmark: (() -> Void)?
    /// Sound is wanted and there is no stream (Stop let it go, or none was opened yet): the
    /// service opens one, and `feed()` starts once it is ready.
    var onNeedsStream: (() -> Void)?
    /// A chapter was heard to its end (narration has moved on to the next, or the book ended):
    /// the sleep timer's "end of chapter" (SleepTimer).
    var onChapterHeardToEnd: (() -> Void)?
    /// A chapter's text is needed (to play it, or next) and not here: read it from the book.
    var onChapterNeeded: ((Int) -> Void)?
    /// Play is about to resume narration where it was: rewinding after a long pause (ResumeRewind).
    var willResume: (() -> Void)?

    private(set) var book: OpenBook?
    private(set) var state = PlayerState()
    /// The book's voice.
    var voice: Voice?
    /// The voice for a passage in another language (`Chapter.languageRuns`), nil for the book's.
    var voiceForPassage: ((String) -> Voice?)?
    var stream: (any NarrationStream)? {
        willSet {
            guard newValue !== stream else { return }
            // Queued audio must be counted as consumed, or the mailbox stays "full" forever.
            carriedPosition = position
            if let current = synthesis { engine.cancel(id: current.job) }
            synthesis = nil
            stream?.stop()
        }
        didSet {
            guard oldValue !== stream else { return }
            channel.clock = stream   // which also forgets what was waiting to be heard on the old one
            upcoming = []
            chapterEndScheduled = false
            // The new stream counts frames from its own start: begin a run at the last word heard.
            nextOffset = heardOffset
            heardFrame = nil
            clock.startRun(atOffset: heardOffset, time: carriedPosition)
            runBaseFrame = stream?.endFrame ?? 0
        }
    }

    /// Words and the chapter's end wait there for the listener to hear them.
    private let channel: SpeakingChannel<Event>
    private var upcoming: [Word] = []
    private var synthesis: Synthesis?
    private(set) var clock = ChapterClock(scalarCount: 0)
    private var segmenter = TextSegmenter("")
    var segmenterScalars: ScalarStore { segmenter.scalars }
    /// The chapter's passages in other languages: segments end where the language changes.
    private var languages = LanguageRuns()
    /// The language the book marks at `offset` of the chapter (nil: the book's own).
    func passageLanguage(at offset: Int) -> String? { languages.language(at: offset) }
    /// The chapter's and the listener's pronunciations (Narrator+Pronunciation); nil: none.
    var pronouncer: Pronouncer?
    /// config.toml's `[pronunciation]` lexicons: applied from the next segment synthesized.
    var listenerLexicons: [PronunciationLexicon] = [] {
        didSet {
            guard listenerLexicons != oldValue else { return }
            pronouncerCache = [:]
            pronouncer = makePronouncer(chapter: state.chapter)
        }
    }
    /// Pronouncers made, by book, lexicon paths and language: chapters of a book share its
    /// lexicons, and converting a large one on every chapter change would hold the loop.
    var pronouncerCache: [String: Pronouncer] = [:]
    /// Pronunciation problems already logged for this book, so each is logged once.
    var loggedPronunciationNotes: Set<String> = []
    /// Where synthesis continues in the chapter.
    private var nextOffset = 0
    /// Stream frame at which the current run's audio starts.
    private var runBaseFrame: Int64 = 0
    /// The last word heard: what a bookmark records.
    private(set) var heardOffset = 0
    /// The stream frame at which that word began (nil when it was not heard on this stream run).
    private var heardFrame: Int64?
    private var chapterEndScheduled = false
    /// Between `refillBelowSeconds` and `aheadSeconds`: a batch of synthesis is under way.
    private var refilling = true
    /// Speaking speed learned from this book, carried from chapter to chapter.
    private var learnedSpeed = 15.0
    private var learning = (scalars: 0, seconds: 0.0)
    /// The chapter length clients were told (Metadata's mpris:length): estimated once per
    /// chapter and kept while it plays, seeks included; the speed learned meanwhile refines the
    /// clock quietly and surfaces at the next chapter, or at a rate change (`setRate`). Shells
    /// redraw on every Metadata change and show this length: it must not drift under the
    /// listener's eyes (22:21 became 19:56 within 50 s when every 5% of learning was announced).
    private(set) var announcedLength: Int64 = 0
    /// At a rate change the length is estimated again if the learned one differs by more than this.
    static let lengthRefinement = 0.02
    /// A jump waiting for its chapter's text.
    private var pendingJump: (chapter: Int, offset: Int, time: Int64?)?
    /// Position across a stream replacement (sound server restart).
    private var carriedPosition: Int64 = 0
    /// Which book and chapter `segmenter` holds.
    private var segmenterKey = ""
    /// Set by the end of the book: Play then starts the book over.
    private var restartOnPlay = false
    private let loop: any LoopScheduling
    /// `feed()` waits until this loop time (see `resumeSettleMicroseconds`), then its timer feeds.
    private var feedsFrom: UInt64 = 0
    private var settleTimer: (any LoopTimer)?
    /// While set, state changes are collected and announced once (see `batch`).
    private var batchStart: PlayerState?

    init(loop: any LoopScheduling, engine: any NarrationSynthesizer, allocateJob: @escaping () -> UInt64) throws {
        self.engine = engine
        self.allocateJob = allocateJob
        self.loop = loop
        channel = try SpeakingChannel(loop: loop)
        channel.listens = { [weak self] in self?.state.status == .playing }
        channel.onHeard = { [weak self] events in
            guard let self else { return }
            for event in events { self.announce(event) }
            self.feed()
        }
        settleTimer = try loop.makeTimer { [weak self] in self?.feed() }
    }

    /// Teardown, before the bookmark is taken: the word being heard now (from the playback
    /// clock, interpolated since the last timing reply) becomes the bookmark's word.
    func settleHeard() {
        for event in channel.heardNow() {
            if case .word(let word) = event { hear(word) }
        }
    }

    /// A stream is wanted while a book plays or is paused (a pause keeps its buffered audio);
    /// a stopped narrator holds none, so nothing of it stays on the sound server.
    var wantsStream: Bool { book != nil && state.status != .stopped }

    /// An exit is under way (the bookmark taken): what the sound server holds of narration is
    /// dropped (cork, then flush), so none of it plays on while the daemon takes its leave.
    func silence() {
        if let current = synthesis { engine.cancel(id: current.job) }
        synthesis = nil
        stream?.stop()
    }

    /// Teardown: nothing more is synthesized or played; the stream is let go (its sound server
    /// frees it). The bookmark must have been taken before.
    func close() {
        channel.close()
        settleTimer?.close()
        if let current = synthesis { engine.cancel(id: current.job) }
        synthesis = nil
        stream = nil
    }

    var trackID: String { book?.trackID(state.chapter) ?? noTrackID }

    func owns(job: UInt64) -> Bool { synthesis?.job == job }

    /// An announcement has the speaker: narration is silent and synthesizes nothing, while
    /// PlaybackStatus stays what it was (no Playing/Paused flicker for media controls).
    private(set) var isHeld = false
    /// Called when `isHeld` changes (PausedBecause shows "announcement" meanwhile).
    var onHoldChange: (() -> Void)?

    // MARK: - state changes, always through here

    func update(_ change: (inout PlayerState) -> Void) {
        let before = state
        change(&state)
        if batchStart == nil, before != state { onStateChange?(before) }
    }

    /// Several updates announced as one change (one PropertiesChanged with the final values).
    private func batch(_ body: () -> Void) {
        let start = state
        batchStart = start
        body()
        batchStart = nil
        if start != state { onStateChange?(start) }
    }

    // MARK: - opening

    /// Replaces the book; starts at `chapter`/`offset` (a bookmark) and plays if asked.
    /// `time`: Position at `offset` when known (a bookmark's), else estimated from the offset.
    func open(_ book: OpenBook, chapter: Int, offset: Int, time: Int64? = nil, play: Bool) {
        discardAudio()
        self.book = book
        learnedSpeed = 15
        learning = (0, 0)
        announcedLength = 0
        clock = ChapterClock(scalarCount: 0, scalarsPerSecond: learnedSpeed)
        segmenterKey = ""
        loggedPronunciationNotes = []
        pronouncerCache = [:]
        restartOnPlay = false
        // One state change: a book replacing a playing one goes Playing -> Playing, no flicker,
        // and Metadata goes out once, with the new chapter's length.
        batch {
            update {
                $0.open(chapterCount: book.chapterCount, chapter: chapter)
                if play { $0.status = .playing }
            }
            jump(toChapter: chapter, offset: offset, time: time, announceSeek: offset > 0)
        }
        if !play {
            stream = nil
        } else if !isHeld {
            startSound()
        }
    }

    /// The background parser delivered a chapter's text.
    func chapterLoaded(_ index: Int, text: String, languages: [LanguageRun] = [],
                       pronunciation: ChapterPronunciation = ChapterPronunciation()) {
        book?.store(text, chapter: index)
        book?.chapterLanguages[index] = languages
        if !pronunciation.isEmpty { book?.chapterPronunciations[index] = pronunciation }
        if let pending = pendingJump, pending.chapter == index {
            pendingJump = nil
            jump(toChapter: index, offset: pending.offset, time: pending.time, announceSeek: pending.offset > 0)
        }
    }

    /// Lets go of chapter texts far from the listener (`OpenBook.keptChapters`), once whoever
    /// waited for an arriving chapter has it.
    func keepTextsNearListener() {
        book?.keepTexts(near: state.chapter)
    }

    // MARK: - position

    /// MPRIS Position: the stream clock since the run began, in normal-rate microseconds.
    var position: Int64 {
        guard book != nil, !(state.status == .stopped && restartOnPlay) else { return 0 }
        guard let stream else { return clock.runStartTime }
        let heard = stream.currentHeardFrame()
        let seconds = Double(max(0, heard - runBaseFrame)) / Double(stream.sampleRate)
        return clock.position(audioSeconds: seconds, rate: state.rate)
    }

    /// Moves to `chapter` at the word containing `offset`. Keeps the playback status.
    func jump(toChapter chapter: Int, offset: Int, time: Int64? = nil, announceSeek: Bool) {
        guard let book, book.chapterTitles.indices.contains(chapter) else { return }
        discardAudio()
        let changedChapter = chapter != state.chapter
        guard let text = book.chapterTexts[chapter] else {
            pendingJump = (chapter, offset, time)
            heardOffset = offset
            heardFrame = nil
            nextOffset = offset
            clock = ChapterClock(scalarCount: 0, scalarsPerSecond: learnedSpeed)
            announcedLength = 0
            // It plays when it comes: from the background parser, or read again (let go far
            // from the listener).
            update { $0.chapter = chapter; if changedChapter { $0.metadataRevision += 1 } }
            onChapterNeeded?(chapter)
            return
        }
        // The next is ready before this one ends.
        if book.chapterTitles.indices.contains(chapter + 1), book.chapterTexts[chapter + 1] == nil {
            onChapterNeeded?(chapter + 1)
        }
        let key = "\(book.identity)#\(chapter)"
        if key != segmenterKey {
            segmenter = TextSegmenter(text)
            languages = LanguageRuns(book.chapterLanguages[chapter] ?? [])
            segmenterKey = key
            pronouncer = makePronouncer(chapter: chapter)
        }
        clock = ChapterClock(scalarCount: segmenter.count, scalarsPerSecond: learnedSpeed)
        // Metadata carries the length: announced for a new chapter (or its first estimate, once
        // its text is here), never for a seek within it.
        let newLength = changedChapter || announcedLength == 0
        if newLength { announcedLength = clock.length }
        let start = segmenter.wordStart(atOrBefore: offset)
        clock.startRun(atOffset: start, time: time.map { min($0, clock.length) })
        nextOffset = start
        heardOffset = start
        heardFrame = nil
        runBaseFrame = stream?.endFrame ?? 0
        chapterEndScheduled = false
        update {
            $0.chapter = chapter
            if newLength { $0.metadataRevision += 1 }
            $0.pastRestartThreshold = Double(clock.runStartTime) / 1e6 > PlayerState.restartThresholdSeconds
        }
        if announceSeek { onSeeked?(clock.runStartTime) }
        feed()
    }

    // MARK: - transport

    /// Plays from where narration is: the paused sample, the word Stop or a restart left it
    /// at (see `stop()`), or, after the book's end, the book's start.
    func play() {
        guard book != nil else { return }
        if !restartOnPlay, state.status != .playing { willResume?() }
        if restartOnPlay {
            restartOnPlay = false
            batch {
                update { $0.status = .playing }
                jump(toChapter: 0, offset: 0, announceSeek: state.chapter == 0)
            }
            if !isHeld { startSound() }
            return
        }
        update { $0.status = .playing }
        guard !isHeld else { return }   // release() starts it when the announcements are over
        startSound()
        rescheduleHeard()
    }

    /// Sound is wanted: resume the stream, or ask for one if Stop let it go (`feed()` then
    /// starts when the new stream is ready).
    private func startSound() {
        if let stream {
            stream.resume()
            if stream.endFrame - stream.currentHeardFrame() >= 2 * Int64(stream.sampleRate) {
                feedsFrom = loop.now + Self.resumeSettleMicroseconds
            }
        } else {
            onNeedsStream?()
        }
        feed()
    }

    /// Announcements take the speaker: stop at once and get ready to go on from the start of
    /// the word being heard (Position holds there).
    func hold() {
        guard !isHeld else { return }
        isHeld = true
        if state.status == .playing, book != nil, pendingJump == nil {
            jump(toChapter: state.chapter, offset: heardOffset, announceSeek: false)
        } else if let current = synthesis {
            engine.cancel(id: current.job)   // free the speech thread all the same
            synthesis = nil
            if current.baseFrame == nil { nextOffset = current.range.lowerBound }
        }
        stream?.pause()
        onHoldChange?()
    }

    /// The announcements are over: narration goes on from the held word, unless the listener
    /// paused meanwhile. Seeked tells clients that extrapolated Position during the hold.
    func release() {
        guard isHeld else { return }
        isHeld = false
        onHoldChange?()
        guard state.status == .playing else { return }
        onSeeked?(clock.runStartTime)
        startSound()
        rescheduleHeard()
    }

    func pause() {
        guard state.status == .playing else { return }
        stream?.pause()
        // What is synthesized stays, on the server and here, so Play synthesizes nothing again
        // (a neural voice's refill overlapped the next pause: +0.25 ms at the sink). Only a
        // sentence still being made is cut, at its last word in hand (whose sound may be
        // partial), which frees the speech thread.
        if let current = synthesis {
            cutAtNextWord(atOrAfter: current.words.last?.frame ?? current.baseFrame ?? stream?.endFrame)
        }
        update { $0.status = .paused }
        channel.stopListening()
        onBookmark?()
    }

    /// MPRIS Stop: silence at once, the bookmark written at the word being heard, and the stream
    /// let go (its sound server frees it). Position stays at that word and Play resumes there,
    /// exactly as after a restart of the daemon. The MPRIS spec says Play after Stop "should"
    /// start the track over; an audiobook listener who presses Stop expects to keep the place
    /// (2:10 into a chapter must not become 0:01), so Lector deviates on purpose (README,
    /// dbus/io.github.lector.Narrator1.xml).
    ///
    /// ```swift
    /// narrator.stop()   // Stopped at "river", 2:10; bookmark (3, 1834) on disk shortly
    /// narrator.play()   // Playing from "river", 2:10
    /// ```
    func stop() {
        guard state.status != .stopped else { return }
        settleHeard()
        let time = heardTime
        batch {
            update { $0.status = .stopped }   // first: discarding audio then leaves the stream corked
            jump(toChapter: state.chapter, offset: heardOffset, time: time, announceSeek: false)
        }
        onBookmark?()
        stream = nil
    }

    /// Position at the start of the word last heard, on the stream clock (nil if none was heard
    /// in this run): so that stopping there does not move Position by the estimate's error.
    private var heardTime: Int64? {
        guard let heardFrame, let stream else { return nil }
        let seconds = Double(max(0, heardFrame - runBaseFrame)) / Double(stream.sampleRate)
        return clock.position(audioSeconds: seconds, rate: state.rate)
    }

    /// Position at the word a bookmark records (`resumePoint`): the time Stop leaves Position at,
    /// so that a restart restores that, not an estimate from the offset. nil when unknown.
    var resumeTime: Int64? {
        if let time = heardTime { return time }
        return heardOffset == clock.runStartOffset ? clock.runStartTime : nil
    }

    /// Rate change at the next word: the first one far enough ahead of the listener that the
    /// server's buffered audio can be cut there before it plays (`PlaybackStream.truncate`). No
    /// gap, no repeat.
    func setRate(_ rate: Double) {
        guard rate != state.rate else { return }
        // Paused too: a pause keeps seconds synthesized at the old rate.
        if let stream, state.status != .stopped,
           let cut = cutAtNextWord(atOrAfter: stream.currentHeardFrame() + Self.cutLeadFrames(stream)) {
            let seconds = Double(max(0, cut.frame - runBaseFrame)) / Double(stream.sampleRate)
            let time = clock.position(audioSeconds: seconds, rate: state.rate)
            clock.startRun(atOffset: cut.offset, time: time)
            runBaseFrame = cut.frame
        } else {
            clock.startRun(atOffset: nextOffset, time: position)
            runBaseFrame = stream?.endFrame ?? 0
        }
        learning = (0, 0)   // speeds measured at the old rate do not count at the new one
        // Clients redraw for the new Rate anyway: the moment to show a meaningfully refined length.
        let refined = announcedLength > 0 && clock.scalarCount > 0
            && abs(Double(clock.length - announcedLength)) / Double(announcedLength) > Self.lengthRefinement
        if refined { announcedLength = clock.length }
        update {
            $0.rate = rate
            if refined { $0.metadataRevision += 1 }
        }
        feed()
    }

    // MARK: - synthesis

    /// Asks the engine for the next segment when nothing is being synthesized and a batch is
    /// due (see `aheadSeconds`).
    func feed() {
        guard state.status == .playing, !isHeld, synthesis == nil, pendingJump == nil, let stream,
              stream.state == .ready, let voice else { return }
        let ahead = stream.endFrame - stream.currentHeardFrame()
        let rate = Int64(stream.sampleRate)
        // Held back only while seconds are buffered: a seek meanwhile is heard at once.
        let now = loop.now
        if now < feedsFrom, ahead >= 2 * rate {
            settleTimer?.schedule(noLaterThan: feedsFrom - now)
            return
        }
        if ahead < Self.refillBelowSeconds * rate { refilling = true }
        guard refilling, ahead < Self.aheadSeconds * rate else {
            refilling = false
            return
        }
        // Seconds ahead: each sentence reaches the loop in one piece (one wake-up, not one per
        // 20 ms). Nearly nothing ahead (a start, a seek, a resume): its first sound at once, the
        // rest by the second. (Sentences stay one synthesis each: espeak-ng pauses between
        // sentences of one text, not after the last, so joining them would change the reading.)
        let delivery: SpeechEngine.Delivery = ahead >= 2 * rate ? .batched(frames: .max, firstAtOnce: false)
            : .batched(frames: stream.sampleRate, firstAtOnce: ahead < rate / 2)
        while nextOffset < segmenter.count {
            var range = segmenter.segment(from: nextOffset)
            // A passage in another language is a segment of its own, in that language's voice.
            let speaker = speaker(at: nextOffset)
            var after = nextOffset
            while let change = languages.nextChange(after: after), change < range.upperBound {
                if self.speaker(at: change)?.identifier != speaker?.identifier {
                    range = nextOffset..<change
                    break
                }
                after = change
            }
            let prepared = engineText(range, endsPhrase: segmenter.isPhraseEnd(range))
            guard var request = try? SpeechRequest(text: prepared.text) else {
                nextOffset = range.upperBound     // only spaces
                continue
            }
            request.rate = state.rate
            request.phonemeInput = prepared.usesPhonemes
            let job = allocateJob()
            synthesis = Synthesis(job: job, range: range,
                                  trimmer: LeadingSilenceTrimmer(enabled: nextOffset == clock.runStartOffset),
                                  rewrite: prepared.rewrite.isIdentity ? nil : prepared.rewrite)
            engine.synthesize(id: job, request: request, voice: speaker ?? voice, delivery: delivery)
            return
        }
        if !chapterEndScheduled {
            chapterEndScheduled = true
            channel.add(.chapterEnd, at: stream.endFrame)
            channel.reschedule()
        }
    }

    /// Who reads the text at `offset`: the voice of its passage's language, or the book's.
    private func speaker(at offset: Int) -> Voice? {
        languages.language(at: offset).flatMap { voiceForPassage?($0) } ?? voice
    }

    func handle(_ output: SynthesisOutput) {
        guard var current = synthesis, current.job == output.id, let stream else { return }
        switch output {
        case .audio(_, let samples):
            let kept = current.trimmer.trim(samples)
            engine.consumed(frames: samples.count - kept.count)
            if kept.isEmpty { break }
            if current.baseFrame == nil {
                current.baseFrame = stream.endFrame
                for word in current.earlyWords { place(word, in: &current) }
                current.earlyWords = []
            }
            stream.enqueue(Array(kept))
        case .word(_, let word):
            if current.baseFrame == nil { current.earlyWords.append(word) } else { place(word, in: &current) }
        case .finished(let job, _, let totalSamples):
            engine.forget(job: job)
            learn(scalars: current.range.count, samples: totalSamples - current.trimmer.dropped, sampleRate: stream.sampleRate)
            nextOffset = current.range.upperBound
            synthesis = nil
            feed()
            rescheduleHeard()
            return
        }
        synthesis = current
        rescheduleHeard()
    }

    private func place(_ boundary: WordBoundary, in synthesis: inout Synthesis) {
        guard let base = synthesis.baseFrame else { return }
        // A word espeak-ng said instead ("southeast") names the chapter's own ("S.E.").
        let original = synthesis.rewrite?.originalRange(start: Int(boundary.start), length: Int(boundary.length))
            ?? (start: Int(boundary.start), length: Int(boundary.length))
        let word = Word(offset: synthesis.range.lowerBound + original.start, length: original.length,
                        frame: base + Int64(max(0, boundary.sample - synthesis.trimmer.dropped)))
        synthesis.words.append(word)
        upcoming.append(word)
        channel.add(.word(word), at: word.frame)
    }

    private func learn(scalars: Int, samples: Int, sampleRate: Int) {
        learning.scalars += scalars
        learning.seconds += Double(max(0, samples)) / Double(sampleRate)
        guard learning.scalars >= 400 else { return }
        clock.learn(scalars: learning.scalars, audioSeconds: learning.seconds, rate: state.rate)
        learnedSpeed = clock.scalarsPerSecond
        learning = (0, 0)
        // Quietly: Position and seeks use the refined speed now, mpris:length at the next
        // chapter or rate change (see `announcedLength`).
    }

    /// How far ahead of the listener a cut into the server's buffer may be: the new audio must
    /// be synthesized and reach the server before playback gets there.
    static let cutLeadMilliseconds = 80

    static func cutLeadFrames(_ stream: any NarrationStream) -> Int64 {
        Int64(stream.sampleRate * cutLeadMilliseconds / 1000)
    }

    /// Stops synthesis and drops queued audio from the first word at or after `earliest` (by
    /// default the first the server does not have yet, so what it holds plays on), so synthesis
    /// can continue from that word later. Returns that word, if there is one.
    @discardableResult
    private func cutAtNextWord(atOrAfter earliest: Int64? = nil) -> Word? {
        guard let stream else { return nil }
        let earliest = earliest ?? stream.framesWritten
        if let current = synthesis {
            engine.cancel(id: current.job)
            synthesis = nil
            if current.baseFrame == nil || current.words.isEmpty {
                nextOffset = current.range.lowerBound
                stream.truncate(atFrame: current.baseFrame ?? stream.endFrame)
            }
        }
        chapterEndScheduled = false
        guard let cut = upcoming.first(where: { $0.frame >= earliest }) else {
            channel.removeAll(fromFrame: stream.endFrame)
            channel.removeAll { if case .chapterEnd = $0 { return true } else { return false } }
            if let last = upcoming.last, last.offset + last.length > nextOffset { nextOffset = last.offset + last.length }
            return nil
        }
        stream.truncate(atFrame: cut.frame)
        channel.removeAll(fromFrame: cut.frame)
        upcoming.removeAll { $0.frame >= cut.frame }
        nextOffset = cut.offset
        return cut
    }

    /// Drops everything queued and buffered: before a jump.
    private func discardAudio() {
        if let current = synthesis { engine.cancel(id: current.job) }
        synthesis = nil
        stream?.stop()
        if state.status == .playing, !isHeld { stream?.resume() }
        channel.removeAll()
        upcoming = []
        pendingJump = nil
        chapterEndScheduled = false
    }

    /// The last chapter was heard to its end (or Seek went past it): stop there.
    func endOfBook() {
        update { $0.status = .stopped }   // first: discarding audio then leaves the stream corked
        discardAudio()
        heardOffset = segmenter.count
        heardFrame = nil
        restartOnPlay = true
        onBookmark?()
        stream = nil
    }

    // MARK: - hearing

    private func rescheduleHeard() {
        channel.reschedule()
    }

    private func hear(_ word: Word) {
        upcoming.removeAll { $0.frame <= word.frame }
        heardOffset = word.offset
        heardFrame = word.frame
    }

    private func announce(_ event: Event) {
        switch event {
        case .word(let word):
            hear(word)
            onSpeakingRange?(trackID, word.offset, word.length)
            if !state.pastRestartThreshold, Double(position) / 1e6 > PlayerState.restartThresholdSeconds {
                update { $0.pastRestartThreshold = true }
            }
        case .chapterEnd:
            heardOffset = segmenter.count
            heardFrame = nil
            if let next = state.chapterAfterEnd {
                jump(toChapter: next, offset: 0, announceSeek: next == state.chapter)
                onBookmark?()
            } else {
                endOfBook()
            }
            onChapterHeardToEnd?()
        }
    }
}
