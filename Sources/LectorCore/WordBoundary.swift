/// A word espeak-ng reported while synthesizing: where it is in the text and in the audio.
///
/// espeak-ng counts `text_position` in characters (Unicode scalars of the UTF-8 input), from 1;
/// this converts to the 0-based scalar offsets that `SpeakingRange` promises.
public struct WordBoundary: Equatable, Sendable {
    /// 0-based offset in Unicode scalars.
    public var start: UInt32
    public var length: UInt32
    /// Sample index in the utterance's audio (before leading silence is trimmed).
    public var sample: Int

    public init(start: UInt32, length: UInt32, sample: Int) {
        self.start = start
        self.length = length
        self.sample = sample
    }

    /// From espeak-ng's event fields; nil when the position lies outside the text.
    public init?(textPosition: Int32, length: Int32, audioPositionMilliseconds: Int32,
                 sampleRate: Int, textScalarCount: Int) {
        let start = Int(textPosition) - 1
        guard start >= 0, start < textScalarCount else { return nil }
        let clampedLength = max(0, min(Int(length), textScalarCount - start))
        self.init(start: UInt32(start), length: UInt32(clampedLength),
                  sample: Int(audioPositionMilliseconds) * sampleRate / 1000)
    }
}
