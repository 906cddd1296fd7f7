import Foundation

/// Paths inside an EPUB archive: resolving hrefs against the document that holds them, and
/// refusing anything that would leave the archive's root.
///
/// EPUB hrefs are relative URLs: `../Text/ch01.xhtml#p3` inside `OEBPS/nav/toc.xhtml` names the
/// entry `OEBPS/Text/ch01.xhtml`, fragment `p3`. A href that climbs above the root
/// (`../../etc/passwd` from `OEBPS/content.opf`) or is absolute (`/etc/passwd`) is an attack or
/// a broken book, never something to look up:
///
///     ArchivePath.resolve("../Text/ch01.xhtml#p3", from: "OEBPS/nav/toc.xhtml")
///     // .inside(path: "OEBPS/Text/ch01.xhtml", fragment: "p3")
///     ArchivePath.resolve("../../etc/passwd", from: "OEBPS/content.opf")  // .escapes
enum ArchivePath: Equatable {
    case inside(path: String, fragment: String?)
    /// A URL with a scheme (`http:`, `mailto:`, `data:`): not in the archive, not an error.
    case external
    case escapes

    /// Resolves `href` relative to the directory of the archive entry `base` ("" for the root).
    static func resolve(_ href: String, from base: String) -> ArchivePath {
        let trimmed = href.trimmingCharacters(in: .whitespacesAndNewlines)
        var reference = Substring(trimmed)
        var fragment: String?
        if let hash = reference.firstIndex(of: "#") {
            let raw = String(reference[reference.index(after: hash)...])
            fragment = raw.isEmpty ? nil : (raw.removingPercentEncoding ?? raw)
            reference = reference[..<hash]
        }
        if let question = reference.firstIndex(of: "?") { reference = reference[..<question] }
        if hasScheme(reference) { return .external }
        let decoded = String(reference).removingPercentEncoding ?? String(reference)
        if isAbsolute(decoded) { return .escapes }
        if decoded.isEmpty { return .inside(path: base, fragment: fragment) }
        guard let path = normalize(decoded, under: directory(of: base)) else { return .escapes }
        return .inside(path: path, fragment: fragment)
    }

    /// The normalised form of an archive entry's own name, or nil when it leaves the root.
    ///
    ///     ArchivePath.normalizedEntryName("OEBPS/./a/../b.xhtml")  // "OEBPS/b.xhtml"
    ///     ArchivePath.normalizedEntryName("../evil.xhtml")         // nil
    static func normalizedEntryName(_ name: String) -> String? {
        if isAbsolute(name) { return nil }
        return normalize(name, under: [])
    }

    /// The directory components of an entry path: `OEBPS/Text/a.xhtml` → `["OEBPS", "Text"]`.
    static func directory(of path: String) -> [String] {
        var components = path.split(separator: "/", omittingEmptySubsequences: true).map(String.init)
        if !path.hasSuffix("/") { _ = components.popLast() }
        return components
    }

    private static func normalize(_ relative: String, under directory: [String]) -> String? {
        var components = directory
        let parts = relative.replacingOccurrences(of: "\\", with: "/")
            .split(separator: "/", omittingEmptySubsequences: true)
        for part in parts {
            switch part {
            case ".": continue
            case "..":
                guard !components.isEmpty else { return nil }
                components.removeLast()
            default: components.append(String(part))
            }
        }
        return components.joined(separator: "/")
    }

    private static func isAbsolute(_ path: String) -> Bool {
        if path.hasPrefix("/") || path.hasPrefix("\\") { return true }
        let scalars = Array(path.unicodeScalars.prefix(3))
        // A Windows drive: `C:\...` or `C:/...`.
        return scalars.count >= 2 && scalars[1] == ":" && CharacterSet.letters.contains(scalars[0])
    }

    /// `http:`, `mailto:` and the like; a single letter before the colon is a drive, not a scheme.
    private static func hasScheme(_ reference: Substring) -> Bool {
        guard let colon = reference.firstIndex(of: ":") else { return false }
        let scheme = reference[..<colon]
        guard scheme.count > 1, let first = scheme.first, first.isASCII, first.isLetter else { return false }
        return scheme.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || "+-.".contains($0)) }
    }
}
