/// A heading (`h1`…`h6`, or a plain-text chapter line) found in a document, as spoken: used to
/// title chapters the table of contents does not name, and to tell a chapter that holds nothing
/// but its heading (a part title page) from one with text of its own.
///
///     <h2>I. THE BURIAL OF THE DEAD</h2>   // DocumentHeading(offset: 112, end: 137, text: "I. THE BURIAL OF THE DEAD")
struct DocumentHeading: Sendable, Equatable {
    /// Where the heading's text starts in `DocumentText.scalars`.
    var offset: Int
    /// Where it ends.
    var end: Int
    var text: String
}
