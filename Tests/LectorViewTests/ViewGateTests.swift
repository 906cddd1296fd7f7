import Foundation
@testable import LectorView
import XCTest

/// The read-along server's gate, actions and event fan-out, without a server.
final class ViewGateTests: XCTestCase {
    private let gate = ViewGate(port: 40123, token: "a1b2c3d4e5f6a7b8c9d0e1f2a3b4c5d6e7f8a9b0c1d2e3f4a5b6c7d8e9f0a1b2")

    func testOwnHostAndTokenPassEverythingElseIsRefused() {
        let token = gate.token
        XCTAssertEqual(gate.check(host: "127.0.0.1:40123", origin: nil, cookie: "lector-view=\(token)", queryToken: nil), .allowed)
        XCTAssertEqual(gate.check(host: "localhost:40123", origin: "http://localhost:40123", cookie: "a=b; lector-view=\(token)",
                                  queryToken: nil), .allowed)
        XCTAssertEqual(gate.check(host: "127.0.0.1:40123", origin: nil, cookie: nil, queryToken: token), .allowedByURLToken)

        // DNS rebinding: the attacker's name, even with the right port and token.
        guard case .refused = gate.check(host: "evil.example:40123", origin: nil, cookie: nil, queryToken: token) else {
            return XCTFail("a foreign Host passed")
        }
        guard case .refused = gate.check(host: nil, origin: nil, cookie: "lector-view=\(token)", queryToken: nil) else {
            return XCTFail("no Host passed")
        }
        guard case .refused = gate.check(host: "127.0.0.1:40124", origin: nil, cookie: "lector-view=\(token)", queryToken: nil) else {
            return XCTFail("another port passed")
        }
        // Another site's page posting to us.
        guard case .refused = gate.check(host: "127.0.0.1:40123", origin: "http://evil.example", cookie: "lector-view=\(token)",
                                         queryToken: nil) else { return XCTFail("a foreign Origin passed") }
        for wrong in ["", String(token.dropLast()), token + "0", String(token.reversed()), "lector-view"] {
            guard case .refused = gate.check(host: "127.0.0.1:40123", origin: nil, cookie: "lector-view=\(wrong)",
                                             queryToken: wrong) else { return XCTFail("token \"\(wrong)\" passed") }
        }
    }

    func testTheCookieIsStrictAndHiddenFromScripts() {
        XCTAssertTrue(gate.cookie.hasPrefix("lector-view=\(gate.token);"))
        XCTAssertTrue(gate.cookie.contains("SameSite=Strict"))
        XCTAssertTrue(gate.cookie.contains("HttpOnly"))
    }

    func testTokensAreLongAndDifferent() {
        let tokens = (0..<100).map { _ in ViewGate.makeToken() }
        XCTAssertEqual(Set(tokens).count, 100)
        XCTAssertTrue(tokens.allSatisfy { $0.count == 64 && $0.allSatisfy(\.isHexDigit) })
    }

    func testActionsParseOnlyWhatThePageSendsInRange() {
        func parse(_ json: String) -> ViewAction? { ViewAction.parse(Array(json.utf8)) }
        XCTAssertEqual(parse(#"{"action":"playPause"}"#), .playPause)
        XCTAssertEqual(parse(#"{"action":"skip","seconds":-15}"#), .skip(seconds: -15))
        XCTAssertEqual(parse(#"{"action":"rate","rate":1.5}"#), .rate(1.5))
        XCTAssertEqual(parse(#"{"action":"seekToText","chapter":3,"offset":1200}"#), .seekToText(chapter: 3, offset: 1200))
        XCTAssertEqual(parse(#"{"action":"goToChapter","chapter":2}"#), .goToChapter(2))
        XCTAssertEqual(parse(#"{"action":"voice","voice":"joe"}"#), .voice("joe"))
        XCTAssertEqual(parse(#"{"action":"voice","voice":"English (America, New York City)"}"#), .voice("English (America, New York City)"))
        XCTAssertEqual(parse(#"{"action":"voice","voice":"Ελληνικά"}"#), .voice("Ελληνικά"))
        for bad in [#"{"action":"frobnicate"}"#, #"{"action":"skip"}"#, #"{"action":"skip","seconds":1e9}"#,
                    #"{"action":"rate","rate":-1}"#, #"{"action":"seekToText","chapter":-1,"offset":0}"#,
                    #"{"action":"seekToText","chapter":1,"offset":99999999999}"#, "not json", "",
                    // A voice: a name D-Bus can carry, of a voice's length.
                    #"{"action":"voice"}"#, #"{"action":"voice","voice":""}"#, #"{"action":"voice","voice":3}"#,
                    #"{"action":"voice","voice":["joe"]}"#, #"{"action":"voice","voice":null}"#,
                    #"{"action":"voice","voice":"jo\u0000e"}"#, #"{"action":"voice","voice":"joe\n"}"#,
                    #"{"action":"voice","voice":"\ufdd0"}"#, #"{"action":"voice","voice":"\uffff"}"#,
                    #"{"action":"voice","voice":"\#(String(repeating: "j", count: 257))"}"#] {
            XCTAssertNil(parse(bad), bad)
        }
        XCTAssertEqual(parse(#"{"action":"voice","voice":"\#(String(repeating: "j", count: 256))"}"#),
                       .voice(String(repeating: "j", count: 256)))
    }

    /// A daemon error the page's request caused is a 4xx (its message goes with it); the daemon
    /// not running is 503; anything else of the daemon's, 502.
    func testDaemonErrorsTheRequestCausedAreClientErrors() {
        let status = { (name: String) in ViewServer.status(forError: name).code }
        XCTAssertEqual(status("io.github.lector.Error.UnknownVoice"), 400)
        XCTAssertEqual(status("io.github.lector.Error.InvalidArgument"), 400)
        XCTAssertEqual(status("io.github.lector.Error.NotFound"), 404)
        XCTAssertEqual(status("io.github.lector.Error.NoBook"), 409)
        XCTAssertEqual(status("io.github.lector.Error.BadBook"), 502)
        XCTAssertEqual(status("io.github.lector.Error.Failed"), 502)
        XCTAssertEqual(status("io.github.lector.Error.Nonsense"), 502)
        XCTAssertEqual(status("Failed"), 502)
        XCTAssertEqual(status("org.freedesktop.DBus.Error.ServiceUnknown"), 503)
        XCTAssertEqual(status("org.freedesktop.DBus.Error.NoReply"), 503)
    }

    /// The state event carries the book's voices for the picker, the one reading it named.
    func testTheStateCarriesTheBooksVoices() throws {
        var snapshot = ViewSnapshot()
        snapshot.running = true
        let json = #"{"title":"T","authors":"","chapter":0,"chapterCount":1,"url":"file:///b.epub","hasCover":false,"language":"en","#
            + #""voice":"joe","voices":[{"name":"joe","language":"en-us","engine":"piper","quality":"medium"}]}"#
        snapshot.book = try JSONDecoder().decode(ViewSnapshot.Book.self, from: Data(json.utf8))
        let encoded = try XCTUnwrap(JSONSerialization.jsonObject(with: JSONEncoder().encode(snapshot)) as? [String: Any])
        let book = try XCTUnwrap(encoded["book"] as? [String: Any])
        XCTAssertEqual(book["voice"] as? String, "joe")
        XCTAssertEqual(book["voices"] as? [[String: String]], [["name": "joe", "language": "en-us", "engine": "piper", "quality": "medium"]])
    }

    func testEventsReachEveryPageAndNewPagesGetTheLatestState() async {
        let counts = CountLog()
        let events = ViewEvents { counts.append($0) }
        events.publish("state", #"{"running":true}"#)
        let (first, stream) = events.subscribe()
        events.publish("range", #"{"start":1}"#)
        events.unsubscribe(first)
        var frames: [String] = []
        for await frame in stream { frames.append(String(buffer: frame)) }
        XCTAssertEqual(frames.count, 3, "\(frames)")
        XCTAssertTrue(frames[1].hasPrefix("event: state\ndata: {\"running\":true}"), "the latest state first: \(frames)")
        XCTAssertEqual(frames[2], "event: range\ndata: {\"start\":1}\n\n")
        XCTAssertEqual(counts.values, [1, 0], "the server hears when the last page goes")
    }
}

private final class CountLog: @unchecked Sendable {
    private let lock = NSLock()
    private var counts: [Int] = []
    func append(_ count: Int) { lock.withLock { counts.append(count) } }
    var values: [Int] { lock.withLock { counts } }
}
