/// One child of a `MarkupElement`: a nested element or a run of text, kept in document order
/// so a label like `<a>Chapter <em>One</em></a>` reads back as "Chapter One".
indirect enum MarkupContent: Sendable {
    case element(MarkupElement)
    case text(String)
}
