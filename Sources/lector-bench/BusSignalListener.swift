import Foundation

/// Collects a daemon's signals on a bus connection of its own, read by a thread of its own, so each
/// is dated when it reaches this process (not when the benchmark next looks). Uses `RawBusClient`,
/// so the benchmark needs no D-Bus library.
final class BusSignalListener: @unchecked Sendable {
    private let client: RawBusClient
    private let condition = NSCondition()
    private var received: [RawBusClient.Message] = []
    private var stopped = false
    private var endedBecause: String?

    /// `rules`: match rules, e.g. "type='signal',sender='io.github.lector.Lector1'" (the bus resolves a
    /// well-known sender to its current owner when the rule is added).
    init(address: String, rules: [String]) throws {
        client = try RawBusClient(address: address)
        for rule in rules { try client.addMatch(rule) }
        let thread = Thread { [self] in readUntilStopped() }
        thread.name = "BusSignalListener"
        thread.start()
    }

    /// How many signals have been received; pass it to `wait(after:)` to look only at later ones.
    var count: Int { condition.withLock { received.count } }

    /// Signals received since index `start`.
    func signals(from start: Int) -> [RawBusClient.Message] {
        condition.withLock { Array(received[min(start, received.count)...]) }
    }

    /// The first signal at index `start` or later that matches, waiting up to `timeout` for it.
    func wait(after start: Int, timeout: TimeInterval,
              for predicate: (RawBusClient.Message) -> Bool) -> RawBusClient.Message? {
        let deadline = Date(timeIntervalSinceNow: timeout)
        condition.lock()
        defer { condition.unlock() }
        var checked = start
        while true {
            while checked < received.count {
                if predicate(received[checked]) { return received[checked] }
                checked += 1
            }
            if endedBecause != nil || !condition.wait(until: deadline) { break }
        }
        while checked < received.count {
            if predicate(received[checked]) { return received[checked] }
            checked += 1
        }
        return nil
    }

    /// Why the reader stopped early (the bus went away), or nil while it reads.
    var failure: String? { condition.withLock { endedBecause } }

    func stop() { condition.withLock { stopped = true } }

    private func readUntilStopped() {
        while !condition.withLock({ stopped }) {
            do {
                guard let message = try client.nextMessage(deadline: Date(timeIntervalSinceNow: 0.5)),
                      message.isSignal else { continue }
                condition.lock()
                received.append(message)
                condition.broadcast()
                condition.unlock()
            } catch let error as RawBusClient.CallError where error.timedOut {
                continue
            } catch {
                condition.lock()
                endedBecause = "\(error)"
                condition.broadcast()
                condition.unlock()
                return
            }
        }
    }
}
