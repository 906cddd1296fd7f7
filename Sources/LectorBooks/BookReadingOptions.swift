/// How a book is read aloud, beyond its words: where footnotes and endnotes are read, and
/// whether images are described. The daemon takes them from `[books]` in config.toml
/// (lector.conf(5)); they apply to a book when it is opened, so its chapter texts (and the
/// offsets bookmarks and `SpeakingRange` use) stay the same while it is open.
///
///     let outline = try BookReader.open(url, options: BookReadingOptions(notes: .endOfChapter, images: .skip))
public struct BookReadingOptions: Sendable, Equatable {
    /// Where a note (`epub:type` footnote, endnote, rearnote, note; `role` doc-footnote,
    /// doc-endnote; an `aside` a note reference points at) is read.
    public enum Notes: String, Sendable, CaseIterable {
        /// After the paragraph that refers to it, introduced as a note ("Note: …"); a note
        /// nothing refers to is read where it stands, and one read at its reference is not read
        /// again where it stands (a "Notes" chapter), only shown.
        case afterParagraph = "after-paragraph"
        /// At the end of the chapter that refers to it, in the order of reference.
        case endOfChapter = "end-of-chapter"
        /// Not read (shown on the read-along page only), unless the table of contents lists it.
        case skip
    }

    /// Whether images with a text alternative are read.
    public enum Images: String, Sendable, CaseIterable {
        /// "Image: " and the `alt` text (a figure's caption once, an `aria-describedby`
        /// description); an image inside a line of text is read as its `alt` alone; decorative
        /// images (`alt=""`, `role="presentation"`) are not read.
        case read
        /// No image is read.
        case skip
    }

    public var notes: Notes
    public var images: Images

    public init(notes: Notes = .afterParagraph, images: Images = .read) {
        self.notes = notes
        self.images = images
    }

    public static let `default` = BookReadingOptions()
}
