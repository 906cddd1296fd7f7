import TOMLKit

/// Checks each section and key of a parsed file, in file order, against what Lector knows, and
/// fills in a `Configuration`. The first problem is thrown, with the line it is on.
struct ConfigurationBuilder {
    private(set) var configuration = Configuration()
    private let file: String
    private var section: String?
    private var tableLines: [String: Int] = [:]
    /// "section\nkey" (normalized tag for [voices]) -> where it was first set, and how it was written.
    private var keyLines: [String: (line: Int, written: String)] = [:]

    static let sections = ["speech", "voices", "audio", "notifications", "narration", "books"]
    static let keys: [String: [String]] = [
        "speech": ["rate", "pitch", "volume"],
        "audio": ["duck-level", "duck-ramp-ms", "volume-floor", "auto-resume-timeout-minutes"],
        "notifications": ["enabled", "allow", "read-body", "quiet-hours"],
        "narration": ["next-previous", "skip-forward-seconds", "skip-back-seconds", "rewind-after-pause-seconds", "rewind-seconds"],
        "books": ["notes", "images"],
    ]

    init(file: String) { self.file = file }

    /// Checks what a statement names: a known section or a key inside one, each once, and none of
    /// the TOML forms Lector does not take (nested tables, arrays of tables, dotted keys).
    mutating func define(_ statement: SourceMap.Statement) throws {
        let line = statement.line
        switch statement.kind {
        case .table(let path, let array):
            if array { throw ConfigError(file: file, line: line, reason: "arrays of tables ([[...]]) are not supported") }
            if path.count > 1 {
                throw ConfigError(file: file, line: line, reason: "nested tables such as [\(displayKey(path[0])).…] are not supported")
            }
            try beginTable(path[0], line: line)
        case .keyValue(let path, _):
            if path.count > 1 {
                throw ConfigError(file: file, line: line, reason:
                    "dotted keys (\(displayKey(path[0])).…) are not supported; write a [section] line, then plain keys")
            }
            try define(key: path[0], line: line)
        }
    }

    /// `define`, then the value TOMLKit read for a key, checked and stored.
    mutating func apply(_ statement: SourceMap.Statement, from document: TOMLTable) throws {
        try define(statement)
        guard case .keyValue(let path, let written) = statement.kind, let section else { return }
        guard let node = document[section]?.table?[path[0]] else { throw unlocated(path[0], in: section) }
        let value = try ConfigValue(node, written: written, file: file)
        try apply(section: section, key: path[0], value: value, line: statement.line)
    }

    /// After `apply` of every statement: each section and key TOMLKit read was seen in the text,
    /// so nothing is ignored because the scan and TOMLKit disagree (which would be a bug here).
    func checkEverythingLocated(_ document: TOMLTable) throws {
        for name in document.keys {
            guard tableLines[name] != nil, let table = document[name]?.table else { throw unlocated(name, in: nil) }
            for key in table.keys where keyLines[name + "\n" + (name == "voices" ? Configuration.normalizedTag(key) : key)] == nil {
                throw unlocated(key, in: name)
            }
        }
    }

    private func unlocated(_ key: String, in section: String?) -> ConfigError {
        ConfigError(file: file, line: 1, reason: "\(displayKey(key))\(section.map { " in [\($0)]" } ?? "") was read but not found "
            + "in the text; please report this with the file")
    }

    private mutating func beginTable(_ name: String, line: Int) throws {
        guard Self.sections.contains(name) else {
            throw ConfigError(file: file, line: line, reason: "unknown section [\(displayKey(name))] (known sections: "
                + Self.sections.map { "[\($0)]" }.joined(separator: ", ") + ")")
        }
        if let first = tableLines[name] {
            throw ConfigError(file: file, line: line, reason: "section [\(name)] appears twice (first at line \(first)); merge them")
        }
        tableLines[name] = line
        section = name
    }

    private mutating func define(key: String, line: Int) throws {
        guard let section else {
            let homes = Self.keys.filter { $0.value.contains(key) }.map(\.key).sorted()
            let hint = homes.count == 1 ? "put it under [\(homes[0])]" : "every key belongs to a section such as [speech]"
            throw ConfigError(file: file, line: line, reason: "key \(displayKey(key)) is outside any section; \(hint)")
        }
        let identity = section + "\n" + (section == "voices" ? Configuration.normalizedTag(key) : key)
        if let first = keyLines[identity] {
            let spelled = first.written == key ? "" : " as \(displayKey(first.written))"
            throw ConfigError(file: file, line: line,
                              reason: "\(displayKey(key)) is set twice in [\(section)] (first at line \(first.line)\(spelled))")
        }
        keyLines[identity] = (line, key)
    }

    private mutating func apply(section: String, key: String, value: ConfigValue, line: Int) throws {
        let checker = ValueChecker(file: file, key: key, line: line)
        switch (section, key) {
        case ("speech", "rate"): configuration.speech.rate = try checker.number(value, Configuration.Speech.rateRange)
        case ("speech", "pitch"): configuration.speech.pitch = try checker.number(value, Configuration.Speech.pitchRange)
        case ("speech", "volume"): configuration.speech.volume = try checker.number(value, Configuration.Speech.volumeRange)

        case ("voices", _):
            try checker.languageTag(key)
            configuration.voices[key] = try checker.voiceName(value)

        case ("audio", "duck-level"):
            configuration.audio.duckLevel = try checker.number(value, Configuration.Audio.duckLevelRange)
        case ("audio", "duck-ramp-ms"):
            configuration.audio.duckRampMilliseconds = try checker.integer(value, Configuration.Audio.duckRampMillisecondsRange)
        case ("audio", "volume-floor"):
            configuration.audio.volumeFloor = try checker.number(value, Configuration.Audio.volumeFloorRange)
        case ("audio", "auto-resume-timeout-minutes"):
            configuration.audio.autoResumeTimeoutMinutes =
                try checker.integer(value, Configuration.Audio.autoResumeTimeoutMinutesRange)

        case ("notifications", "enabled"): configuration.notifications.enabled = try checker.boolean(value)
        case ("notifications", "read-body"): configuration.notifications.readBody = try checker.boolean(value)
        case ("notifications", "allow"): configuration.notifications.allow = try checker.names(value)
        case ("notifications", "quiet-hours"): configuration.notifications.quietHours = try checker.quietHours(value)

        case ("narration", "next-previous"):
            configuration.narration.nextPrevious = try checker.choice(value, Configuration.Narration.NextPrevious.self)
        case ("narration", "skip-forward-seconds"):
            configuration.narration.skipForwardSeconds = try checker.integer(value, Configuration.Narration.skipSecondsRange)
        case ("narration", "skip-back-seconds"):
            configuration.narration.skipBackSeconds = try checker.integer(value, Configuration.Narration.skipSecondsRange)
        case ("narration", "rewind-after-pause-seconds"):
            configuration.narration.rewindAfterPauseSeconds =
                try checker.integer(value, Configuration.Narration.rewindAfterPauseSecondsRange)
        case ("narration", "rewind-seconds"):
            configuration.narration.rewindSeconds = try checker.integer(value, Configuration.Narration.rewindSecondsRange)
        case ("books", "notes"): configuration.books.notes = try checker.choice(value, Configuration.Books.Notes.self)
        case ("books", "images"): configuration.books.images = try checker.choice(value, Configuration.Books.Images.self)

        default:
            let known = Self.keys[section] ?? []
            throw ConfigError(file: file, line: line, reason: "unknown key \(displayKey(key)) in [\(section)] (known keys: "
                + known.joined(separator: ", ") + ")")
        }
    }
}

/// Type and range checks for one key's value, with messages that name the key.
private struct ValueChecker {
    let file: String
    let key: String
    let line: Int

    func fail(_ reason: String, line: Int? = nil) -> ConfigError {
        ConfigError(file: file, line: line ?? self.line, reason: reason)
    }

    /// A float or an integer (`volume = 1` means 1.0) within `range`.
    func number(_ value: ConfigValue, _ range: ClosedRange<Double>) throws -> Double {
        let number: Double
        switch value {
        case .float(let value): number = value
        case .integer(let value): number = Double(value)
        default: throw fail("\(key) must be a number from \(format(range.lowerBound)) to \(format(range.upperBound)), not \(value.kind)")
        }
        guard range.contains(number) else {
            throw fail("\(key) must be from \(format(range.lowerBound)) to \(format(range.upperBound)), not \(value.written)")
        }
        return number
    }

    func integer(_ value: ConfigValue, _ range: ClosedRange<Int>) throws -> Int {
        guard case .integer(let number) = value else {
            throw fail("\(key) must be a whole number from \(range.lowerBound) to \(range.upperBound), not \(value.kind)"
                + (value.kind == "a float" ? " (\(value.written))" : ""))
        }
        guard number >= Int64(range.lowerBound), number <= Int64(range.upperBound) else {
            throw fail("\(key) must be from \(range.lowerBound) to \(range.upperBound), not \(number)")
        }
        return Int(number)
    }

    func boolean(_ value: ConfigValue) throws -> Bool {
        guard case .boolean(let flag) = value else {
            throw fail("\(key) must be true or false, not \(value.kind)" + (value.kind == "a string" ? " (no quotes around true or false)" : ""))
        }
        return flag
    }

    /// A non-empty array of non-empty strings, or [].
    func names(_ value: ConfigValue) throws -> [String] {
        guard case .array(let elements) = value else {
            throw fail("\(key) must be an array of application names such as [\"Thunderbird\"], not \(value.kind)")
        }
        return try elements.enumerated().map { offset, element in
            guard case .string(let name) = element.value else {
                throw fail("\(key) must hold application names (strings); item \(offset + 1) is \(element.value.kind)",
                           line: element.line)
            }
            guard !name.isEmpty else { throw fail("\(key): item \(offset + 1) is an empty name", line: element.line) }
            return name
        }
    }

    /// BCP 47 shape: a 2..8 letter primary subtag, then subtags of 1..8 letters or digits (`_` counts as `-`).
    func languageTag(_ tag: String) throws {
        let parts = Configuration.normalizedTag(tag).split(separator: "-", omittingEmptySubsequences: false)
        let isLetter: (Character) -> Bool = { $0.isASCII && $0.isLetter }
        let wellFormed = parts.first.map { (2...8).contains($0.count) && $0.allSatisfy(isLetter) } == true
            && parts.dropFirst().allSatisfy { (1...8).contains($0.count) && $0.allSatisfy { isLetter($0) || ($0.isASCII && $0.isNumber) } }
        guard wellFormed else {
            throw fail("\(displayKey(tag)) in [voices] is not a language tag (BCP 47, such as en, en-GB or \"zh-CN\")")
        }
    }

    /// An espeak-ng voice name: not empty, no spaces or control characters.
    func voiceName(_ value: ConfigValue) throws -> String {
        guard case .string(let name) = value else {
            throw fail("the voice for \(displayKey(key)) must be a string such as \"en-gb\", not \(value.kind)")
        }
        guard !name.isEmpty else { throw fail("the voice for \(displayKey(key)) is empty") }
        guard !name.unicodeScalars.contains(where: { $0.properties.isWhitespace || $0.value < 0x20 || $0.value == 0x7F }) else {
            throw fail("the voice for \(displayKey(key)) must not contain spaces: \(value.written) (espeak-ng voice names look like \"en-gb\")")
        }
        return name
    }

    /// One of the enumeration's raw values: `notes = "end-of-chapter"`.
    func choice<Choice: RawRepresentable & CaseIterable>(_ value: ConfigValue, _: Choice.Type) throws -> Choice
        where Choice.RawValue == String {
        let allowed = Choice.allCases.map { "\"\($0.rawValue)\"" }
        let list = allowed.dropLast().joined(separator: ", ") + " or " + (allowed.last ?? "")
        guard case .string(let text) = value else {
            throw fail("\(key) must be \(list), not \(value.kind)")
        }
        guard let choice = Choice(rawValue: text) else {
            throw fail("\(key) must be \(list), not \(value.written)")
        }
        return choice
    }

    func quietHours(_ value: ConfigValue) throws -> QuietHours? {
        guard case .string(let text) = value else {
            throw fail("\(key) must be a string \"HH:MM-HH:MM\" (such as \"22:00-07:00\") or \"\", not \(value.kind)")
        }
        if text.isEmpty { return nil }
        guard let hours = QuietHours(text) else {
            throw fail("\(key) must be \"HH:MM-HH:MM\" on a 24-hour clock (such as \"22:00-07:00\") or \"\", not \(value.written)")
        }
        guard hours.startMinute != hours.endMinute else {
            throw fail("\(key) \(value.written) starts when it ends; write \"\" for no quiet hours or \"00:00-23:59\" for almost all day")
        }
        return hours
    }

    private func format(_ number: Double) -> String {
        number == number.rounded() ? String(Int(number)) : String(number)
    }
}
