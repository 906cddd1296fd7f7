/// Why an announcement was refused outright (the caller gets a D-Bus error, no id is spent).
///
/// Kept apart from `LectorError` until it has kinds for these (`QueueFull`, `RateLimited`); then
/// map with `LectorError(LectorError.Kind(rawValue: refusal.errorName)!, refusal.message)`.
///
/// ```swift
/// AnnouncementRefusal.queueFull(capacity: 256).message
/// // "the announcement queue is full (256 waiting); try again when some have been spoken"
/// ```
public enum AnnouncementRefusal: Error, Equatable, Sendable, CustomStringConvertible {
    /// The whole queue holds `capacity` speeches and none may make room for this one.
    case queueFull(capacity: Int)
    /// This sender already has `limit` speeches waiting (one client cannot fill the queue).
    case senderQueueFull(sender: String, limit: Int)
    /// The sender spent its token bucket (`SenderRateLimiter`).
    case rateLimited(sender: String)

    /// The D-Bus error name suffix after `io.github.lector.Error.`.
    public var errorName: String {
        switch self {
        case .queueFull, .senderQueueFull: "QueueFull"
        case .rateLimited: "RateLimited"
        }
    }

    public var message: String {
        switch self {
        case .queueFull(let capacity):
            "the announcement queue is full (\(capacity) waiting); try again when some have been spoken"
        case .senderQueueFull(let sender, let limit):
            "\(sender) already has \(limit) announcements waiting; wait for some to be spoken or cancel them"
        case .rateLimited(let sender):
            "\(sender) sends announcements faster than allowed; slow down and try again shortly"
        }
    }

    public var description: String { "\(errorName): \(message)" }
}
