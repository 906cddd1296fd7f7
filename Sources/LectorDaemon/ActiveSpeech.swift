import LectorCore

/// The speech being synthesized and played. One at a time: cancelling it is then one flush.
/// Owned by the event loop thread.
struct ActiveSpeech {
    let id: UInt64
    /// The engine job producing it (distinct from `id`: results of an abandoned job are ignored).
    let job: UInt64
    let request: SpeechRequest
    /// As the queue ranks it now (a surviving `progress` speaks as a `message`).
    let priority: SpeechPriority
    /// The text the synthesizer got (numbers rewritten, then the listener's lexicon applied) and
    /// the way back to the client's offsets.
    let spoken: TextRewrite
    /// A lexicon put `[[…]]` phonemes in `spoken`.
    let usesPhonemes: Bool
    var trimmer = LeadingSilenceTrimmer()
    /// Stream frame of its first kept sample, once known.
    var baseFrame: Int64?
    /// Words reported before the first audio, placed once `baseFrame` is known.
    var earlyWords: [WordBoundary] = []
    var synthesisDone = false

    init(id: UInt64, job: UInt64, request: SpeechRequest, priority: SpeechPriority, pronouncer: Pronouncer? = nil) {
        self.id = id
        self.job = job
        self.request = request
        self.priority = priority
        let numbers = request.spoken
        // SSML says how it is read in its own markup; a lexicon applies to plain text.
        if let pronouncer, !pronouncer.isEmpty, !request.ssml {
            let prepared = pronouncer.prepare(numbers.text)
            spoken = prepared.rewrite.applied(after: numbers)
            usesPhonemes = prepared.usesPhonemes
        } else {
            spoken = numbers
            usesPhonemes = false
        }
    }

    /// The client's range for a word of the spoken text.
    func range(of word: WordBoundary) -> HeardEvent {
        let original = spoken.originalRange(start: Int(word.start), length: Int(word.length))
        return .range(id: id, start: UInt32(original.start), length: UInt32(original.length))
    }

    /// Stream frame at which `word` is heard.
    func frame(of word: WordBoundary, base: Int64) -> Int64 {
        base + Int64(max(0, word.sample - trimmer.dropped))
    }
}

/// What the listener hears at a frame: announced on the bus at that moment.
enum HeardEvent {
    case started(id: UInt64)
    case range(id: UInt64, start: UInt32, length: UInt32)
    case finished(id: UInt64)

    var id: UInt64 {
        switch self {
        case .started(let id), .range(let id, _, _), .finished(let id): return id
        }
    }
}
