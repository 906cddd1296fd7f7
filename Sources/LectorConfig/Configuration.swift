import TOMLKit

/// Lector's settings from `$XDG_CONFIG_HOME/lector/config.toml` (documented in lector.conf(5)).
///
/// Pure Swift: callers read the file (a missing file means `Configuration()`, the defaults) and
/// hand its text or bytes to `parse`, which either returns a complete configuration or throws a
/// `ConfigError` naming the file, the line and what is wrong. Nothing is half-applied: an invalid
/// file yields no configuration, so a daemon keeps the last good one.
public struct Configuration: Equatable, Sendable {
    /// `[speech]`: defaults for announcements and narration when a request does not say.
    public var speech = Speech()
    /// `[voices]`: BCP 47 language tag, as written in the file (e.g. `en`, `zh-CN`) -> espeak-ng
    /// voice name (e.g. `en-gb`, `cmn`). Use `voice(forLanguage:)` to look one up.
    public var voices: [String: String] = [:]
    /// `[audio]`: ducking, the audible-volume floor, resuming after a call.
    public var audio = Audio()
    /// `[notifications]`: reading desktop notifications aloud.
    public var notifications = Notifications()
    /// `[narration]`: what media keys do to a book, and rewinding on resume.
    public var narration = Narration()
    /// `[books]`: how books are read beyond their words: notes, images.
    public var books = Books()

    public init() {}

    public struct Speech: Equatable, Sendable {
        public static let rateRange: ClosedRange<Double> = 0.5...2.5
        public static let pitchRange: ClosedRange<Double> = 0...2
        public static let volumeRange: ClosedRange<Double> = 0...1

        /// `rate`: 1.0 is espeak-ng's normal speed.
        public var rate = 1.0
        /// `pitch`: 1.0 is the voice's normal pitch.
        public var pitch = 1.0
        /// `volume`: of the speech itself, 0...1.
        public var volume = 1.0

        public init() {}
    }

    public struct Audio: Equatable, Sendable {
        public static let duckLevelRange: ClosedRange<Double> = 0...1
        public static let duckRampMillisecondsRange: ClosedRange<Int> = 0...500
        public static let volumeFloorRange: ClosedRange<Double> = 0...1
        public static let autoResumeTimeoutMinutesRange: ClosedRange<Int> = 0...1440

        /// `duck-level`: the fraction of other applications' volume while an announcement speaks.
        public var duckLevel = 0.3
        /// `duck-ramp-ms`: how long ducking and unducking fade, in milliseconds.
        public var duckRampMilliseconds = 30
        /// `volume-floor`: for an announcement with the `ensure-audible` option, a sink quieter than
        /// this is raised to it while the announcement speaks, 0...1.
        public var volumeFloor = 0.2
        /// `auto-resume-timeout-minutes`: narration paused by a call resumes when the call ends only
        /// if the call took at most this long; 0 never resumes by itself.
        public var autoResumeTimeoutMinutes = 30

        public init() {}
    }

    /// How the listener moves through a book: Cozy's skip buttons and its replay on resume.
    ///
    /// ```toml
    /// [narration]
    /// next-previous = "skip"        # media keys Next/Previous skip instead of changing chapter
    /// skip-forward-seconds = 30
    /// skip-back-seconds = 15
    /// rewind-after-pause-seconds = 300
    /// rewind-seconds = 10
    /// ```
    public struct Narration: Equatable, Sendable {
        /// What MPRIS Next and Previous (media keys, shells' buttons) do.
        public enum NextPrevious: String, Equatable, Sendable, CaseIterable {
            /// Next and previous chapter (Previous more than 3 s in restarts the chapter).
            case chapter
            /// Skip forward `skipForwardSeconds` / back `skipBackSeconds`.
            case skip
        }

        public static let skipSecondsRange: ClosedRange<Int> = 1...3600
        public static let rewindAfterPauseSecondsRange: ClosedRange<Int> = 1...86_400
        public static let rewindSecondsRange: ClosedRange<Int> = 0...600

        /// `next-previous`: "chapter" (the default) or "skip".
        public var nextPrevious = NextPrevious.chapter
        /// `skip-forward-seconds`: how far Next skips ahead with `next-previous = "skip"`.
        public var skipForwardSeconds = 30
        /// `skip-back-seconds`: how far Previous skips back with `next-previous = "skip"`.
        public var skipBackSeconds = 15
        /// `rewind-after-pause-seconds`: a pause (or stop) at least this long rewinds on resume.
        public var rewindAfterPauseSeconds = 300
        /// `rewind-seconds`: narration resumes at the start of the sentence this far back; 0 never rewinds.
        public var rewindSeconds = 10

        public init() {}
    }

    public struct Notifications: Equatable, Sendable {
        /// `enabled`: read desktop notifications aloud.
        public var enabled = false
        /// `allow`: application names (a notification's app name) whose notifications are read;
        /// empty reads none.
        public var allow: [String] = []
        /// `read-body`: read the body after the summary.
        public var readBody = false
        /// `quiet-hours`: when no notification is read; nil (`""` in the file) for never.
        public var quietHours: QuietHours?

        public init() {}
    }

    public struct Books: Equatable, Sendable {
        /// `notes`: where footnotes and endnotes are read.
        public enum Notes: String, Equatable, Sendable, CaseIterable {
            /// After the paragraph that refers to each, introduced as a note.
            case afterParagraph = "after-paragraph"
            /// At the end of the chapter, in the order of reference.
            case endOfChapter = "end-of-chapter"
            /// Not read (only where the table of contents lists them).
            case skip
        }

        /// `images`: whether images with a text alternative are read.
        public enum Images: String, Equatable, Sendable, CaseIterable {
            case read
            case skip
        }

        public var notes = Notes.afterParagraph
        public var images = Images.read

        public init() {}
    }

    /// The espeak-ng voice configured for `tag`, trying the tag and then each shorter prefix
    /// (`zh-Hant-TW`, `zh-Hant`, `zh`); tags compare case-insensitively and `_` counts as `-`.
    public func voice(forLanguage tag: String) -> String? {
        var byTag: [String: String] = [:]
        for (key, voice) in voices { byTag[Self.normalizedTag(key)] = voice }
        var parts = Self.normalizedTag(tag).split(separator: "-", omittingEmptySubsequences: false)
        while !parts.isEmpty {
            if let voice = byTag[parts.joined(separator: "-")] { return voice }
            parts.removeLast()
        }
        return nil
    }

    /// Where the configuration lives: `$XDG_CONFIG_HOME/lector/config.toml` when XDG_CONFIG_HOME is
    /// an absolute path, else `$HOME/.config/lector/config.toml`.
    public static func defaultPath(environment: [String: String]) -> String {
        if let config = environment["XDG_CONFIG_HOME"], config.hasPrefix("/") {
            return trimmingTrailingSlashes(config) + "/lector/config.toml"
        }
        return trimmingTrailingSlashes(environment["HOME"] ?? "") + "/.config/lector/config.toml"
    }

    /// Parses a config file's text; `file` is only used in errors. Throws `ConfigError`.
    ///
    /// TOMLKit parses; `SourceMap` finds where each section and key is, so the checks run in file
    /// order and name lines. A key or section toml++ refuses as defined twice is reported by the
    /// checks instead (they say where it was first).
    public static func parse(_ text: String, file: String) throws -> Configuration {
        // toml++ gets the text as a C string, which would end at the first NUL.
        if let nul = text.unicodeScalars.firstIndex(of: "\0") {
            let line = text.unicodeScalars[..<nul].lazy.filter { $0 == "\n" }.count + 1
            throw ConfigError(file: file, line: line, reason: "control character U+0000 (NUL) in the file")
        }
        let map = SourceMap(text)
        if let line = map.headerWithoutName {
            throw ConfigError(file: file, line: line, reason: "expected a table name after \"[\"")
        }
        var builder = ConfigurationBuilder(file: file)
        let document: TOMLTable
        do {
            document = try TOMLTable(string: text)
        } catch let error as TOMLParseError {
            if error.description.contains("cannot redefine") {
                for statement in map.statements where statement.line <= error.source.begin.line { try builder.define(statement) }
            }
            throw ConfigError(syntax: error, text: text, file: file)
        }
        for statement in map.statements { try builder.apply(statement, from: document) }
        try builder.checkEverythingLocated(document)
        return builder.configuration
    }

    /// Parses a config file's bytes, which must be UTF-8 (the error names the line of the first bad byte).
    public static func parse(utf8 bytes: [UInt8], file: String) throws -> Configuration {
        var scalars = String.UnicodeScalarView()
        var decoder = UTF8()
        var iterator = bytes.makeIterator()
        var line = 1
        loop: while true {
            switch decoder.decode(&iterator) {
            case .scalarValue(let scalar):
                if scalar == "\n" { line += 1 }
                scalars.append(scalar)
            case .emptyInput:
                break loop
            case .error:
                throw ConfigError(file: file, line: line, reason: "the file is not valid UTF-8")
            }
        }
        return try parse(String(scalars), file: file)
    }

    static func normalizedTag(_ tag: String) -> String {
        String(tag.lowercased().map { $0 == "_" ? "-" : $0 })
    }

    private static func trimmingTrailingSlashes(_ path: String) -> String {
        var path = Substring(path)
        while path.count > 1, path.hasSuffix("/") { path = path.dropLast() }
        return path == "/" ? "" : String(path)
    }
}

/// An invalid config file: printed as `FILE:LINE: REASON`.
public struct ConfigError: Error, Equatable, CustomStringConvertible {
    public let file: String
    /// 1-based.
    public let line: Int
    public let reason: String

    public init(file: String, line: Int, reason: String) {
        self.file = file
        self.line = line
        self.reason = reason
    }

    public var description: String { "\(file):\(line): \(reason)" }
}
