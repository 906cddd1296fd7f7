import CLinux
import Foundation

/// One thread that runs work items in order, off the loop, and sleeps on a condition between
/// them: for the bookmark writes narration makes every few seconds. Not a dispatch queue: while
/// libdispatch's worker pool is busy now and then, its monitor wakes every second, and a
/// bookmark every 5 s kept it busy for as long as a book was read.
///
/// ```swift
/// let writer = SerialWorker(name: "lector-bookmarks")
/// writer.async { try? store.save(bookmark) }
/// writer.sync {}   // returns once everything queued before has run
/// ```
final class SerialWorker: @unchecked Sendable {
    private let condition = NSCondition()
    private var queue: [@Sendable () -> Void] = []   // guarded by condition
    private var closed = false                        // guarded by condition

    init(name: String) {
        let thread = Thread { [condition = condition, self] in
            _ = name.withCString { lector_name_this_thread($0) }
            self.run(condition)
        }
        thread.start()
    }

    /// Runs `work` after everything queued before it.
    func async(_ work: @escaping @Sendable () -> Void) {
        let queued = condition.withLock {
            guard !closed else { return false }
            queue.append(work)
            return true
        }
        // After the unlock: the thread must not wake to a lock still taken (a second wake-up).
        if queued { condition.signal() }
    }

    /// Runs `work` after everything queued before it and waits for it.
    func sync(_ work: @escaping @Sendable () -> Void) {
        let done = DispatchSemaphore(value: 0)
        let queued = condition.withLock {
            guard !closed else { return false }
            queue.append { work(); done.signal() }
            return true
        }
        guard queued else { return }
        condition.signal()
        done.wait()
    }

    /// The thread ends once what is queued has run; nothing queued later runs.
    func close() {
        condition.withLock { closed = true }
        condition.signal()
    }

    private func run(_ condition: NSCondition) {
        while true {
            condition.lock()
            while queue.isEmpty && !closed { condition.wait() }
            if queue.isEmpty {
                condition.unlock()
                return
            }
            let work = queue.removeFirst()
            condition.unlock()
            work()
        }
    }
}
