@preconcurrency import CLibXML2

/// The one way Lector runs libxml2: every XML or HTML document it reads (container, OPF, nav, NCX,
/// chapters, PLS lexicons, SSML) goes through `read`, so a new reader cannot forget the guard.
///
/// The guard wraps the entry point's own SAX callbacks:
/// - no network, no DTD loading, never `XML_PARSE_HUGE`; only internal entities are declared
///   (an external one, `<!ENTITY x SYSTEM "file:///…">`, would be read from disk once substituted);
/// - internal entities expand only while the replacement text of all references stays within
///   `entityBudget(documentSize:)`: a billion laughs or a quadratic blow-up stops at once (libxml2
///   2.9 re-parses an entity's text at every reference in SAX mode: 129 s and 300 MB for one OPF);
/// - every callback first checks the thread's `XMLParseScope`: its cancellation and CPU budget.
/// What stopped a parse is the session's `refusal`.
///
///     let session = MySession()            // a GuardedXMLSession subclass
///     XMLReader.read(bytes, as: .xml(substituteEntities: true), handler: mySAX, session: session)
///     session.refusal                      // nil, or .entityExpansion(limit: 262_144), …
public enum XMLReader {
    public enum Kind: Sendable {
        /// libxml2's XML parser; `substituteEntities` reports entity text as text (books);
        /// `ignoreDeclaredEncoding` for text known to be UTF-8 (SSML, a D-Bus string).
        case xml(substituteEntities: Bool, ignoreDeclaredEncoding: Bool = false)
        /// libxml2's forgiving HTML parser over UTF-8: recover, no errors or warnings printed.
        case html
    }

    /// A few hundred kB, or the document's own size if larger: the replacement text all entity
    /// references of one document may add up to. Real books use a handful of short entities.
    public static let minimumEntityBudget = 256 * 1024
    public static func entityBudget(documentSize: Int) -> Int { max(minimumEntityBudget, documentSize) }

    /// nil once libxml2 is loaded (CLibXML2 opens it on first use); otherwise why not, and the
    /// package to install.
    public static var unavailable: String? { loaded }

    /// Parses `bytes` (no NUL inside; libxml2 reads C strings) with `handler`'s callbacks behind
    /// the guard; they find `session` through `GuardedXMLSession.of(context)`. False when libxml2
    /// could not even make a parser (out of memory); a missing libxml2 is the session's refusal.
    /// `handler` is made only once libxml2 is loaded (SAX2's defaults are libxml2's functions).
    @discardableResult
    public static func read(_ bytes: UnsafeRawBufferPointer, as kind: Kind, handler makeHandler: @autoclosure () -> xmlSAXHandler,
                            session: GuardedXMLSession) -> Bool {
        if let why = loaded {
            session.refusal = .libraryUnavailable(why)
            return true
        }
        let handler = makeHandler()
        session.begin(documentSize: bytes.count, handler: handler)
        let isHTML: Bool
        if case .html = kind { isHTML = true } else { isHTML = false }
        guard let context = isHTML ? htmlNewParserCtxt() : xmlNewParserCtxt() else { return false }
        defer { if isHTML { htmlFreeParserCtxt(context) } else { xmlFreeParserCtxt(context) } }
        context.pointee.sax.pointee = guarded(handler)
        context.pointee._private = Unmanaged.passUnretained(session).toOpaque()
        // Read through a callback, not from memory: libxml2 2.9 copies a memory document whole
        // into its own growing buffer first (17 MB more for a 10-MB chapter), and keeps only
        // what it is parsing of one it reads.
        let input = MemoryInput(bytes)
        let source = Unmanaged.passUnretained(input).toOpaque()
        let document = withExtendedLifetime((session, input)) { () -> xmlDocPtr? in
            switch kind {
            case .html:
                let options = HTML_PARSE_RECOVER.rawValue | HTML_PARSE_NONET.rawValue | HTML_PARSE_NOERROR.rawValue
                    | HTML_PARSE_NOWARNING.rawValue | HTML_PARSE_IGNORE_ENC.rawValue
                return htmlCtxtReadIO(context, MemoryInput.read, nil, source, nil, "UTF-8", Int32(options))
            case .xml(let substitute, let ignoreEncoding):
                var options = XML_PARSE_NONET.rawValue
                if substitute { options |= XML_PARSE_NOENT.rawValue }
                if ignoreEncoding { options |= XML_PARSE_IGNORE_ENC.rawValue }
                return xmlCtxtReadIO(context, MemoryInput.read, nil, source, nil, nil, Int32(options))
            }
        }
        // The default SAX2 document start makes a document node (it holds the internal DTD's
        // entities); a stopped parse may leave it in the context.
        if let document { xmlFreeDoc(document) }
        if let leftover = context.pointee.myDoc {
            xmlFreeDoc(leftover)
            context.pointee.myDoc = nil
        }
        return true
    }

    /// The document handed to libxml2 a piece at a time (`xmlInputReadCallback`).
    private final class MemoryInput {
        let bytes: UnsafeRawBufferPointer
        var offset = 0

        init(_ bytes: UnsafeRawBufferPointer) { self.bytes = bytes }

        static let read: xmlInputReadCallback = { context, buffer, length in
            guard let context, let buffer, length >= 0 else { return -1 }
            let input = Unmanaged<MemoryInput>.fromOpaque(context).takeUnretainedValue()
            let count = min(Int(length), input.bytes.count - input.offset)
            guard count > 0, let base = input.bytes.baseAddress else { return 0 }
            UnsafeMutableRawPointer(buffer).copyMemory(from: base + input.offset, byteCount: count)
            input.offset += count
            return Int32(count)
        }
    }

    /// Opened and initialised once, by the first reader.
    private static let loaded: String? = {
        if let failure = lector_libxml2_open() { return String(cString: failure) }
        xmlInitParser()
        return nil
    }()

    /// `handler` with the guard in front of each callback it has (those it lacks stay NULL, so
    /// libxml2 behaves as the entry point asked).
    static func guarded(_ handler: xmlSAXHandler) -> xmlSAXHandler {
        var sax = handler
        if handler.startElementNs != nil {
            sax.startElementNs = { context, local, prefix, uri, namespaceCount, namespaces, attributeCount, defaulted, attributes in
                guard let (session, parser) = GuardedXMLSession.of(context), session.mayGoOn(parser) else { return }
                session.callbacks.startElementNs?(context, local, prefix, uri, namespaceCount, namespaces, attributeCount,
                                                defaulted, attributes)
            }
        }
        if handler.endElementNs != nil {
            sax.endElementNs = { context, local, prefix, uri in
                guard let (session, parser) = GuardedXMLSession.of(context), session.mayGoOn(parser) else { return }
                session.callbacks.endElementNs?(context, local, prefix, uri)
            }
        }
        if handler.startElement != nil {
            sax.startElement = { context, name, attributes in
                guard let (session, parser) = GuardedXMLSession.of(context), session.mayGoOn(parser) else { return }
                session.callbacks.startElement?(context, name, attributes)
            }
        }
        if handler.endElement != nil {
            sax.endElement = { context, name in
                guard let (session, parser) = GuardedXMLSession.of(context), session.mayGoOn(parser) else { return }
                session.callbacks.endElement?(context, name)
            }
        }
        if handler.characters != nil {
            sax.characters = { context, bytes, length in
                guard let (session, parser) = GuardedXMLSession.of(context), session.mayGoOn(parser) else { return }
                session.callbacks.characters?(context, bytes, length)
            }
        }
        if handler.ignorableWhitespace != nil {
            sax.ignorableWhitespace = { context, bytes, length in
                guard let (session, parser) = GuardedXMLSession.of(context), session.mayGoOn(parser) else { return }
                session.callbacks.ignorableWhitespace?(context, bytes, length)
            }
        }
        if handler.cdataBlock != nil {
            sax.cdataBlock = { context, bytes, length in
                guard let (session, parser) = GuardedXMLSession.of(context), session.mayGoOn(parser) else { return }
                session.callbacks.cdataBlock?(context, bytes, length)
            }
        }
        if handler.comment != nil {
            sax.comment = { context, text in
                guard let (session, parser) = GuardedXMLSession.of(context), session.mayGoOn(parser) else { return }
                session.callbacks.comment?(context, text)
            }
        }
        if handler.processingInstruction != nil {
            sax.processingInstruction = { context, target, data in
                guard let (session, parser) = GuardedXMLSession.of(context), session.mayGoOn(parser) else { return }
                session.callbacks.processingInstruction?(context, target, data)
            }
        }
        // Only internal entities are ever declared; undeclared, a reference to an external one
        // is an error like any unknown entity.
        if handler.entityDecl != nil {
            sax.entityDecl = { context, name, type, publicID, systemID, content in
                guard let (session, parser) = GuardedXMLSession.of(context), session.mayGoOn(parser),
                      type == Int32(XML_INTERNAL_GENERAL_ENTITY.rawValue)
                        || type == Int32(XML_INTERNAL_PARAMETER_ENTITY.rawValue) else { return }
                session.callbacks.entityDecl?(context, name, type, publicID, systemID, content)
            }
        }
        sax.unparsedEntityDecl = nil
        sax.externalSubset = nil
        sax.resolveEntity = nil
        // Every reference asks for its entity: the place to count what expansion costs.
        if handler.getEntity != nil {
            sax.getEntity = { context, name in
                guard let (session, parser) = GuardedXMLSession.of(context), session.mayGoOn(parser),
                      let entity = session.callbacks.getEntity?(context, name) else { return nil }
                return session.expands(entity, parser) ? entity : nil
            }
        }
        if handler.getParameterEntity != nil {
            sax.getParameterEntity = { context, name in
                guard let (session, parser) = GuardedXMLSession.of(context), session.mayGoOn(parser),
                      let entity = session.callbacks.getParameterEntity?(context, name) else { return nil }
                return session.expands(entity, parser) ? entity : nil
            }
        }
        if handler.serror != nil {
            sax.serror = { context, error in
                guard let error, let (session, parser) = GuardedXMLSession.of(context) else { return }
                if error.pointee.code == Int32(XML_ERR_ENTITY_LOOP.rawValue) {
                    session.refuse(.entityLoop, parser)
                }
                // What follows a refusal is its consequence, not the document's error.
                guard session.refusal == nil else { return }
                session.callbacks.serror?(context, error)
            }
        }
        return sax
    }
}

/// Why the guard stopped a parse (its handler's own reasons are the handler's).
public enum XMLRefusal: Error, Equatable, Sendable {
    /// The entity references' replacement text would pass `limit` bytes.
    case entityExpansion(limit: Int)
    /// An entity refers to itself, directly or through others.
    case entityLoop
    /// The scope's CPU budget was spent.
    case cpuBudget(seconds: Double)
    /// The scope's cancellation was set.
    case cancelled
    /// libxml2 could not be loaded: why, and the package to install.
    case libraryUnavailable(String)

    /// Says what the document does, after its path: "EPUB/nav.xhtml declares entities that …".
    public var reason: String {
        switch self {
        case .entityExpansion(let limit): return "declares entities that expand to more than \(limit) bytes"
        case .entityLoop: return "declares entities that refer to themselves (an entity loop)"
        case .cpuBudget(let seconds):
            return "took more than \(seconds.formatted()) s of CPU to parse (a hostile or damaged book?)"
        case .cancelled: return "was no longer needed (its parse was cancelled)"
        case .libraryUnavailable(let why): return "cannot be read: \(why)"
        }
    }
}

private extension Double {
    func formatted() -> String { self == rounded() ? String(Int(self)) : String(self) }
}

/// What a guarded parse keeps between callbacks; subclass it for a parser's own bookkeeping.
/// The C callbacks reach it through the context's `_private`, which libxml2 copies into the
/// contexts it makes for entity text, so those count against the same budget.
open class GuardedXMLSession {
    public internal(set) var refusal: XMLRefusal?
    /// The entry point's own callbacks, called behind the guard's checks.
    var callbacks = xmlSAXHandler()
    private let scope = XMLParseScope.inForce()
    private var entityBudget = XMLReader.minimumEntityBudget
    private var expanded = 0
    private var events: UInt32 = 0

    public init() {}

    func begin(documentSize: Int, handler: xmlSAXHandler) {
        entityBudget = XMLReader.entityBudget(documentSize: documentSize)
        callbacks = handler
    }

    /// The session a callback's `context` belongs to, and its parser.
    public static func of<Session: GuardedXMLSession>(_ context: UnsafeMutableRawPointer?,
                                                      as type: Session.Type = Session.self) -> (Session, xmlParserCtxtPtr)? {
        guard let parser = context?.assumingMemoryBound(to: xmlParserCtxt.self),
              let session = parser.pointee._private,
              let typed = Unmanaged<GuardedXMLSession>.fromOpaque(session).takeUnretainedValue() as? Session else { return nil }
        return (typed, parser)
    }

    /// False, with the parser stopped, once the guard has refused the document, the scope was
    /// cancelled or its CPU is spent (looked at every 256 events: the clock is a system call).
    func mayGoOn(_ parser: xmlParserCtxtPtr) -> Bool {
        if refusal != nil {
            xmlStopParser(parser)
            return false
        }
        events &+= 1
        if scope.cancellation?.isCancelled == true {
            refuse(.cancelled, parser)
        } else if events & 0xFF == 0, scope.cpuSpent > scope.cpuSeconds {
            refuse(.cpuBudget(seconds: scope.cpuSeconds), parser)
        }
        return refusal == nil
    }

    /// Counts what a reference expands to, all nested references included (worked out once per
    /// entity from the declarations), so a billion laughs is refused at its first reference;
    /// false, with the parser stopped, past the budget or for an entity that refers to itself.
    func expands(_ entity: xmlEntityPtr, _ parser: xmlParserCtxtPtr) -> Bool {
        switch entity.pointee.etype {
        case XML_INTERNAL_GENERAL_ENTITY:
            var visiting: Set<String> = []
            guard let size = expandedSize(entity, document: parser.pointee.myDoc, visiting: &visiting) else {
                refuse(.entityLoop, parser)
                return false
            }
            expanded = min(expanded + size, Int.max / 2)
        case XML_INTERNAL_PARAMETER_ENTITY:
            // Parameter entities cannot nest within an internal subset: each is its own text.
            expanded += Int(max(0, entity.pointee.length))
        default:
            break   // predefined ones (&lt;) are their one character
        }
        if expanded > entityBudget { refuse(.entityExpansion(limit: entityBudget), parser) }
        return refusal == nil
    }

    /// Expanded sizes of general entities by name, capped just past the budget.
    private var sizes: [String: Int] = [:]
    /// libxml2's own limit on entities within entities.
    private static let maximumNesting = 40

    /// The bytes `entity` expands to, its references replaced by what they expand to (character
    /// references counted as written); nil when it refers to itself or nests past the limit.
    private func expandedSize(_ entity: xmlEntityPtr, document: xmlDocPtr?, visiting: inout Set<String>) -> Int? {
        let name = entity.pointee.name.map { String(cString: $0) } ?? ""
        if let known = sizes[name] { return known }
        guard visiting.count < Self.maximumNesting, visiting.insert(name).inserted else { return nil }
        defer { visiting.remove(name) }
        let cap = entityBudget + 1
        let length = Int(max(0, entity.pointee.length))
        guard let content = entity.pointee.content, length > 0 else { sizes[name] = 0; return 0 }
        let bytes = UnsafeBufferPointer(start: content, count: length)
        var total = 0, index = 0
        while index < bytes.count, total < cap {
            if bytes[index] == UInt8(ascii: "&"), index + 1 < bytes.count, bytes[index + 1] != UInt8(ascii: "#"),
               let semicolon = bytes[(index + 1)..<min(bytes.count, index + 256)].firstIndex(of: UInt8(ascii: ";")) {
                let reference = Array(bytes[(index + 1)..<semicolon]) + [0]
                let inner = reference.withUnsafeBufferPointer { xmlGetDocEntity(document, $0.baseAddress) }
                if let inner, inner.pointee.etype == XML_INTERNAL_GENERAL_ENTITY {
                    guard let size = expandedSize(inner, document: document, visiting: &visiting) else { return nil }
                    total += size
                } else {
                    total += 1   // predefined, undeclared or external: no more than a character here
                }
                index = semicolon + 1
            } else {
                total += 1
                index += 1
            }
        }
        total = min(total, cap)
        sizes[name] = total
        return total
    }

    func refuse(_ why: XMLRefusal, _ parser: xmlParserCtxtPtr) {
        if refusal == nil { refusal = why }
        xmlStopParser(parser)
    }
}
