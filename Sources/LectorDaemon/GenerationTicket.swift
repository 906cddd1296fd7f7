import Foundation

/// A generation counter read off the loop (the background book parsers ask whether their work
/// is still wanted) and advanced on it: one value, so the two sides cannot disagree.
final class GenerationTicket: @unchecked Sendable {
    private let lock = NSLock()
    private var value = 0   // guarded by lock

    /// The next generation, now the current one.
    func advance() -> Int { lock.lock(); defer { lock.unlock() }; value += 1; return value }
    func get() -> Int { lock.lock(); defer { lock.unlock() }; return value }
}
