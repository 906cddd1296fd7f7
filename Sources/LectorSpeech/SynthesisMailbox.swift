import Foundation
import CLinux
import Glibc

/// The one place the synthesis thread and the event loop meet, hence the one lock.
///
/// The synthesis thread `push`es; an eventfd wakes the loop, which `drain`s. Audio counts as
/// buffered until the loop reports it `consumed` (written to the sound server), and `push` blocks
/// above `highWaterFrames`: a long text never piles up more than that much PCM in memory. A
/// blocked producer is woken once half of it has been consumed, not at every write to the sound
/// server (which made the speech thread wake for each 20 ms chunk that fit again).
public final class SynthesisMailbox: @unchecked Sendable {
    /// Readable when there is something to drain. Owned by the mailbox; the loop only watches it.
    public let fileDescriptor: Int32
    public let highWaterFrames: Int

    private let condition = NSCondition()
    private var items: [SynthesisOutput] = []
    private var bufferedFrames = 0
    private var cancelled: Set<UInt64> = []
    private var producerWaiting = false

    public init(highWaterFrames: Int) throws {
        let fd = eventfd(0, Int32(EFD_CLOEXEC | EFD_NONBLOCK))
        guard fd >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        fileDescriptor = fd
        self.highWaterFrames = highWaterFrames
    }

    deinit { close(fileDescriptor) }

    /// Synthesis thread: queue an output, waiting while too much audio is buffered. Returns false
    /// (dropping the output) if its speech was cancelled meanwhile.
    @discardableResult
    public func push(_ output: SynthesisOutput) -> Bool {
        push([output])
    }

    /// Synthesis thread: queue several outputs of one speech at once (one wake-up of the loop).
    /// Returns false, dropping all but a `finished`, if the speech was cancelled.
    @discardableResult
    public func push(_ outputs: [SynthesisOutput]) -> Bool {
        guard let id = outputs.first?.id else { return true }
        condition.lock()
        let frames = outputs.reduce(0) { total, output in
            if case .audio(_, let samples) = output { return total + samples.count }
            return total
        }
        if frames > 0 {
            while bufferedFrames >= highWaterFrames && !cancelled.contains(id) {
                producerWaiting = true
                condition.wait()
            }
            producerWaiting = false
        }
        let wasCancelled = cancelled.contains(id)
        if wasCancelled {
            let finish = outputs.filter(isFinish)
            guard !finish.isEmpty else {
                condition.unlock()
                return false
            }
            items.append(contentsOf: finish)
        } else {
            bufferedFrames += frames
            items.append(contentsOf: outputs)
        }
        condition.unlock()
        // After the unlock: the loop wakes to drain, and must not find the lock still taken.
        var one: UInt64 = 1
        _ = write(fileDescriptor, &one, 8)
        return !wasCancelled
    }

    /// Synthesis thread: whether the speech it is producing should stop.
    public func isCancelled(_ id: UInt64) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        return cancelled.contains(id)
    }

    /// Event loop: take everything queued so far.
    public func drain() -> [SynthesisOutput] {
        var counter: UInt64 = 0
        _ = read(fileDescriptor, &counter, 8)
        condition.lock()
        defer { condition.unlock() }
        let taken = items
        items.removeAll(keepingCapacity: true)
        return taken
    }

    /// Event loop: `frames` of drained audio reached the sound server (or were dropped).
    public func consumed(frames: Int) {
        condition.lock()
        bufferedFrames = max(0, bufferedFrames - frames)
        let wake = producerWaiting && bufferedFrames <= highWaterFrames / 2
        condition.unlock()
        if wake { condition.broadcast() }
    }

    /// Any thread: stop producing `id`. Its queued audio is dropped here; the loop drops what it
    /// already drained. The `finished` output still arrives, so the loop can close the speech.
    public func cancel(_ id: UInt64) {
        condition.lock()
        cancelled.insert(id)
        items.removeAll { output in
            guard output.id == id, case .audio(_, let samples) = output else { return false }
            bufferedFrames -= samples.count
            return true
        }
        condition.broadcast()
        condition.unlock()
    }

    /// Event loop: the speech is closed; forget it.
    public func forget(_ id: UInt64) {
        condition.lock()
        cancelled.remove(id)
        condition.unlock()
    }

    private func isFinish(_ output: SynthesisOutput) -> Bool {
        if case .finished = output { return true }
        return false
    }
}
