/// A heading (`h1`…`h6`, or a plain-text chapter line) found in a document, as spoken, without
/// the pause period: used to title chapters the table of contents does not name.
///
///     <h2>I. THE BURIAL OF THE DEAD</h2>   // DocumentHeading(offset: 112, text: "I. THE BURIAL OF THE DEAD")
struct DocumentHeading: Sendable, Equatable {
    /// Where the heading's text starts in `DocumentText.scalars`.
    var offset: Int
    var text: String
}
