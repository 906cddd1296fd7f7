/// What the sound server looked like at one moment: sinks, playback and recording streams.
/// The daemon keeps one up to date from subscription events; policy compares two of them.
public struct AudioSnapshot: Hashable, Codable, Sendable {
    public var sinks: [UInt32: SinkSnapshot]
    /// Sink inputs.
    public var playbacks: [UInt32: StreamSnapshot]
    /// Source outputs.
    public var recordings: [UInt32: StreamSnapshot]
    public var defaultSinkName: String?

    public init(sinks: [UInt32: SinkSnapshot] = [:], playbacks: [UInt32: StreamSnapshot] = [:],
                recordings: [UInt32: StreamSnapshot] = [:], defaultSinkName: String? = nil) {
        self.sinks = sinks
        self.playbacks = playbacks
        self.recordings = recordings
        self.defaultSinkName = defaultSinkName
    }

    public func sink(named name: String) -> SinkSnapshot? { sinks.values.first { $0.name == name } }
}
