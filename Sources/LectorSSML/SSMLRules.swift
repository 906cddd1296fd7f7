/// espeak-ng's rules over what `SSMLReader` reports, kept by hand because no XML parser knows
/// them: the SSML vocabulary espeak-ng reads (`SSMLVocabulary`), `<speak>` as the root,
/// `<break>` and `<mark>` empty, and where espeak-ng's naive tag reader (readclause.c,
/// ssml.c) reads well-formed XML differently from XML:
///
/// - it copies at most 500 characters of a tag (`N_XML_BUF`) and speaks the rest;
/// - it ends a tag, and a comment, at the first ">", even inside quotes or a comment;
/// - it copies attribute values raw: `&amp;` stays five characters;
/// - it ends an attribute value at `"` even when the value was opened with `'`;
/// - it keeps 18 levels of `<prosody>`, `<emphasis>`, `<tts:style>` and `<audio>` (its
///   parameter stack has 20 frames, one the base): a 19th is ignored and closing it drops the
///   setting of the one around it;
/// - CDATA sections, processing instructions and `<!DOCTYPE>` are not XML it knows.
///
/// And one bound of ours: elements nest at most `maximumDepth` deep (real SSML nests a handful;
/// libxml2 would allow 256), so a hostile text costs a bounded stack.
///
/// Every refusal names a place (a byte offset, shown as line and column) and what to change.
final class SSMLRules: SSMLEventHandler {
    struct Failure: Error, Equatable {
        var offset: Int
        var reason: String
    }

    /// espeak-ng's `N_XML_BUF`: longer tags are cut and the rest is spoken.
    static let maximumTagLength = 500
    /// espeak-ng's `N_PARAM_STACK` (20) less the base frame and the frame it overwrites.
    static let maximumParameterDepth = 18
    static let maximumDepth = 32
    /// The elements that push a frame on espeak-ng's parameter stack.
    static let parameterElements: Set<String> = ["prosody", "emphasis", "tts:style", "audio"]

    private struct Open {
        var name: String
        var start: Int
        /// Just past the start tag's ">".
        var contentStart: Int
        var pushesParameters: Bool
    }

    private(set) var failure: Failure?
    private var open: [Open] = []
    /// How many open elements are `<metadata>` or inside it (its content is not SSML).
    private var metadataDepth = 0
    private var parameterDepth = 0

    func handle(_ event: SSMLReader.Event, in text: SSMLText) -> Bool {
        do {
            try apply(event, text)
            return true
        } catch {
            failure = error
            return false
        }
    }

    private func apply(_ event: SSMLReader.Event, _ text: SSMLText) throws(Failure) {
        switch event {
        case .start(let name, let source, let empty):
            try start(name, source: source, empty: empty, text)
        case .end(let name, let source):
            guard let element = open.popLast() else { return }
            if metadataDepth > 0 { metadataDepth -= 1 }
            if element.pushesParameters { parameterDepth -= 1 }
            if metadataDepth == 0, SSMLVocabulary.empty.contains(name), source.lowerBound > element.start,
               let content = firstContent(text, element.contentStart..<source.lowerBound) {
                throw Failure(offset: content, reason: "<\(name)> must be empty (write <\(name) .../>)")
            }
        case .comment(let source):
            let inside = (source.lowerBound + 4)..<(source.upperBound - 3)
            if let bad = text.firstIndex(of: .greaterThan, in: inside) {
                throw Failure(offset: bad, reason: "\">\" inside a comment ends it early for espeak-ng (the rest would be spoken)")
            }
        case .cdata(let at):
            throw Failure(offset: at, reason: "CDATA sections are not supported by espeak-ng; escape the text with &lt; and &amp;")
        case .processingInstruction(let at):
            throw Failure(offset: at, reason: "processing instructions are not supported by espeak-ng")
        case .doctype(let at):
            throw Failure(offset: at, reason: "declarations such as <!DOCTYPE> are not allowed (nor needed: espeak-ng reads no DTD)")
        }
    }

    private func start(_ name: String, source: Range<Int>, empty: Bool, _ text: SSMLText) throws(Failure) {
        let start = source.lowerBound
        if open.count >= Self.maximumDepth {
            throw Failure(offset: start, reason: "elements are nested more than \(Self.maximumDepth) deep; write flatter SSML")
        }
        let inMetadata = metadataDepth > 0
        if let parent = open.last, !inMetadata, SSMLVocabulary.empty.contains(parent.name) {
            let content = firstContent(text, parent.contentStart..<start) ?? start
            throw Failure(offset: content, reason: "<\(parent.name)> must be empty (write <\(parent.name) .../>)")
        }
        if open.isEmpty {
            guard name == "speak" else { throw Failure(offset: start, reason: "the root element must be <speak>, not <\(name)>") }
        } else if !inMetadata {
            if let problem = SSMLVocabulary.problem(element: name) { throw Failure(offset: start, reason: problem) }
            if name == "speak" { throw Failure(offset: start, reason: "<speak> can only be the root element") }
        }

        let tag = SSMLTag(text, at: start, end: source.upperBound)
        var values: [String: String] = [:]
        for attribute in tag.attributes {
            try checkRaw(attribute, text)
            let value = text.string(attribute.value)
            values[attribute.name] = value
            if !inMetadata, let problem = SSMLVocabulary.problem(element: name, attribute: attribute.name, value: value) {
                throw Failure(offset: attribute.nameStart, reason: problem)
            }
        }
        if !inMetadata {
            if let needed = SSMLVocabulary.required[name], values[needed] == nil {
                throw Failure(offset: start, reason: "<\(name)> needs the \(needed) attribute")
            }
            if name == "tts:style", let problem = SSMLVocabulary.problem(styleField: values["field"], mode: values["mode"]) {
                throw Failure(offset: start, reason: problem)
            }
        }
        // espeak-ng reads the characters between "<" and ">" into a 500-character buffer.
        let length = text.scalarCount((start + 1)..<(source.upperBound - 1))
        if length > Self.maximumTagLength {
            throw Failure(offset: start, reason: "the tag is \(length) characters long; espeak-ng reads at most \(Self.maximumTagLength)")
        }
        let pushesParameters = !inMetadata && !empty && Self.parameterElements.contains(name)
        if pushesParameters {
            guard parameterDepth < Self.maximumParameterDepth else {
                throw Failure(offset: start, reason: "<\(name)> is the \(parameterDepth + 1)th nested <prosody>, <emphasis>, "
                    + "<tts:style> or <audio>; espeak-ng keeps \(Self.maximumParameterDepth) and would lose the settings around it")
            }
            parameterDepth += 1
        }
        if inMetadata || name == "metadata" { metadataDepth += 1 }
        open.append(Open(name: name, start: start, contentStart: source.upperBound, pushesParameters: pushesParameters))
    }

    /// What espeak-ng reads differently from XML in an attribute value as written.
    private func checkRaw(_ attribute: SSMLTag.Attribute, _ text: SSMLText) throws(Failure) {
        for offset in attribute.value {
            switch text.bytes[offset] {
            case .greaterThan:
                throw Failure(offset: offset, reason: "\">\" in an attribute value ends the tag early for espeak-ng; leave it out")
            case .ampersand:
                throw Failure(offset: offset, reason: "\"&\" in an attribute value: espeak-ng does not decode entities there; write the character itself")
            case .doubleQuote where attribute.quote == .singleQuote:
                throw Failure(offset: offset, reason: "espeak-ng ends every attribute value at '\"', even inside '...'")
            default:
                continue
            }
        }
    }

    /// The first character of text (or a reference) in `range` of an element's content,
    /// comments skipped; nil if there is only white space.
    private func firstContent(_ text: SSMLText, _ range: Range<Int>) -> Int? {
        var index = range.lowerBound
        while let next = text.firstNonSpace(from: index, before: range.upperBound) {
            guard text.starts(with: "<!--", at: next), let close = text.find("-->", in: (next + 4)..<range.upperBound) else {
                return next
            }
            index = close + 3
        }
        return nil
    }
}

extension SSMLRules {
    /// The elements open when the reader stopped, outermost first: name and start offset.
    var openElements: [(name: String, start: Int)] { open.map { ($0.name, $0.start) } }
}
