/// The daemon's components in the order they started, each with how it stops: `stopAll()` stops
/// them last-started first, so a component added to start-up is taken down in its place without a
/// second list to keep in step (systemd's `_cleanup_` in reverse declaration order).
///
/// ```swift
/// let loop = try EventLoop();        startup.add("event loop") { loop.close() }
/// let bus = try Bus.session();       startup.add("bus") { bus.close() }
/// startup.stopAll()                  // bus, then event loop
/// ```
@MainActor
final class StartupOrder {
    private var stops: [(name: String, stop: @MainActor () -> Void)] = []

    /// What started, in order (for tests and the journal).
    var names: [String] { stops.map(\.name) }

    func add(_ name: String, stop: @escaping @MainActor () -> Void) {
        stops.append((name, stop))
    }

    /// Stops everything, last started first; each once, however often it is called.
    func stopAll() {
        while let last = stops.popLast() { last.stop() }
    }
}
