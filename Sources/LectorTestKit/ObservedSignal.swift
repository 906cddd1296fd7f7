import Foundation

/// One signal line printed by `gdbus monitor`, e.g.
/// `/io/github/lector/Lector1: io.github.lector.Lector1.SpeakingRange (uint64 1, uint32 0, uint32 5)`.
public struct ObservedSignal: Sendable, CustomStringConvertible {
    /// Member name only, e.g. "SpeakingRange".
    public let member: String
    /// Top-level arguments as text: type prefixes ("uint64 ", "objectpath ", "@as ") dropped, strings
    /// unquoted and unescaped, bytes in decimal; containers (arrays, dicts, variants, tuples) stay in GVariant text.
    public let arguments: [String]
    /// The argument tuple exactly as gdbus printed it, e.g. "(uint64 1, uint32 0, uint32 5)" or "('done',)".
    public let raw: String
    public let receivedAt: Date
    public let path: String
    public let interface: String

    public init(member: String, arguments: [String], raw: String, receivedAt: Date, path: String, interface: String) {
        self.member = member
        self.arguments = arguments
        self.raw = raw
        self.receivedAt = receivedAt
        self.path = path
        self.interface = interface
    }

    /// Parses one line of `gdbus monitor` output; nil for its status lines ("The name ... is owned by ...").
    public init?(monitorLine line: String, receivedAt: Date = Date()) {
        guard let separator = line.range(of: ": "), line.hasPrefix("/") else { return nil }
        let rest = line[separator.upperBound...]
        guard let space = rest.firstIndex(of: " ") else { return nil }
        let qualifiedMember = rest[..<space]
        let raw = String(rest[rest.index(after: space)...])
        guard raw.hasPrefix("("), raw.hasSuffix(")"), let dot = qualifiedMember.lastIndex(of: ".") else { return nil }
        self.init(member: String(qualifiedMember[qualifiedMember.index(after: dot)...]),
                  arguments: GVariantText.tupleElements(raw).map(GVariantText.plainValue),
                  raw: raw,
                  receivedAt: receivedAt,
                  path: String(line[..<separator.lowerBound]),
                  interface: String(qualifiedMember[..<dot]))
    }

    public var description: String { "\(interface).\(member) \(raw) on \(path)" }
}
