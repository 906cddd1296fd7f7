import Foundation
import Hummingbird
import LectorSpawn
import NIOCore

/// The page's files (Page/: index.html, app.js, app.css), plain and unbuilt. Found in
/// `$LECTOR_VIEW_ASSETS`, then `PREFIX/share/lector/view` of the installed program
/// (`OwnExecutable.prefix`: /usr for /usr/libexec/lector/lector-view), then the
/// source tree this was built from.
public struct PageAssets: Sendable {
    public let directory: URL

    public init(directory: URL) {
        self.directory = directory
    }

    /// The first folder that holds index.html, or nil.
    public static func locate() -> PageAssets? {
        var candidates: [URL] = []
        if let explicit = ProcessInfo.processInfo.environment["LECTOR_VIEW_ASSETS"] {
            candidates.append(URL(fileURLWithPath: explicit))
        }
        if let prefix = OwnExecutable.prefix {
            candidates.append(URL(fileURLWithPath: prefix).appendingPathComponent("share/lector/view"))
        }
        candidates.append(URL(fileURLWithPath: "/usr/share/lector/view"))
        candidates.append(URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Page"))
        return candidates.first { FileManager.default.fileExists(atPath: $0.appendingPathComponent("index.html").path) }
            .map(PageAssets.init(directory:))
    }

    static let types = ["html": "text/html; charset=utf-8", "js": "text/javascript; charset=utf-8",
                        "css": "text/css; charset=utf-8", "svg": "image/svg+xml"]

    /// Image types a book may show on the page (no HTML, no script).
    public static let imageTypes: Set<String> = ["image/jpeg", "image/png", "image/gif", "image/webp", "image/svg+xml"]

    func response(_ name: String) throws -> Response {
        let data = try Data(contentsOf: directory.appendingPathComponent(name))
        let type = Self.types[(name as NSString).pathExtension] ?? "application/octet-stream"
        return Response(status: .ok, headers: [.contentType: type], body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }

    /// The image type by its first bytes (the cover file in the cache has no reliable name).
    static func imageType(of data: Data) -> String? {
        let head = [UInt8](data.prefix(12))
        if head.starts(with: [0x89, 0x50, 0x4E, 0x47]) { return "image/png" }
        if head.starts(with: [0xFF, 0xD8, 0xFF]) { return "image/jpeg" }
        if head.starts(with: Array("GIF8".utf8)) { return "image/gif" }
        if head.count >= 12, head.starts(with: Array("RIFF".utf8)), Array(head[8..<12]) == Array("WEBP".utf8) { return "image/webp" }
        if let text = String(data: data.prefix(512), encoding: .utf8), text.contains("<svg") { return "image/svg+xml" }
        return nil
    }
}
