import Foundation

/// A book's cover image, ready to be written next to the MPRIS metadata as `mpris:artUrl`.
///
/// The media type comes from the image's own magic bytes when they are recognisable (a manifest
/// can be wrong) and from the manifest otherwise:
///
///     let cover = try outline.loadCover()
///     try cover?.data.write(to: cacheDir.appendingPathComponent("cover.\(cover!.fileExtension)"))
public struct BookCover: Sendable, Equatable {
    public var data: Data
    /// e.g. `image/png`, `image/jpeg`.
    public var mediaType: String
    /// A file name extension for the media type without the dot, e.g. `png`, `jpg`.
    public var fileExtension: String

    public init(data: Data, mediaType: String, fileExtension: String) {
        self.data = data
        self.mediaType = mediaType
        self.fileExtension = fileExtension
    }

    /// Names the image by its magic bytes, falling back to the declared media type.
    init(data: Data, declaredMediaType: String?) {
        let sniffed = Self.sniffMediaType(data)
        let mediaType = sniffed ?? declaredMediaType?.lowercased() ?? "application/octet-stream"
        self.init(data: data, mediaType: mediaType, fileExtension: Self.fileExtension(for: mediaType))
    }

    static func sniffMediaType(_ data: Data) -> String? {
        let head = [UInt8](data.prefix(16))
        func starts(_ magic: [UInt8]) -> Bool { head.starts(with: magic) }
        if starts([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return "image/png" }
        if starts([0xFF, 0xD8, 0xFF]) { return "image/jpeg" }
        if starts(Array("GIF8".utf8)) { return "image/gif" }
        if starts(Array("RIFF".utf8)), head.count >= 12, Array(head[8..<12]) == Array("WEBP".utf8) {
            return "image/webp"
        }
        let text = String(decoding: data.prefix(512), as: UTF8.self)
        if text.contains("<svg") { return "image/svg+xml" }
        return nil
    }

    static func fileExtension(for mediaType: String) -> String {
        switch mediaType {
        case "image/png": return "png"
        case "image/jpeg", "image/jpg": return "jpg"
        case "image/gif": return "gif"
        case "image/webp": return "webp"
        case "image/svg+xml": return "svg"
        default:
            let subtype = mediaType.split(separator: "/").last.map(String.init) ?? "bin"
            return subtype.isEmpty ? "bin" : subtype
        }
    }
}
