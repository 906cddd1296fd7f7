/// An installed espeak-ng voice, as `espeak_ListVoices` describes it.
public struct Voice: Equatable, Sendable {
    public enum Gender: String, Sendable { case male, female, unknown }

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

    public init(name: String, identifier: String, languages: [Language], gender: Gender) {
        self.name = name
        self.identifier = identifier
        self.languages = languages
        self.gender = gender
    }

    /// The language the voice is listed under first, e.g. `en-gb`.
    public var primaryLanguage: String { languages.first?.tag ?? "" }
}
