import Foundation

/// Decides whether a request may reach the read-along page: a loopback port is open to every
/// local program and, through DNS rebinding, to every web page the user visits.
///
/// A request passes when its `Host` is this server's own loopback address (a rebinding page
/// sends its own host name), its `Origin`, if any, is this server, and it carries the token,
/// from the URL the user was given or from the cookie set on the first visit:
///
///     let gate = ViewGate(port: 40123, token: "9f…")
///     gate.check(host: "127.0.0.1:40123", origin: nil, cookie: "lector-view=9f…", queryToken: nil)  // .allowed
///     gate.check(host: "evil.example:40123", origin: nil, cookie: nil, queryToken: "9f…")        // .refused(…)
public struct ViewGate: Sendable {
    public enum Verdict: Equatable, Sendable {
        case allowed
        /// Allowed, by the token in the URL: answer with the cookie so later requests need no token.
        case allowedByURLToken
        case refused(String)
    }

    public static let cookieName = "lector-view"

    public let port: Int
    public let token: String

    public init(port: Int, token: String) {
        self.port = port
        self.token = token
    }

    /// The host names this server answers to.
    public var allowedHosts: Set<String> { ["127.0.0.1:\(port)", "localhost:\(port)"] }

    public func check(host: String?, origin: String?, cookie: String?, queryToken: String?) -> Verdict {
        guard let host, allowedHosts.contains(host.lowercased()) else {
            return .refused("Host \(host ?? "(none)") is not this server")
        }
        if let origin, !allowedHosts.contains(where: { "http://\($0)" == origin.lowercased() }) {
            return .refused("Origin \(origin) is not this server")
        }
        if let cookieToken = Self.cookieValue(named: Self.cookieName, in: cookie), Self.equal(cookieToken, token) {
            return .allowed
        }
        if let queryToken, Self.equal(queryToken, token) { return .allowedByURLToken }
        return .refused("no valid token (open the page with the URL `lector view` gives)")
    }

    /// The `Set-Cookie` value that carries the token from then on: never sent cross-site, never
    /// visible to scripts.
    public var cookie: String {
        "\(Self.cookieName)=\(token); Path=/; HttpOnly; SameSite=Strict"
    }

    static func cookieValue(named name: String, in header: String?) -> String? {
        guard let header else { return nil }
        for pair in header.split(separator: ";") {
            let parts = pair.split(separator: "=", maxSplits: 1)
            if parts.count == 2, parts[0].trimmingCharacters(in: .whitespaces) == name {
                return parts[1].trimmingCharacters(in: .whitespaces)
            }
        }
        return nil
    }

    /// Compares in time independent of where the strings differ, so timing does not leak the token.
    static func equal(_ a: String, _ b: String) -> Bool {
        let x = Array(a.utf8), y = Array(b.utf8)
        var difference = UInt8(x.count == y.count ? 0 : 1)
        for index in 0..<max(x.count, y.count) {
            difference |= (index < x.count ? x[index] : 0) ^ (index < y.count ? y[index] : 0)
        }
        return difference == 0
    }

    /// 32 random bytes from the system's generator (getrandom), as hex.
    public static func makeToken() -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<32).map { _ in
            let byte = UInt8.random(in: 0...255, using: &generator)
            return String(byte, radix: 16).count == 1 ? "0" + String(byte, radix: 16) : String(byte, radix: 16)
        }.joined()
    }
}
