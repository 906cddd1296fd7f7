import Foundation

/// What the OPF package document says about a book: metadata, manifest, spine, and where the
/// table of contents and the cover are.
///
/// Metadata follows EPUB 3 refinements when present and EPUB 2 attributes otherwise:
///
///     <dc:title id="t1">Children's Literature</dc:title>
///     <meta refines="#t1" property="title-type">main</meta>
///     <dc:title id="t2">A Textbook of Sources…</dc:title>       → title "Children's Literature"
///
///     <dc:creator opf:role="aut">A</dc:creator>
///     <dc:creator opf:role="ill">B</dc:creator>                → authors ["A"]
struct PackageDocument: Sendable {
    var path: String
    /// `version` attribute of `<package>`, e.g. "3.0" or "2.0".
    var version: String
    var identifier: String?
    var title: String?
    var authors: [String]
    var language: String?
    var manifest: [ManifestItem]
    var spine: [SpineItem]
    /// The spine's `toc` attribute: the NCX's manifest id (EPUB 2).
    var spineTOCID: String?
    /// `<meta name="cover" content="…">` (EPUB 2): usually a manifest id, sometimes an href.
    var coverMetaContent: String?
    /// `<guide><reference type="cover" href="…">`, resolved: an XHTML page showing the cover.
    var guideCoverPath: String?
    /// `<guide><reference type="toc" href="…">`, resolved: the book's own contents page.
    var guideTOCPath: String?

    var isEPUB3: Bool { version.hasPrefix("3") }

    func item(id: String) -> ManifestItem? { manifest.first { $0.id == id } }

    func item(path: String) -> ManifestItem? { manifest.first { $0.path == path } }

    init(root: MarkupElement, path: String, file: URL) throws(BookError) {
        self.path = path
        version = root.attribute("version") ?? "2.0"
        let metadata = root.firstChild("metadata") ?? MarkupElement(qualifiedName: "metadata", attributes: [:],
                                                                    content: [], line: 0)
        // EPUB 2 may wrap Dublin Core in <dc-metadata>; look one level down too.
        let metaElements = metadata.elements + metadata.elements.filter { $0.name.hasSuffix("metadata") }
            .flatMap(\.elements)
        let refinements = Self.refinements(metaElements)

        let identifiers = metaElements.filter { $0.name == "identifier" }
        let uniqueID = root.attribute("unique-identifier")
        identifier = (identifiers.first { uniqueID != nil && $0.attribute("id") == uniqueID } ?? identifiers.first)
            .map(\.textContent).flatMap { $0.isEmpty ? nil : $0 }

        let titles = metaElements.filter { $0.name == "title" && !$0.textContent.isEmpty }
        let mainTitle = titles.first { element in
            guard let id = element.attribute("id") else { return false }
            return refinements[id]?["title-type"] == "main"
        }
        title = (mainTitle ?? titles.first)?.textContent

        let creators = metaElements.filter { $0.name == "creator" && !$0.textContent.isEmpty }
        let roles: [String?] = creators.map { creator in
            let refined = creator.attribute("id").flatMap { refinements[$0]?["role"] }
            return (refined ?? creator.attribute("role"))?.lowercased()
        }
        let names = creators.map { Self.displayName($0.textContent) }
        if roles.contains(where: { $0 != nil }) {
            let authors = zip(names, roles).filter { $0.1 == nil || $0.1 == "aut" }.map(\.0)
            self.authors = authors.isEmpty ? names : authors
        } else {
            authors = names
        }

        language = metaElements.first { $0.name == "language" && !$0.textContent.isEmpty }?.textContent
        coverMetaContent = metaElements.first { $0.name == "meta" && $0.attribute("name") == "cover" }?
            .attribute("content")

        var manifest: [ManifestItem] = []
        for item in root.firstChild("manifest")?.children("item") ?? [] {
            guard let id = item.attribute("id"), let href = item.attribute("href") else { continue }
            let resolvedPath: String?
            switch ArchivePath.resolve(href, from: path) {
            case .inside(let itemPath, _): resolvedPath = itemPath
            case .external: resolvedPath = nil
            case .escapes: throw .pathEscapesArchive(file: file, path: href)
            }
            let properties = Set((item.attribute("properties") ?? "").split(whereSeparator: \.isWhitespace)
                .map { String($0) })
            manifest.append(ManifestItem(id: id, path: resolvedPath,
                                         mediaType: item.attribute("media-type") ?? "", properties: properties))
        }
        self.manifest = manifest

        let spineElement = root.firstChild("spine")
        spineTOCID = spineElement?.attribute("toc")
        spine = (spineElement?.children("itemref") ?? []).compactMap { itemref in
            guard let idref = itemref.attribute("idref") else { return nil }
            return SpineItem(idref: idref, isLinear: itemref.attribute("linear")?.lowercased() != "no")
        }

        guideCoverPath = nil
        let guideCover = root.firstChild("guide")?.children("reference").first {
            $0.attribute("type")?.lowercased() == "cover"
        }
        guideTOCPath = nil
        if let href = root.firstChild("guide")?.children("reference")
            .first(where: { $0.attribute("type")?.lowercased() == "toc" })?.attribute("href"),
           case .inside(let tocPath, _) = ArchivePath.resolve(href, from: path) {
            guideTOCPath = tocPath
        }
        if let href = guideCover?.attribute("href") {
            switch ArchivePath.resolve(href, from: path) {
            case .inside(let coverPath, _): guideCoverPath = coverPath
            case .external: break
            case .escapes: throw .pathEscapesArchive(file: file, path: href)
            }
        }
    }

    /// `<meta refines="#id" property="p">value</meta>` as `[id: [p: value]]`.
    private static func refinements(_ elements: [MarkupElement]) -> [String: [String: String]] {
        var result: [String: [String: String]] = [:]
        for meta in elements where meta.name == "meta" {
            guard let refines = meta.attribute("refines"), let property = meta.attribute("property") else { continue }
            let id = refines.hasPrefix("#") ? String(refines.dropFirst()) : refines
            if result[id, default: [:]][property] == nil {
                result[id, default: [:]][property] = meta.textContent
            }
        }
        return result
    }
}

extension PackageDocument {
    /// A creator as a lock screen should show it: "Live Systems Project <team@example.org>"
    /// becomes "Live Systems Project" (an address in angle brackets is contact data, not a name).
    static func displayName(_ creator: String) -> String {
        guard let open = creator.firstIndex(of: "<"), let close = creator[open...].firstIndex(of: ">"),
              creator[open..<close].contains("@") || creator[open..<close].contains("://") else { return creator }
        let name = (creator[..<open] + creator[creator.index(after: close)...])
            .trimmingCharacters(in: .whitespaces)
        return name.isEmpty ? creator : name
    }
}
