/// `quiet-hours = "22:00-07:00"`: a daily span of local time, which may cross midnight.
public struct QuietHours: Equatable, Sendable, CustomStringConvertible {
    /// Minutes after midnight, 0..<1440; the span starts here (inclusive)...
    public var startMinute: Int
    /// ...and ends here (exclusive). Less than `startMinute` when the span crosses midnight.
    public var endMinute: Int

    public init(startMinute: Int, endMinute: Int) {
        self.startMinute = startMinute
        self.endMinute = endMinute
    }

    /// Parses `HH:MM-HH:MM` (two digits each, 00:00 to 23:59); nil if it is not that.
    public init?(_ text: String) {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 2, let start = Self.minute(parts[0]), let end = Self.minute(parts[1]) else { return nil }
        self.init(startMinute: start, endMinute: end)
    }

    /// True if `minuteOfDay` (0..<1440, local time) falls within the quiet hours.
    public func contains(minuteOfDay: Int) -> Bool {
        startMinute <= endMinute
            ? minuteOfDay >= startMinute && minuteOfDay < endMinute
            : minuteOfDay >= startMinute || minuteOfDay < endMinute
    }

    public var description: String { Self.clock(startMinute) + "-" + Self.clock(endMinute) }

    private static func minute(_ text: Substring) -> Int? {
        let scalars = Array(text.unicodeScalars)
        guard scalars.count == 5, scalars[2] == ":" else { return nil }
        let digits = [scalars[0], scalars[1], scalars[3], scalars[4]]
        guard digits.allSatisfy({ ("0"..."9").contains($0) }) else { return nil }
        let values = digits.map { Int($0.value) - 48 }
        let hour = values[0] * 10 + values[1]
        let minute = values[2] * 10 + values[3]
        guard hour < 24, minute < 60 else { return nil }
        return hour * 60 + minute
    }

    private static func clock(_ minutes: Int) -> String {
        let hour = minutes / 60, minute = minutes % 60
        return (hour < 10 ? "0" : "") + String(hour) + ":" + (minute < 10 ? "0" : "") + String(minute)
    }
}
