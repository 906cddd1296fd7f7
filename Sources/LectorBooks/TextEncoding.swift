/// How a plain-text book's bytes were decoded.
///
/// Recorded so the daemon can tell the listener when a guess was made: a file that is not valid
/// UTF-8 and has no NUL bytes is read as Windows-1252 (which agrees with ISO-8859-1 on every
/// printable character), e.g. an old Project Gutenberg `8859-1` file becomes `.isoLatin1`.
public enum TextEncoding: String, Sendable, Equatable {
    case utf8
    /// UTF-8 that started with the byte order mark EF BB BF (the mark is not part of the text).
    case utf8WithByteOrderMark
    case utf16LittleEndian
    case utf16BigEndian
    /// Guessed: not UTF-8, no NULs, and some bytes in 0x80...0x9F, which Windows-1252 uses for
    /// curly quotes and dashes and ISO-8859-1 leaves to control characters.
    case windows1252
    /// Guessed: not UTF-8, no NULs, and no bytes in 0x80...0x9F.
    case isoLatin1

    /// A human name for messages, e.g. "Windows-1252 (guessed)".
    public var displayName: String {
        switch self {
        case .utf8: return "UTF-8"
        case .utf8WithByteOrderMark: return "UTF-8 with byte order mark"
        case .utf16LittleEndian: return "UTF-16 little-endian"
        case .utf16BigEndian: return "UTF-16 big-endian"
        case .windows1252: return "Windows-1252 (guessed)"
        case .isoLatin1: return "ISO-8859-1 (guessed)"
        }
    }

    /// True when the encoding was inferred from the bytes rather than known for certain.
    public var isGuess: Bool { self == .windows1252 || self == .isoLatin1 }
}
