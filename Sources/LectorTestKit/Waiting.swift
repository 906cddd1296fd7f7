import Foundation

/// Waits for `condition` with a deadline, polling every 10 ms: true as soon as it holds, false if
/// it never did. Tests wait for what they expect, never for a fixed time.
///
/// ```swift
/// XCTAssertTrue(try poll(timeout: 5) { try fixture.status() == "Paused" })
/// ```
public func poll(timeout: TimeInterval, _ condition: () throws -> Bool) rethrows -> Bool {
    let deadline = Date(timeIntervalSinceNow: timeout)
    while true {
        if try condition() { return true }
        if Date() >= deadline { return false }
        usleep(10_000)
    }
}

/// Waits for `value` to be non-nil, like `poll`: the value as soon as there is one, nil if never.
///
/// ```swift
/// let worker = pollValue(timeout: 10) { ProcessProbe.children(of: daemon, named: "lector-piper").first }
/// ```
public func pollValue<Value>(timeout: TimeInterval, _ value: () throws -> Value?) rethrows -> Value? {
    var found: Value?
    _ = try poll(timeout: timeout) {
        found = try value()
        return found != nil
    }
    return found
}

/// For claims that something stays so ("still paused after the call"): checks `condition`
/// every 100 ms for `duration` and is false the moment it does not hold, so a brief change in
/// between is caught, not slept through.
///
/// ```swift
/// XCTAssertTrue(try holds(for: 1.5) { try fixture.status() == "Paused" }, "resumed by itself")
/// ```
public func holds(for duration: TimeInterval, _ condition: () throws -> Bool) rethrows -> Bool {
    let deadline = Date(timeIntervalSinceNow: duration)
    repeat {
        guard try condition() else { return false }
        usleep(100_000)
    } while Date() < deadline
    return try condition()
}
