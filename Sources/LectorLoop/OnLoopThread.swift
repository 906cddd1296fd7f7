/// Steps from a C callback into the loop's isolation. sd-event, sd-bus and libpulse call back
/// on the loop (main) thread; `MainActor.assumeIsolated` checks that at run time, and the
/// compiler checks everything inside. The C arguments are handed over as they are: they are
/// valid for this call only, on this thread, which is where `body` runs.
///
/// ```swift
/// pa_stream_set_write_callback(stream, { _, bytes, userdata in
///     onLoopThread(userdata) { Unmanaged<PlaybackStream>.fromOpaque($0!).takeUnretainedValue().fill() }
/// }, me)
/// ```
public func onLoopThread<Arguments, Result: Sendable>(_ arguments: Arguments,
                                                      _ body: @MainActor (Arguments) throws -> Result) rethrows -> Result {
    let handed = Handed(arguments)
    return try MainActor.assumeIsolated { try body(handed.value) }
}

/// C arguments carried into the isolated closure on the same thread (never across threads).
private struct Handed<Value>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}
