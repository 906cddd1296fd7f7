/// Who a stream belongs to, kept beside its index in the duck journal: after a crash and
/// restart (ours or the sound server's) an index may belong to another stream, and only
/// the same stream may get its volume back.
///
/// ```swift
/// let before = StreamIdentity(ducked)            // Firefox, pid 4242, "AudioStream", no role
/// before.matches(StreamIdentity(snapshot.playbacks[ducked.index]!))
/// ```
public struct StreamIdentity: Hashable, Codable, Sendable {
    /// `application.name`
    public var applicationName: String?
    /// `application.process.id`
    public var processID: String?
    /// `media.name`
    public var mediaName: String?
    /// `media.role`
    public var role: String?

    public init(applicationName: String? = nil, processID: String? = nil, mediaName: String? = nil, role: String? = nil) {
        self.applicationName = applicationName
        self.processID = processID
        self.mediaName = mediaName
        self.role = role
    }

    public init(_ stream: StreamSnapshot) {
        self.init(applicationName: stream.applicationName, processID: stream.properties["application.process.id"],
                  mediaName: stream.mediaName, role: stream.role)
    }

    /// Same stream? With a process id on both sides, the process, application and role decide:
    /// players retitle their stream's `media.name` per track (mpv, browsers), which does not make
    /// it another stream. Without one, all four must be equal.
    public func matches(_ other: StreamIdentity) -> Bool {
        if let pid = processID, let otherPID = other.processID {
            return pid == otherPID && applicationName == other.applicationName && role == other.role
        }
        return self == other
    }
}
