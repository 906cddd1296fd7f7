import Foundation
import LectorBooks

/// Collects chapter loads made from many threads at once, for comparing with serial loads.
final class ResultsBox: @unchecked Sendable {
    private var results: [Result<Chapter, Error>?]
    private let lock = NSLock()

    init(count: Int) { results = Array(repeating: nil, count: count) }

    func set(_ index: Int, _ result: Result<Chapter, Error>) {
        lock.lock()
        results[index] = result
        lock.unlock()
    }

    var all: [Result<Chapter, Error>?] {
        lock.lock()
        defer { lock.unlock() }
        return results
    }
}
