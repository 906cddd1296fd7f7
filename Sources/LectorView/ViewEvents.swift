import Foundation
import NIOCore

/// The pages listening, and what they are told: Server-Sent Events, one stream per open page.
///
/// Called from the loop (publishing) and from the HTTP threads (pages coming and going), so it
/// keeps its own lock. The last `state` event is replayed to a page that connects while others
/// are open, so it shows the book at once (the first page gets one read for it):
///
///     let (id, stream) = events.subscribe()      // the page's /events request
///     events.publish("range", #"{"start":120,"length":5}"#)
///     events.unsubscribe(id)                     // the page closed
public final class ViewEvents: @unchecked Sendable {
    private let lock = NSLock()
    private var pages: [Int: AsyncStream<ByteBuffer>.Continuation] = [:]
    private var nextID = 0
    private var latestState: String?
    /// The number of open pages after each change (the server exits some minutes after the last).
    private let countChanged: @Sendable (Int) -> Void

    public init(countChanged: @escaping @Sendable (Int) -> Void) {
        self.countChanged = countChanged
    }

    public var pageCount: Int { lock.withLock { pages.count } }

    public func subscribe() -> (id: Int, events: AsyncStream<ByteBuffer>) {
        // A page that cannot keep up loses old word events, never the newest ones.
        let (stream, continuation) = AsyncStream<ByteBuffer>.makeStream(bufferingPolicy: .bufferingNewest(256))
        let (id, count, state) = lock.withLock { () -> (Int, Int, String?) in
            nextID += 1
            pages[nextID] = continuation
            return (nextID, pages.count, latestState)
        }
        continuation.yield(ByteBuffer(string: ": lector read-along\nretry: 2000\n\n"))
        if let state { continuation.yield(ByteBuffer(string: Self.frame("state", state))) }
        countChanged(count)
        return (id, stream)
    }

    public func unsubscribe(_ id: Int) {
        let (removed, count) = lock.withLock { (pages.removeValue(forKey: id), pages.count) }
        guard let removed else { return }
        removed.finish()
        countChanged(count)
    }

    /// The state kept for pages to come is no longer current (no page follows the narrator): a
    /// page that opens now waits for the state read for it instead.
    public func forgetState() {
        lock.withLock { latestState = nil }
    }

    /// Sends `json` as event `name` to every page; `state` is also kept for pages to come.
    public func publish(_ name: String, _ json: String) {
        let frame = ByteBuffer(string: Self.frame(name, json))
        let listeners = lock.withLock { () -> [AsyncStream<ByteBuffer>.Continuation] in
            if name == "state" { latestState = json }
            return Array(pages.values)
        }
        for page in listeners { page.yield(frame) }
    }

    /// Ends every page's stream (the server is going away).
    public func closeAll() {
        let listeners = lock.withLock { () -> [AsyncStream<ByteBuffer>.Continuation] in
            defer { pages = [:] }
            return Array(pages.values)
        }
        for page in listeners { page.finish() }
    }

    /// One SSE frame; JSON has no raw newlines, so one `data:` line carries it.
    static func frame(_ name: String, _ json: String) -> String {
        "event: \(name)\ndata: \(json)\n\n"
    }
}
