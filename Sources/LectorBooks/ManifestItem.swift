/// One `<item>` of the OPF manifest, with its href already resolved to an archive path.
///
///     <item id="s04" href="s04.xhtml" media-type="application/xhtml+xml"/>   in EPUB/package.opf
///     // ManifestItem(id: "s04", path: "EPUB/s04.xhtml", mediaType: "application/xhtml+xml", properties: [])
struct ManifestItem: Sendable, Equatable {
    var id: String
    /// Nil for a remote resource (`href="https://…"`), which EPUB 3 allows for audio and video.
    var path: String?
    var mediaType: String
    /// EPUB 3 `properties` tokens: `nav`, `cover-image`, `scripted`, …
    var properties: Set<String>

    var isXHTML: Bool {
        ["application/xhtml+xml", "text/html", "application/xml", "text/xml"].contains(mediaType.lowercased())
    }

    var isNCX: Bool { mediaType.lowercased() == "application/x-dtbncx+xml" }

    var isImage: Bool { mediaType.lowercased().hasPrefix("image/") }

    /// Fonts are the one thing a book may encrypt (obfuscate) and still be read.
    var isFont: Bool {
        let type = mediaType.lowercased()
        return type.hasPrefix("font/") || type.contains("opentype") || type.contains("truetype")
            || type.contains("font-woff") || type == "application/vnd.ms-opentype"
    }
}
