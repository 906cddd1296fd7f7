import Foundation

/// Why a test-kit operation failed; descriptions carry enough context (logs, output) to debug a CI failure.
public enum TestKitError: Error, CustomStringConvertible {
    case executableNotFound(String)
    case timedOut(String)
    case failed(String)

    public var description: String {
        switch self {
        case .executableNotFound(let name): return "executable not found on PATH: \(name)"
        case .timedOut(let what): return "timed out: \(what)"
        case .failed(let what): return "failed: \(what)"
        }
    }
}
