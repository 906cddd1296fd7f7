import LectorCore

/// What the synthesis thread hands the event loop, in order, for one speech id.
public enum SynthesisOutput {
    /// PCM, mono s16 at the engine's sample rate.
    case audio(id: UInt64, samples: [Int16])
    case word(id: UInt64, WordBoundary)
    /// espeak-ng returned: `ok` false when it failed (not when cancelled).
    case finished(id: UInt64, ok: Bool, totalSamples: Int)

    public var id: UInt64 {
        switch self {
        case .audio(let id, _), .word(let id, _), .finished(let id, _, _): return id
        }
    }
}
