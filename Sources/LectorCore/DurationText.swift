/// Durations as people type them on a command line: `45s`, `20m`, `1h30m`, `1h30m15s`
/// (h, m, s in that order, each at most once, whole numbers). Shared by the CLI, which refuses
/// bad ones as usage errors before anything is sent, and the daemon, which refuses them as
/// InvalidArgument, with the same words.
///
/// ```swift
/// try DurationText.seconds("1h30m")         // 5400
/// try SleepRequest("chapter")               // .endOfChapter
/// try DurationText.signedMicroseconds("-15s")   // -15_000_000
/// ```
public enum DurationText {
    /// The longest duration either command takes: a day.
    public static let maximumSeconds = 24 * 3600

    /// Whole seconds of an unsigned duration such as `1h30m`; throws InvalidArgument saying
    /// what is wrong (no unit, an unknown unit, a unit twice or out of order, no digits).
    public static func seconds(_ text: String) throws -> Int {
        let units: [(Character, Int)] = [("h", 3600), ("m", 60), ("s", 1)]
        var total = 0
        var digits = ""
        var nextUnit = 0
        for character in text.lowercased() {
            if character.isASCII, character.isNumber {
                digits.append(character)
                guard digits.count <= 9 else { throw tooLong(text) }
                continue
            }
            guard let index = units.firstIndex(where: { $0.0 == character }) else {
                throw LectorError.invalidArgument("\"\(text)\" is not a duration: use h, m and s, as in 45s, 20m or 1h30m")
            }
            guard !digits.isEmpty else {
                throw LectorError.invalidArgument("\"\(text)\" is not a duration: a number goes before each unit, as in 1h30m")
            }
            guard index >= nextUnit else {
                throw LectorError.invalidArgument("\"\(text)\" is not a duration: write hours, then minutes, then seconds, each once (1h30m15s)")
            }
            total += Int(digits)! * units[index].1
            guard total <= maximumSeconds else { throw tooLong(text) }
            digits = ""
            nextUnit = index + 1
        }
        if !digits.isEmpty {
            throw LectorError.invalidArgument("\"\(text)\" has no unit: write \(digits)m for minutes, \(digits)s for seconds or \(digits)h for hours")
        }
        guard nextUnit > 0 else {
            throw LectorError.invalidArgument("\"\(text)\" is not a duration: use h, m and s, as in 45s, 20m or 1h30m")
        }
        return total
    }

    /// A relative move such as `+30s`, `-15s` or `2m` (forward), in microseconds; never 0, at most
    /// a day either way.
    public static func signedMicroseconds(_ text: String) throws -> Int64 {
        var body = Substring(text)
        var sign: Int64 = 1
        if body.first == "-" || body.first == "−" { sign = -1; body = body.dropFirst() }
        else if body.first == "+" { body = body.dropFirst() }
        if body.first == "-" || body.first == "+" {
            throw LectorError.invalidArgument("\"\(text)\" has two signs: write -15s to go back or +30s to go ahead")
        }
        let seconds = try Self.seconds(String(body))
        guard seconds > 0 else { throw LectorError.invalidArgument("\"\(text)\" does not move: give a time such as -15s or +30s") }
        return sign * Int64(seconds) * 1_000_000
    }

    private static func tooLong(_ text: String) -> LectorError {
        LectorError.invalidArgument("\"\(text)\" is too long: at most 24h")
    }

    /// 1:02:03 or 2:03, for messages.
    public static func clock(seconds: Int) -> String {
        let s = max(0, seconds)
        let minutes = String(s / 60 % 60), rest = String(s % 60)
        let mm = s >= 3600 && minutes.count < 2 ? "0" + minutes : minutes
        let ss = rest.count < 2 ? "0" + rest : rest
        return s >= 3600 ? "\(s / 3600):\(mm):\(ss)" : "\(s / 60):\(ss)"
    }
}

/// What `lector sleep` and Narrator1.SetSleepTimer take: a duration (`45s`, `20m`, `1h30m`, up
/// to 24h), `chapter` (the end of the chapter being heard) or `off`.
///
/// ```swift
/// try SleepRequest("20m")       // .duration(seconds: 1200)
/// try SleepRequest("0")         // throws: "0 would pause at once; to cancel the timer, say off"
/// ```
public enum SleepRequest: Equatable, Sendable {
    case off
    case endOfChapter
    case duration(seconds: Int)

    public init(_ text: String) throws {
        let trimmed = text.trimmingSpaces.lowercased()
        switch trimmed {
        case "off", "cancel", "none": self = .off
        case "chapter", "end-of-chapter", "eoc": self = .endOfChapter
        case "":
            throw LectorError.invalidArgument("give a time (45s, 20m, 1h30m), chapter (the end of this chapter) or off")
        default:
            if trimmed.hasPrefix("-") || trimmed.hasPrefix("−") {
                throw LectorError.invalidArgument("a sleep timer cannot be negative (\"\(text)\"): give a time such as 20m, or off")
            }
            if trimmed.allSatisfy({ $0 == "0" }) {
                throw LectorError.invalidArgument("a sleep timer of 0 would pause at once: give a time such as 20m, or off to cancel it")
            }
            let seconds = try DurationText.seconds(trimmed.hasPrefix("+") ? String(trimmed.dropFirst()) : trimmed)
            guard seconds > 0 else {
                throw LectorError.invalidArgument("a sleep timer of \(text) would pause at once: give a time such as 20m, or off to cancel it")
            }
            self = .duration(seconds: seconds)
        }
    }
}

private extension String {
    var trimmingSpaces: String {
        var scalars = Substring(self)
        while scalars.first?.isWhitespace == true { scalars.removeFirst() }
        while scalars.last?.isWhitespace == true { scalars.removeLast() }
        return String(scalars)
    }
}
