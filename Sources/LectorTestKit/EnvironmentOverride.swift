import Foundation

/// Sets variables of this process's environment for a test and puts back what was there: the
/// components under test read the environment themselves (`PULSE_SERVER`, the session bus,
/// XDG directories), as they do in the daemon.
///
///     let overridden = EnvironmentOverride(["PULSE_SERVER": session.pulseServer])
///     defer { overridden.restore() }
public struct EnvironmentOverride: Sendable {
    private let saved: [String: String?]

    public init(_ values: [String: String]) {
        let current = ProcessInfo.processInfo.environment
        saved = values.keys.reduce(into: [:]) { $0[$1] = .some(current[$1]) }
        for (key, value) in values { setenv(key, value, 1) }
    }

    public func restore() {
        for (key, value) in saved {
            if let value { setenv(key, value, 1) } else { unsetenv(key) }
        }
    }
}
