import Foundation

/// Collects the signals one bus name emits, via `gdbus monitor --session --dest NAME`.
///
/// gdbus follows the name's owner (so a restarted daemon is followed), but it subscribes only
/// after it has learnt the owner: signals sent in the first moments after the name appears can
/// be missed. When the very first signals matter, create the watcher after the name is owned,
/// or call `waitUntilSubscribed()` before triggering them.
/// gdbus also asks the bus to auto-start the name, so watching an activatable name starts it.
/// Its reader thread keeps it alive until gdbus ends: `stop()` or the session's `shutdown()` ends it.
public final class SignalWatcher: @unchecked Sendable {
    public let busName: String
    private let process: ManagedProcess
    private let condition = NSCondition()
    private var observed: [ObservedSignal] = []
    private var lines: [String] = []
    private var ownerKnown = false
    /// When gdbus last reported an owner (and so subscribed to it); nil while the name has none.
    private var subscribedAt: Date?
    /// gdbus prints the owner line before it sends AddMatch; this covers that message reaching the bus.
    private static let subscriptionSettleTime: TimeInterval = 0.1
    private var streamEnded = false

    init(busName: String, process: ManagedProcess) {
        self.busName = busName
        self.process = process
        let thread = Thread { [self] in readUntilEndOfStream() }
        thread.name = "SignalWatcher(\(busName))"
        thread.start()
    }

    /// Blocks until gdbus has resolved the name (owned → subscribed, or not owned → watching for it).
    func waitUntilWatching(timeout: TimeInterval) throws {
        let deadline = Date(timeIntervalSinceNow: timeout)
        condition.lock()
        while !ownerKnown && !streamEnded && condition.wait(until: deadline) {}
        let ready = ownerKnown
        condition.unlock()
        guard ready else {
            process.terminate(grace: 1)
            throw TestKitError.timedOut("gdbus monitor for \(busName) did not start:\n\(transcript)\n\(process.output)")
        }
        _ = waitUntilSubscribed(timeout: 0)
    }

    /// Blocks until the name has an owner and gdbus has subscribed to its signals; false on timeout.
    /// Use it when the name appears after the watcher was created, before triggering signals.
    public func waitUntilSubscribed(timeout: TimeInterval = 10) -> Bool {
        let deadline = Date(timeIntervalSinceNow: timeout)
        condition.lock()
        while subscribedAt == nil && !streamEnded && condition.wait(until: deadline) {}
        let since = subscribedAt
        condition.unlock()
        guard let since else { return false }
        let settled = since.addingTimeInterval(Self.subscriptionSettleTime)
        if settled > Date() { Thread.sleep(until: settled) }
        return true
    }

    /// Signals seen so far, in arrival order, optionally only those with this member name.
    public func signals(named member: String? = nil) -> [ObservedSignal] {
        condition.lock()
        defer { condition.unlock() }
        guard let member else { return observed }
        return observed.filter { $0.member == member }
    }

    /// The first signal (already seen or arriving within `timeout`) that matches `predicate`, or nil.
    public func wait(timeout: TimeInterval = 10, for predicate: (ObservedSignal) -> Bool) -> ObservedSignal? {
        let deadline = Date(timeIntervalSinceNow: timeout)
        condition.lock()
        defer { condition.unlock() }
        var checked = 0
        while true {
            while checked < observed.count {
                if predicate(observed[checked]) { return observed[checked] }
                checked += 1
            }
            if streamEnded || !condition.wait(until: deadline) { break }
        }
        while checked < observed.count {  // whatever arrived together with the timeout
            if predicate(observed[checked]) { return observed[checked] }
            checked += 1
        }
        return nil
    }

    /// Everything gdbus printed so far, for failure messages.
    public var transcript: String {
        condition.lock()
        defer { condition.unlock() }
        return lines.joined(separator: "\n")
    }

    /// The session terminates all its processes together at shutdown.
    var processForShutdown: ManagedProcess { process }

    public func stop() {
        process.terminate(grace: 1)
    }

    private func readUntilEndOfStream() {
        let descriptor = process.pipeReadDescriptor
        var buffer = [UInt8](repeating: 0, count: 4096)
        var pending: [UInt8] = []
        while true {
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            if count <= 0 { break }
            let arrival = Date()
            pending.append(contentsOf: buffer[0..<count])
            while let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: pending[..<newline], as: UTF8.self)
                pending.removeSubrange(...newline)
                record(line, arrivedAt: arrival)
            }
        }
        close(descriptor)
        condition.lock()
        streamEnded = true
        condition.broadcast()
        condition.unlock()
    }

    private func record(_ line: String, arrivedAt arrival: Date) {
        let signal = ObservedSignal(monitorLine: line, receivedAt: arrival)
        condition.lock()
        lines.append(line)
        if let signal { observed.append(signal) }
        if line.hasPrefix("The name \(busName) is owned by ") {
            ownerKnown = true
            subscribedAt = arrival
        } else if line.hasPrefix("The name \(busName) does not have an owner") {
            ownerKnown = true
            subscribedAt = nil
        }
        condition.broadcast()
        condition.unlock()
    }
}
