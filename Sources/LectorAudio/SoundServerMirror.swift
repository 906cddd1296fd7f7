import CPulse
import Glibc
import LectorLoop
import LectorPolicy

/// A live copy of what the sound server has (sinks with their ports, playback and recording
/// streams, the default sink), kept current from subscription events, plus the few writes the
/// audio policy needs (stream and sink volumes, mute, saved stream-restore entries).
///
/// Owned by the event loop thread. `onChange` gets the snapshot from before each change, so
/// policy compares before/after without keeping its own copy:
///
/// ```swift
/// mirror.onChange = { before, change in
///     if let loss = RouteClassifier.loss(ofStream: own, before: before, after: mirror.snapshot) { pause(loss) }
/// }
/// soundServer.attach(mirror)   // attached to every connection, detached before it goes
/// ```
@MainActor
public final class SoundServerMirror {
    public enum Change: Equatable, Sendable {
        /// The first full picture after connecting.
        case synced
        case sink(UInt32), sinkRemoved(UInt32)
        case playback(UInt32), playbackRemoved(UInt32)
        case recording(UInt32), recordingRemoved(UInt32)
        case server
    }

    public private(set) var snapshot = AudioSnapshot()
    /// True once the first full listing has arrived on the current connection.
    public private(set) var isSynced = false
    public var onChange: (@MainActor (_ before: AudioSnapshot, _ change: Change) -> Void)?

    private var context: OpaquePointer?
    /// Bumped per connection: answers to requests of an older connection are ignored.
    private var generation = 0
    private var pendingListings = 0
    private var moduleNames: [UInt32: String] = [:]
    /// Playback stream → owner module index, for streams listed before their module.
    private var streamOwners: [UInt32: UInt32] = [:]

    public init() {}

    /// Subscribes and lists everything; call when the context becomes ready.
    public func attach(context: OpaquePointer) {
        detach()
        self.context = context
        generation += 1
        isSynced = false
        snapshot = AudioSnapshot()
        moduleNames = [:]
        streamOwners = [:]
        pa_context_set_subscribe_callback(context, { _, event, index, userdata in
            onLoopThread((event, index, userdata)) { event, index, userdata in
                Unmanaged<SoundServerMirror>.fromOpaque(userdata!).takeUnretainedValue().received(event, index)
            }
        }, Unmanaged.passUnretained(self).toOpaque())
        let mask = PA_SUBSCRIPTION_MASK_SINK.rawValue | PA_SUBSCRIPTION_MASK_SINK_INPUT.rawValue
            | PA_SUBSCRIPTION_MASK_SOURCE_OUTPUT.rawValue | PA_SUBSCRIPTION_MASK_SERVER.rawValue
            | PA_SUBSCRIPTION_MASK_MODULE.rawValue
        unref(pa_context_subscribe(context, pa_subscription_mask_t(mask), nil, nil))
        pendingListings = 5
        let listed: () -> Void = { [weak self] in
            guard let self else { return }
            pendingListings -= 1
            if pendingListings == 0 {
                isSynced = true
                onChange?(AudioSnapshot(), .synced)
            }
        }
        requestServerInfo(then: listed)
        requestModules(index: nil, then: listed)
        requestSinks(index: nil, then: listed)
        requestPlaybacks(index: nil, then: listed)
        requestRecordings(index: nil, then: listed)
    }

    /// The connection is gone: forget everything (the next `attach` lists afresh).
    public func detach() {
        if let context { pa_context_set_subscribe_callback(context, nil, nil) }
        context = nil
        generation += 1
        isSynced = false
        snapshot = AudioSnapshot()
    }

    // MARK: - writes

    /// Sets a playback stream's volume; `done(false)` if it failed (e.g. the stream is gone).
    public func setPlaybackVolume(_ index: UInt32, _ volume: ChannelVolumes, done: ((Bool) -> Void)? = nil) {
        guard let context else { done?(false); return }
        var cvolume = PulseValues.cvolume(volume)
        let request = SuccessRequest(done)
        track(pa_context_set_sink_input_volume(context, index, &cvolume, SuccessRequest.callback, request.retained()),
              request)
    }

    public func setSinkVolume(_ index: UInt32, _ volume: ChannelVolumes, done: ((Bool) -> Void)? = nil) {
        guard let context else { done?(false); return }
        var cvolume = PulseValues.cvolume(volume)
        let request = SuccessRequest(done)
        track(pa_context_set_sink_volume_by_index(context, index, &cvolume, SuccessRequest.callback,
                                                  request.retained()), request)
    }

    public func setSinkMute(_ index: UInt32, _ muted: Bool, done: ((Bool) -> Void)? = nil) {
        guard let context else { done?(false); return }
        let request = SuccessRequest(done)
        track(pa_context_set_sink_mute_by_index(context, index, muted ? 1 : 0, SuccessRequest.callback,
                                                request.retained()), request)
    }

    /// The server's saved stream volumes (module-stream-restore on PulseAudio, WirePlumber's
    /// restore-stream state through pipewire-pulse); nil if the server has no such extension.
    public func readSavedStreams(_ completion: @escaping ([SavedStreamEntry]?) -> Void) {
        guard let context else { completion(nil); return }
        let request = SavedStreamsRequest(completion)
        let operation = pa_ext_stream_restore_read(context, { _, info, eol, userdata in
            onLoopThread((info, eol, userdata)) { info, eol, userdata in
                let request = Unmanaged<SavedStreamsRequest>.fromOpaque(userdata!).takeUnretainedValue()
                if eol != 0 {
                    Unmanaged<SavedStreamsRequest>.fromOpaque(userdata!).release()
                    request.completion(eol < 0 ? nil : request.entries)
                } else if let info = info?.pointee {
                    request.entries.append(SavedStreamEntry(info))
                }
            }
        }, Unmanaged.passRetained(request).toOpaque())
        if let operation {
            pa_operation_unref(operation)
        } else {
            Unmanaged.passUnretained(request).release()
            completion(nil)
        }
    }

    /// Replaces saved entries; `applyImmediately` also applies them to running streams that match
    /// (the daemon's repairs do not; `lector-bench pulse-probe stream-restore-write` does, as a
    /// crashed client's last write would have).
    public func writeSavedStreams(_ entries: [SavedStreamEntry], applyImmediately: Bool = false,
                                  done: ((Bool) -> Void)? = nil) {
        guard let context, !entries.isEmpty else { done?(context != nil); return }
        let names = entries.map { strdup($0.name) }
        let devices = entries.map { $0.device.map { strdup($0) } ?? nil }
        defer {
            names.forEach { free($0) }
            devices.forEach { free($0) }
        }
        var infos = entries.enumerated().map { i, entry in
            pa_ext_stream_restore_info(name: names[i], channel_map: entry.channelMap,
                                       volume: PulseValues.cvolume(entry.volume),
                                       device: devices[i], mute: entry.muted ? 1 : 0)
        }
        let request = SuccessRequest(done)
        track(pa_ext_stream_restore_write(context, PA_UPDATE_REPLACE, &infos, UInt32(infos.count),
                                          applyImmediately ? 1 : 0, SuccessRequest.callback, request.retained()), request)
    }

    // MARK: - events

    private func received(_ event: pa_subscription_event_type_t, _ index: UInt32) {
        let facility = event.rawValue & PA_SUBSCRIPTION_EVENT_FACILITY_MASK.rawValue
        let removed = event.rawValue & PA_SUBSCRIPTION_EVENT_TYPE_MASK.rawValue == PA_SUBSCRIPTION_EVENT_REMOVE.rawValue
        switch facility {
        case PA_SUBSCRIPTION_EVENT_SINK.rawValue:
            if removed { remove(\.sinks, index, .sinkRemoved(index)) } else { requestSinks(index: index) }
        case PA_SUBSCRIPTION_EVENT_SINK_INPUT.rawValue:
            if removed {
                streamOwners[index] = nil
                remove(\.playbacks, index, .playbackRemoved(index))
            } else {
                requestPlaybacks(index: index)
            }
        case PA_SUBSCRIPTION_EVENT_SOURCE_OUTPUT.rawValue:
            if removed { remove(\.recordings, index, .recordingRemoved(index)) } else { requestRecordings(index: index) }
        case PA_SUBSCRIPTION_EVENT_SERVER.rawValue:
            requestServerInfo()
        case PA_SUBSCRIPTION_EVENT_MODULE.rawValue:
            if removed { moduleNames[index] = nil } else { requestModules(index: index) }
        default:
            break
        }
    }

    private func remove<Value>(_ path: WritableKeyPath<AudioSnapshot, [UInt32: Value]>, _ index: UInt32,
                               _ change: Change) {
        guard snapshot[keyPath: path][index] != nil else { return }
        let before = snapshot
        snapshot[keyPath: path][index] = nil
        if isSynced { onChange?(before, change) }
    }

    private func update(_ change: Change, _ apply: (inout AudioSnapshot) -> Void) {
        let before = snapshot
        apply(&snapshot)
        if isSynced, snapshot != before { onChange?(before, change) }
    }

    // MARK: - queries

    private func requestSinks(index: UInt32?, then finished: (() -> Void)? = nil) {
        guard let context else { return }
        let request = InfoRequest<pa_sink_info>(mirror: self) { mirror, info in
            let sink = PulseValues.sink(info)
            mirror.update(.sink(sink.index)) { $0.sinks[sink.index] = sink }
        } finished: { _ in finished?() }
        let callback: pa_sink_info_cb_t = { _, info, eol, userdata in InfoRequest<pa_sink_info>.deliver(info, eol, userdata) }
        track(index.map { pa_context_get_sink_info_by_index(context, $0, callback, request.retained()) }
              ?? pa_context_get_sink_info_list(context, callback, request.retained()), request)
    }

    private func requestPlaybacks(index: UInt32?, then finished: (() -> Void)? = nil) {
        guard let context else { return }
        let request = InfoRequest<pa_sink_input_info>(mirror: self) { mirror, info in
            let stream = StreamSnapshot(index: info.index, device: info.sink,
                                        properties: PulseValues.properties(info.proplist),
                                        volume: PulseValues.volumes(info.volume), muted: info.mute != 0,
                                        corked: info.corked != 0, ownerModule: mirror.moduleNames[info.owner_module])
            if info.owner_module != UInt32.max { mirror.streamOwners[info.index] = info.owner_module }
            mirror.update(.playback(stream.index)) { $0.playbacks[stream.index] = stream }
        } finished: { _ in finished?() }
        let callback: pa_sink_input_info_cb_t = { _, info, eol, userdata in
            InfoRequest<pa_sink_input_info>.deliver(info, eol, userdata)
        }
        track(index.map { pa_context_get_sink_input_info(context, $0, callback, request.retained()) }
              ?? pa_context_get_sink_input_info_list(context, callback, request.retained()), request)
    }

    private func requestRecordings(index: UInt32?, then finished: (() -> Void)? = nil) {
        guard let context else { return }
        let request = InfoRequest<pa_source_output_info>(mirror: self) { mirror, info in
            let stream = StreamSnapshot(index: info.index, device: info.source,
                                        properties: PulseValues.properties(info.proplist),
                                        volume: PulseValues.volumes(info.volume), muted: info.mute != 0,
                                        corked: info.corked != 0, ownerModule: mirror.moduleNames[info.owner_module])
            mirror.update(.recording(stream.index)) { $0.recordings[stream.index] = stream }
        } finished: { _ in finished?() }
        let callback: pa_source_output_info_cb_t = { _, info, eol, userdata in
            InfoRequest<pa_source_output_info>.deliver(info, eol, userdata)
        }
        track(index.map { pa_context_get_source_output_info(context, $0, callback, request.retained()) }
              ?? pa_context_get_source_output_info_list(context, callback, request.retained()), request)
    }

    private func requestServerInfo(then finished: (() -> Void)? = nil) {
        guard let context else { return }
        let request = InfoRequest<pa_server_info>(mirror: self) { mirror, info in
            let name = info.default_sink_name.map { String(cString: $0) }
            mirror.update(.server) { $0.defaultSinkName = name }
        } finished: { _ in finished?() }
        // The server-info callback has no eol: it is called exactly once.
        track(pa_context_get_server_info(context, { _, info, userdata in
            InfoRequest<pa_server_info>.deliver(info, 0, userdata)
            InfoRequest<pa_server_info>.deliver(nil, 1, userdata)
        }, request.retained()), request)
    }

    private func requestModules(index: UInt32?, then finished: (() -> Void)? = nil) {
        guard let context else { return }
        let request = InfoRequest<pa_module_info>(mirror: self) { mirror, info in
            let name = PulseValues.string(info.name)
            mirror.moduleNames[info.index] = name
            // A module's stream may have been listed before the module itself.
            for (stream, owner) in mirror.streamOwners where owner == info.index {
                mirror.update(.playback(stream)) { $0.playbacks[stream]?.ownerModule = name }
            }
        } finished: { _ in finished?() }
        let callback: pa_module_info_cb_t = { _, info, eol, userdata in InfoRequest<pa_module_info>.deliver(info, eol, userdata) }
        track(index.map { pa_context_get_module_info(context, $0, callback, request.retained()) }
              ?? pa_context_get_module_info_list(context, callback, request.retained()), request)
    }

    /// libpulse returns nil when it could not send the request: no callback will come.
    private func track(_ operation: OpaquePointer?, _ request: ReleasableRequest) {
        if let operation {
            pa_operation_unref(operation)
        } else {
            request.abandon()
        }
    }

    private func unref(_ operation: OpaquePointer?) {
        if let operation { pa_operation_unref(operation) }
    }

    fileprivate var currentGeneration: Int { generation }
}

/// A request whose retained box must be released if libpulse never sends it.
@MainActor
private protocol ReleasableRequest: AnyObject {
    func abandon()
}

/// One info query: `item` per entry, then `finished` once (also on error). Answers to a previous
/// connection's queries are dropped.
@MainActor
private final class InfoRequest<Info>: ReleasableRequest {
    weak var mirror: SoundServerMirror?
    let generation: Int
    let item: (SoundServerMirror, Info) -> Void
    let finished: (Bool) -> Void

    init(mirror: SoundServerMirror, item: @escaping (SoundServerMirror, Info) -> Void,
         finished: @escaping (Bool) -> Void) {
        self.mirror = mirror
        generation = mirror.currentGeneration
        self.item = item
        self.finished = finished
    }

    func retained() -> UnsafeMutableRawPointer { Unmanaged.passRetained(self).toOpaque() }

    func abandon() {
        Unmanaged.passUnretained(self).release()
        finished(false)
    }

    nonisolated static func deliver(_ info: UnsafePointer<Info>?, _ eol: Int32, _ userdata: UnsafeMutableRawPointer?) {
        onLoopThread((info, eol, userdata)) { info, eol, userdata in deliverOnLoop(info, eol, userdata) }
    }

    private static func deliverOnLoop(_ info: UnsafePointer<Info>?, _ eol: Int32, _ userdata: UnsafeMutableRawPointer?) {
        let request = Unmanaged<InfoRequest<Info>>.fromOpaque(userdata!).takeUnretainedValue()
        let live = request.mirror.map { $0.currentGeneration == request.generation } ?? false
        if eol != 0 {
            Unmanaged<InfoRequest<Info>>.fromOpaque(userdata!).release()
            if live { request.finished(eol > 0) }
        } else if live, let info, let mirror = request.mirror {
            request.item(mirror, info.pointee)
        }
    }
}

@MainActor
private final class SuccessRequest: ReleasableRequest {
    let done: ((Bool) -> Void)?
    init(_ done: ((Bool) -> Void)?) { self.done = done }
    func retained() -> UnsafeMutableRawPointer { Unmanaged.passRetained(self).toOpaque() }
    func abandon() {
        Unmanaged.passUnretained(self).release()
        done?(false)
    }

    static let callback: pa_context_success_cb_t = { _, success, userdata in
        onLoopThread((success, userdata)) { success, userdata in
            Unmanaged<SuccessRequest>.fromOpaque(userdata!).takeRetainedValue().done?(success != 0)
        }
    }
}

@MainActor
private final class SavedStreamsRequest {
    let completion: ([SavedStreamEntry]?) -> Void
    var entries: [SavedStreamEntry] = []
    init(_ completion: @escaping ([SavedStreamEntry]?) -> Void) { self.completion = completion }
}
