/// Where an EPUB's cover is, found when the book is opened and read only when asked for.
///
/// EPUB 3 marks the image itself (`properties="cover-image"`); EPUB 2 names it in
/// `<meta name="cover" content="ITEM-ID">`, or its guide points at an XHTML page whose first
/// image is the cover.
enum CoverLocation: Sendable, Equatable {
    case image(path: String, mediaType: String?)
    case page(path: String)
}
