import Foundation
import LectorTestKit
import XCTest

/// What the read-along tests share: the page's server and the chapter text the page shows.
extension PlayerFixture {
    /// `lector view --no-browser`: its first line is the page's address.
    func startViewServer(idleExit: Int = 600) throws -> (ManagedProcess, String) {
        let server = try session.spawn(lector, ["view", "--no-browser", "--idle-exit", String(idleExit)])
        var address: String?
        _ = poll(timeout: 15) {
            address = server.standardOutput.split(separator: "\n").first.map(String.init)
            return address != nil || !server.isRunning
        }
        guard let address, address.hasPrefix("http://127.0.0.1:"), address.contains("/?token=") else {
            throw FixtureError("lector view printed no address: \(server.output)")
        }
        return (server, address)
    }

    /// The chapter's speakable text, as SpeakingRange counts it.
    func chapterText(_ chapter: Int) throws -> [Unicode.Scalar] {
        let answer = try busctl(["--json=short", "call", PlayerFixture.mprisName, PlayerFixture.narratorPath,
                                 PlayerFixture.narrator, "GetChapterText", "u", String(chapter)])
        let decoded = try JSONSerialization.jsonObject(with: Data(answer.stdout.utf8)) as? [String: Any]
        let text = try XCTUnwrap((decoded?["data"] as? [Any])?.last as? String, answer.stdout)
        return Array(text.unicodeScalars)
    }

    static func slice(_ text: [Unicode.Scalar], _ start: Int, _ length: Int) -> String {
        guard start >= 0, start + length <= text.count else { return "<outside \(text.count)>" }
        return String(String.UnicodeScalarView(text[start..<(start + length)]))
    }
}
