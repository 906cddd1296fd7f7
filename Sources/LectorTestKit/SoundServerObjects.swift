import Foundation

/// A sink-input (playback stream) as `pactl --format=json list sink-inputs` shows it.
public struct PlaybackStreamInfo: Sendable, Equatable {
    public let index: UInt32
    public let sinkIndex: UInt32
    /// Name of the sink it plays on (nil if that sink vanished between the two listings).
    public let sinkName: String?
    /// Raw pa_volume_t per channel, in channel-map order (65536 = 100 %).
    public let volume: [UInt32]
    public let channelMap: [String]
    public let muted: Bool
    public let corked: Bool
    public let properties: [String: String]

    public var role: String? { properties["media.role"] }
    public var applicationName: String? { properties["application.name"] }
    public var mediaName: String? { properties["media.name"] }
}

/// A source-output (recording stream) as `pactl --format=json list source-outputs` shows it.
public struct CaptureStreamInfo: Sendable, Equatable {
    public let index: UInt32
    public let sourceIndex: UInt32
    public let sourceName: String?
    public let volume: [UInt32]
    public let muted: Bool
    public let corked: Bool
    public let properties: [String: String]

    public var role: String? { properties["media.role"] }
    public var applicationName: String? { properties["application.name"] }
}

/// A sink as `pactl --format=json list sinks` shows it.
public struct SinkInfo: Sendable, Equatable {
    public let index: UInt32
    public let name: String
    public let description: String
    /// RUNNING, IDLE or SUSPENDED.
    public let state: String
    /// Raw pa_volume_t per channel, in channel-map order.
    public let volume: [UInt32]
    public let channelMap: [String]
    public let muted: Bool
    public let properties: [String: String]
    /// Module that created it (nil if none), e.g. to unload a null sink.
    public let ownerModule: UInt32?
}

/// One saved stream-restore entry (pa_ext_stream_restore_read through `lector-bench pulse-probe`).
public struct SavedStreamEntry: Sendable, Equatable {
    /// e.g. `sink-input-by-media-role:music`, `sink-input-by-application-name:paplay`.
    public let name: String
    /// Raw pa_volume_t per channel; empty if the entry saves no volume.
    public let volume: [UInt32]
    public let muted: Bool
    /// Saved sink or source name; nil if none.
    public let device: String?
}

/// Parsing of pactl's JSON (pactl ≥ 16) and of `lector-bench pulse-probe`'s lines. PulseAudio and
/// pipewire-pulse differ in details (owner_module and client are strings for sink-inputs and a
/// number for sinks), so numbers are read leniently.
enum SoundServerParsing {
    static func playbackStreams(json: String, sinks: [SinkInfo]) throws -> [PlaybackStreamInfo] {
        let names = Dictionary(sinks.map { ($0.index, $0.name) }, uniquingKeysWith: { first, _ in first })
        return try objects(json, "sink-inputs").map { object in
            let map = channelMap(object)
            let sink = try number(object, "sink")
            return PlaybackStreamInfo(index: try number(object, "index"), sinkIndex: sink, sinkName: names[sink],
                                      volume: try volume(object, map), channelMap: map,
                                      muted: try bool(object, "mute"), corked: try bool(object, "corked"),
                                      properties: properties(object))
        }
    }

    static func captureStreams(json: String, sources: [UInt32: String]) throws -> [CaptureStreamInfo] {
        try objects(json, "source-outputs").map { object in
            let source = try number(object, "source")
            return CaptureStreamInfo(index: try number(object, "index"), sourceIndex: source, sourceName: sources[source],
                                     volume: try volume(object, channelMap(object)), muted: try bool(object, "mute"),
                                     corked: try bool(object, "corked"), properties: properties(object))
        }
    }

    static func sinks(json: String) throws -> [SinkInfo] {
        try objects(json, "sinks").map { object in
            let map = channelMap(object)
            return SinkInfo(index: try number(object, "index"), name: try string(object, "name"),
                            description: (object["description"] as? String) ?? "",
                            state: (object["state"] as? String) ?? "",
                            volume: try volume(object, map), channelMap: map, muted: try bool(object, "mute"),
                            properties: properties(object), ownerModule: try? number(object, "owner_module"))
        }
    }

    /// index → name of `pactl --format=json list sources`.
    static func sourceNames(json: String) throws -> [UInt32: String] {
        var names: [UInt32: String] = [:]
        for object in try objects(json, "sources") { names[try number(object, "index")] = try string(object, "name") }
        return names
    }

    /// Lines `NAME<TAB>v1,v2<TAB>0|1<TAB>device` of `lector-bench pulse-probe stream-restore`.
    static func savedStreamEntries(probeOutput: String) throws -> [SavedStreamEntry] {
        try probeOutput.split(separator: "\n").map { line in
            let fields = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            guard fields.count == 4, fields[2] == "0" || fields[2] == "1" else {
                throw TestKitError.failed("unexpected lector-bench pulse-probe line: \(line)")
            }
            let volume = try fields[1].split(separator: ",").map { text -> UInt32 in
                guard let value = UInt32(text) else { throw TestKitError.failed("bad volume in: \(line)") }
                return value
            }
            return SavedStreamEntry(name: fields[0], volume: volume, muted: fields[2] == "1",
                                    device: fields[3].isEmpty ? nil : fields[3])
        }
    }

    // MARK: - JSON

    private static func objects(_ json: String, _ what: String) throws -> [[String: Any]] {
        let parsed: Any
        do {
            parsed = try JSONSerialization.jsonObject(with: Data(json.utf8))
        } catch {
            throw TestKitError.failed("pactl --format=json list \(what) printed no JSON (\(error)):\n\(json)")
        }
        guard let array = parsed as? [[String: Any]] else {
            throw TestKitError.failed("pactl --format=json list \(what): not an array of objects:\n\(json)")
        }
        return array
    }

    private static func number(_ object: [String: Any], _ key: String) throws -> UInt32 {
        if let value = object[key] as? NSNumber, let number = UInt32(exactly: value.doubleValue) { return number }
        if let text = object[key] as? String, let number = UInt32(text) { return number }
        throw TestKitError.failed("no number \(key) in \(object)")
    }

    private static func string(_ object: [String: Any], _ key: String) throws -> String {
        guard let value = object[key] as? String else { throw TestKitError.failed("no string \(key) in \(object)") }
        return value
    }

    private static func bool(_ object: [String: Any], _ key: String) throws -> Bool {
        guard let value = object[key] as? Bool else { throw TestKitError.failed("no boolean \(key) in \(object)") }
        return value
    }

    private static func properties(_ object: [String: Any]) -> [String: String] {
        (object["properties"] as? [String: Any] ?? [:]).compactMapValues { $0 as? String }
    }

    /// "front-left,front-right" → ["front-left", "front-right"].
    private static func channelMap(_ object: [String: Any]) -> [String] {
        ((object["channel_map"] as? String) ?? "").split(separator: ",").map(String.init)
    }

    /// The per-channel "value"s of "volume", in channel-map order (JSON objects have no order).
    private static func volume(_ object: [String: Any], _ channelMap: [String]) throws -> [UInt32] {
        guard let volume = object["volume"] as? [String: Any] else { throw TestKitError.failed("no volume in \(object)") }
        guard volume.count == channelMap.count else {
            throw TestKitError.failed("volume channels \(volume.keys.sorted()) do not match the channel map \(channelMap)")
        }
        return try channelMap.map { channel in
            guard let entry = volume[channel] as? [String: Any] else {
                throw TestKitError.failed("no volume for channel \(channel) in \(volume)")
            }
            return try number(entry, "value")
        }
    }
}
