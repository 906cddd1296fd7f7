import Dispatch

/// Work posted to the event loop from other threads (a book parsed in the background, a
/// bookmark written): the loop drains the main dispatch queue, so this is the main queue, and
/// the compiler checks that what crosses is Sendable.
///
/// ```swift
/// DispatchQueue.global().async { let book = parse(); LoopInbox.post { narrator.open(book) } }
/// ```
public enum LoopInbox {
    /// Any thread: run `body` on the loop thread soon, after what was posted before it.
    public static func post(_ body: @escaping @Sendable @MainActor () -> Void) {
        DispatchQueue.main.async { MainActor.assumeIsolated { body() } }
    }
}
