import Synchronization

/// Stops parses from another thread: a superseded Open, a replaced book, a closing daemon.
/// Every libxml2 callback of a guarded parse looks at it (`XMLReader`), so a parse stops within
/// one callback of `cancel()`.
///
///     let cancellation = ParseCancellation()
///     queue.async { try? XMLParseScope.run(cancellation: cancellation) { try BookReader.open(url) } }
///     cancellation.cancel()   // the parse stops at its next SAX event
public final class ParseCancellation: Sendable {
    private let flag = Atomic<Bool>(false)

    public init() {}

    public func cancel() { flag.store(true, ordering: .relaxed) }
    public var isCancelled: Bool { flag.load(ordering: .relaxed) }
}
