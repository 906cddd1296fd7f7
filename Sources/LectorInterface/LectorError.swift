/// An error a client caused, with the D-Bus error name it is reported under.
///
/// The daemon maps each case to a named bus error so that callers can branch on the name and
/// people can read the message, e.g. `io.github.lector.Error.UnknownVoice: no installed voice is
/// named "klingon"`. It never stops the daemon.
public struct LectorError: Error, Equatable, Sendable, CustomStringConvertible {
    public enum Kind: String, Sendable, CaseIterable {
        case invalidArgument = "InvalidArgument"
        case textTooLong = "TextTooLong"
        case unknownVoice = "UnknownVoice"
        case unknownLanguage = "UnknownLanguage"
        case noSuchSpeech = "NoSuchSpeech"
        case soundServerUnavailable = "SoundServerUnavailable"
        case failed = "Failed"
        case notFound = "NotFound"
        case badBook = "BadBook"
        case noBook = "NoBook"
        /// The announcement queue (or this sender's share of it) is full.
        case queueFull = "QueueFull"
        /// This sender asked for speech faster than its allowance.
        case rateLimited = "RateLimited"
        /// config.toml is invalid (the message says file, line and reason).
        case badConfig = "BadConfig"
        /// The reply would exceed what the bus carries (`GetTracksMetadata` for too many ids).
        case replyTooLarge = "ReplyTooLarge"
        /// A later `Open` replaced this one before it finished.
        case superseded = "Superseded"
        /// The chapter's text is still being read from the book (`GetChapterText` right after `Open`).
        case chapterNotReady = "ChapterNotReady"
        /// A file Lector does not read, recognized by its content (a PDF): the message says how
        /// to convert it.
        case unsupportedFormat = "UnsupportedFormat"
    }

    public static let namePrefix = "io.github.lector.Error."

    public let kind: Kind
    public let message: String

    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    /// The D-Bus error name, e.g. `io.github.lector.Error.InvalidArgument`.
    public var busName: String { Self.namePrefix + kind.rawValue }

    public var description: String { "\(busName): \(message)" }

    public static func invalidArgument(_ message: String) -> LectorError { .init(.invalidArgument, message) }
}
