import Foundation

/// `bookGeneration` for the background chapter loader, which runs off the loop.
final class GenerationTicket: @unchecked Sendable {
    private let lock = NSLock()
    private var value = 0
    func set(_ new: Int) { lock.lock(); value = new; lock.unlock() }
    func get() -> Int { lock.lock(); defer { lock.unlock() }; return value }
}
