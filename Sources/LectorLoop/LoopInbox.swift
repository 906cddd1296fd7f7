import CLectorShim
import CSystemd
import Foundation

/// Work posted to the event loop from other threads (a book parsed in the background, a
/// bookmark written): the one way back onto the loop, through an eventfd it watches.
public final class LoopInbox: @unchecked Sendable {
    private let lock = NSLock()
    private var work: [() -> Void] = []     // guarded by lock
    private let fd: Int32
    private var source: EventSource?

    public init(loop: EventLoop) throws {
        fd = eventfd(0, Int32(EFD_CLOEXEC | EFD_NONBLOCK))
        guard fd >= 0 else { throw SystemError(errno: errno, "eventfd") }
        source = try loop.watch(fd: fd) { [unowned self] _ in self.run() }
    }

    deinit { close(fd) }

    /// Any thread: run `body` on the loop thread soon.
    public func post(_ body: @escaping () -> Void) {
        lock.lock()
        work.append(body)
        lock.unlock()
        var one: UInt64 = 1
        _ = write(fd, &one, 8)
    }

    private func run() {
        var counter: UInt64 = 0
        _ = read(fd, &counter, 8)
        lock.lock()
        let batch = work
        work.removeAll()
        lock.unlock()
        for body in batch { body() }
    }
}
