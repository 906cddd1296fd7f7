/// An installed voice: espeak-ng's (as `espeak_ListVoices` describes it) or a neural Piper
/// voice found as files (`neural` then says where and how it reads).
public struct Voice: Equatable, Sendable {
    public enum Gender: String, Sendable { case male, female, unknown }

    /// What speaks with it.
    public enum Engine: String, Sendable { case espeak = "espeak-ng", piper }

    /// A Piper voice's files and what reads for it.
    public struct Neural: Equatable, Sendable {
        /// `NAME.onnx`; its config is beside it as `NAME.onnx.json`.
        public var modelPath: String
        /// The espeak-ng voice whose phonemes it was trained on (`espeak.voice`, e.g. "en-us").
        public var espeakVoice: String
        public var quality: String?
        public var sampleRate: Int
        public init(modelPath: String, espeakVoice: String, quality: String?, sampleRate: Int) {
            self.modelPath = modelPath
            self.espeakVoice = espeakVoice
            self.quality = quality
            self.sampleRate = sampleRate
        }
    }

    /// A language the voice speaks, with espeak-ng's priority (lower is a better match).
    public struct Language: Equatable, Sendable {
        public var tag: String
        public var priority: Int
        public init(tag: String, priority: Int) {
            self.tag = LanguageTag.normalized(tag)
            self.priority = priority
        }
    }

    /// Human-readable name, e.g. `English_(Great_Britain)`.
    public var name: String
    /// espeak-ng's file identifier, e.g. `gmw/en`: what `espeak_SetVoiceByName` loads.
    public var identifier: String
    public var languages: [Language]
    public var gender: Gender
    /// Set for a neural voice (its engine is then `.piper`).
    public var neural: Neural?

    public var engine: Engine { neural == nil ? .espeak : .piper }

    public init(name: String, identifier: String, languages: [Language], gender: Gender, neural: Neural? = nil) {
        self.name = name
        self.identifier = identifier
        self.languages = languages
        self.gender = gender
        self.neural = neural
    }

    /// The language the voice is listed under first, e.g. `en-gb`.
    public var primaryLanguage: String { languages.first?.tag ?? "" }
}
