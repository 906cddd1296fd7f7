import Glibc

/// What the XML parses on this thread may spend, set once around a whole job (an Open, one
/// chapter load) instead of being passed through every call down to the parser:
/// a cancellation, and a CPU budget counted in this thread's CPU time from the scope's start.
///
///     try XMLParseScope.run(cancellation: token, cpuSeconds: 5) { try BookReader.open(url) }
///
/// Outside any scope a parse has no cancellation and `defaultCPUSeconds`, counted from its own start.
public struct XMLParseScope: Sendable {
    /// Real books open in milliseconds (a 20,000-document spine in 6 s of a debug build under
    /// load); a hostile one must not hold a core for minutes.
    public static let defaultCPUSeconds: Double = 10

    public let cancellation: ParseCancellation?
    public let cpuSeconds: Double
    /// This thread's CPU time when the scope began, in seconds.
    let startedAt: Double

    @TaskLocal static var current: XMLParseScope?

    /// Runs `body` with its parses under `cancellation` and `cpuSeconds` of this thread's CPU.
    public static func run<T, E: Error>(cancellation: ParseCancellation?, cpuSeconds: Double = defaultCPUSeconds,
                                        _ body: () throws(E) -> T) throws(E) -> T {
        let scope = XMLParseScope(cancellation: cancellation, cpuSeconds: cpuSeconds, startedAt: threadCPUSeconds())
        let result: Result<T, E> = $current.withValue(scope) {
            do throws(E) { return .success(try body()) } catch { return .failure(error) }
        }
        return try result.get()
    }

    /// Runs `body` in the scope already in force (an Open's whole parse is one budget), or in a
    /// new one with `cancellation` when there is none (a chapter loaded later).
    public static func within<T, E: Error>(cancellation: ParseCancellation?, _ body: () throws(E) -> T) throws(E) -> T {
        if current != nil { return try body() }
        return try run(cancellation: cancellation, body)
    }

    /// The scope in force on this thread, or one begun now for a parse outside any.
    static func inForce() -> XMLParseScope {
        current ?? XMLParseScope(cancellation: nil, cpuSeconds: defaultCPUSeconds, startedAt: threadCPUSeconds())
    }

    var cpuSpent: Double { Self.threadCPUSeconds() - startedAt }

    static func threadCPUSeconds() -> Double {
        var now = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now)
        return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
    }
}
