import Foundation

/// An image the read-along page shows, by the manifest id its `<img src="resource/ID">` names.
///
/// Only images, and only in the formats a browser shows without plugins; the media type is the
/// manifest's (lowercased, `image/jpg` read as `image/jpeg`), which the page serves it as:
///
///     let image = try outline.resource(id: "fig1")   // BookResource(mediaType: "image/png", data: …)
public struct BookResource: Sendable, Equatable {
    public var mediaType: String
    public var data: Data

    public init(mediaType: String, data: Data) {
        self.mediaType = mediaType
        self.data = data
    }

    /// The media type an image is served as, or nil when it is no image the page may show.
    static func shownMediaType(_ declared: String) -> String? {
        let type = declared.trimmingCharacters(in: .whitespaces).lowercased()
        if type == "image/jpg" { return "image/jpeg" }
        return ["image/jpeg", "image/png", "image/gif", "image/webp", "image/svg+xml"].contains(type) ? type : nil
    }
}
