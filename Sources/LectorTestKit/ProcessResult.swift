import Foundation

/// Outcome of `TestSession.run`: everything a test needs to assert on or to print on failure.
public struct ProcessResult: Sendable, CustomStringConvertible {
    /// Exit code, or 128 + signal number when the process was killed by a signal (shell convention).
    public let status: Int32
    public let stdout: String
    public let stderr: String
    /// True when the timeout expired and the process (group) was killed.
    public let timedOut: Bool

    public var succeeded: Bool { status == 0 && !timedOut }

    public var description: String {
        "status \(status)\(timedOut ? " (timed out)" : "")\nstdout:\n\(stdout)\nstderr:\n\(stderr)"
    }
}
