/// What a book may put on the bus, kept to sizes every client and every bus accepts: a book
/// with a megabyte-long title or ten thousand authors must not make a reply the bus refuses
/// (it would disconnect the daemon). Longer text is cut at a character boundary and ends with
/// an ellipsis.
///
/// ```swift
/// BusText.capped(String(repeating: "a", count: 5000))   // 511 "a"s and "…"
/// BusText.cappedList(authors)                            // at most 32 names, each capped
/// ```
public enum BusText {
    /// Characters of one title, name or label (far beyond any real one).
    public static let maxCharacters = 512
    /// Entries of a list such as the authors.
    public static let maxListEntries = 32
    /// Chapters listed in MPRIS `Tracks` and `TrackListReplaced`: a window around the current one.
    public static let maxTracks = 2048

    public static func capped(_ text: String, maxCharacters: Int = maxCharacters) -> String {
        guard text.utf8.count > maxCharacters else { return text }   // cheap for the usual case
        var result = ""
        var count = 0
        for character in text {
            guard count < maxCharacters - 1 else { return result + "…" }
            result.append(character)
            count += 1
        }
        return result
    }

    public static func cappedList(_ entries: [String]) -> [String] {
        var result = entries.prefix(maxListEntries).map { capped($0) }
        if entries.count > maxListEntries { result[result.count - 1] = "…" }
        return result
    }

    /// The chapters to list: all of them, or `maxTracks` around `current` in a longer book.
    public static func trackWindow(count: Int, current: Int) -> Range<Int> {
        guard count > maxTracks else { return 0..<count }
        let start = min(max(0, current - maxTracks / 2), count - maxTracks)
        return start..<(start + maxTracks)
    }
}
