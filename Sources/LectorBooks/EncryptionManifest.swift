import Foundation

/// `META-INF/encryption.xml`: which resources are encrypted.
///
/// Font obfuscation (IDPF or Adobe) only scrambles embedded fonts, so a book that encrypts
/// nothing but fonts can still be read aloud; anything else encrypted means DRM and the text
/// cannot be read:
///
///     <EncryptedData>… <CipherReference URI="EPUB/ch1.xhtml"/> …</EncryptedData>
///     // try EncryptionManifest.checkReadable(...)  throws .encrypted(resources: ["EPUB/ch1.xhtml"])
enum EncryptionManifest {
    static let path = "META-INF/encryption.xml"

    /// Throws `encrypted` listing every encrypted resource that is not a font.
    static func checkReadable(_ data: Data, package: PackageDocument, file: URL) throws(BookError) {
        let root = try MarkupElement.parse(data, path: path, file: file)
        var blocked: [String] = []
        for encrypted in root.descendants("EncryptedData") {
            guard let uri = encrypted.descendants("CipherReference").first?.attribute("URI") else { continue }
            let target: String
            switch ArchivePath.resolve(uri, from: "") {
            case .inside(let resolved, _): target = resolved
            case .external: continue
            case .escapes: throw .pathEscapesArchive(file: file, path: uri)
            }
            if let item = package.item(path: target), item.isFont { continue }
            if package.item(path: target) == nil, Self.hasFontExtension(target) { continue }
            blocked.append(target)
        }
        if !blocked.isEmpty { throw .encrypted(file: file, resources: blocked) }
    }

    private static func hasFontExtension(_ path: String) -> Bool {
        let lowered = path.lowercased()
        return [".ttf", ".otf", ".woff", ".woff2"].contains { lowered.hasSuffix($0) }
    }
}
