import CPulse
#if canImport(Glibc)
import Glibc
#endif

// lector-pulse-probe: a test tool that reads what libpulse offers but pactl does not print.
//
//   lector-pulse-probe stream-restore
//       Prints every saved stream-restore entry (pa_ext_stream_restore_read), one per line:
//       NAME<TAB>v1,v2,...<TAB>muted (0/1)<TAB>device
//       with the raw pa_volume_t of each channel (empty when the entry saves no volume) and an
//       empty device when none is saved.
//
//   lector-pulse-probe stream-restore-write NAME v1,v2,... [MUTED [DEVICE]]
//       Saves (replaces) one entry, e.g. to leave a ducked volume behind as a crashed client
//       would: `stream-restore-write sink-input-by-media-role:music 13107`. MUTED is 0 or 1
//       (default 0); the volume list may be empty to save no volume. Reads it back and writes it
//       again every 100 ms until listed; exit 3 if it is still not listed on this connection after
//       1.5 s (pipewire-pulse, under load, sometimes serves a connection no route-settings entries at
//       all while its writes do land: read again on a new connection before writing again).
//
// Exit 0 on success; 1 with a message on stderr when the server cannot be reached, does not offer
// the stream-restore extension or refuses the request; 2 for bad arguments; 3 for a write not
// confirmed by a read on the same connection.
//
// The server is the one libpulse finds on its own (PULSE_SERVER etc.); never autospawned.
// One blocking pa_mainloop; the whole run is bounded by a 10 s deadline.

/// Progress of the one run, shared with the C callbacks (they cannot capture).
struct Probe {
    enum Phase { case connecting, testing, working, done }
    var phase = Phase.connecting
    var lines: [String] = []
    var failure: String?
}

var probe = Probe()
var mainloop: OpaquePointer!

func fail(_ message: String) {
    if probe.failure == nil { probe.failure = message }
    probe.phase = .done
    pa_mainloop_quit(mainloop, 1)
}

func contextError(_ context: OpaquePointer?) -> String {
    String(cString: pa_strerror(pa_context_errno(context)))
}

func usage(_ problem: String? = nil) -> Never {
    if let problem { fputs("lector-pulse-probe: \(problem)\n", stderr) }
    fputs("usage: lector-pulse-probe stream-restore\n"
          + "       lector-pulse-probe stream-restore-write NAME v1,v2,... [MUTED [DEVICE]]\n", stderr)
    exit(2)
}

/// What to save for `stream-restore-write`.
struct Entry {
    var name: String
    var volumes: [pa_volume_t]
    var muted: Bool
    var device: String?
}

let arguments = Array(CommandLine.arguments.dropFirst())
var entryToWrite: Entry?
switch arguments.first {
case "stream-restore" where arguments.count == 1:
    break
case "stream-restore-write" where (3...5).contains(arguments.count):
    let volumeText = arguments[2]
    let volumes = volumeText.isEmpty ? [] : volumeText.split(separator: ",", omittingEmptySubsequences: false)
        .map { pa_volume_t(String($0)) }
    guard volumes.allSatisfy({ $0 != nil && $0! <= PA_VOLUME_MAX }), volumes.count <= Int(PA_CHANNELS_MAX) else {
        usage("bad volume list \"\(volumeText)\" (raw pa_volume_t values, comma-separated)")
    }
    let muted = arguments.count > 3 ? arguments[3] : "0"
    guard muted == "0" || muted == "1" else { usage("MUTED must be 0 or 1") }
    entryToWrite = Entry(name: arguments[1], volumes: volumes.map { $0! }, muted: muted == "1",
                         device: arguments.count > 4 ? arguments[4] : nil)
default:
    usage()
}

mainloop = pa_mainloop_new()
let api = pa_mainloop_get_api(mainloop)
guard let context = pa_context_new(api, "lector-pulse-probe") else {
    fputs("lector-pulse-probe: pa_context_new failed\n", stderr)
    exit(1)
}
let probeContext: OpaquePointer? = context

/// One saved entry as read.
struct ReadEntry {
    var name: String
    var volumes: [pa_volume_t]
    var muted: Bool
    var device: String

    var line: String { "\(name)\t\(volumes.map(String.init).joined(separator: ","))\t\(muted ? 1 : 0)\t\(device)" }
}

var readEntries: [ReadEntry] = []
/// What to do once a read has delivered every entry.
var afterRead: () -> Void = {}
var writeAttempts = 0
var writeStarted: pa_usec_t = 0

let readCallback: pa_ext_stream_restore_read_cb_t = { context, info, eol, _ in
    if eol < 0 {
        fail("reading the stream-restore entries failed: \(contextError(context))")
        return
    }
    if eol > 0 {
        afterRead()
        return
    }
    guard let info = info?.pointee else { return }
    var volume = info.volume
    let channels = Int(volume.channels)
    let values = withUnsafeBytes(of: &volume.values) { raw in
        Array(raw.bindMemory(to: pa_volume_t.self).prefix(channels))
    }
    readEntries.append(ReadEntry(name: info.name.map { String(cString: $0) } ?? "", volumes: values,
                                 muted: info.mute != 0, device: info.device.map { String(cString: $0) } ?? ""))
}

func read(_ context: OpaquePointer?, then continuation: @escaping () -> Void) {
    readEntries = []
    afterRead = continuation
    guard let operation = pa_ext_stream_restore_read(context, readCallback, nil) else {
        fail("pa_ext_stream_restore_read: \(contextError(context))")
        return
    }
    pa_operation_unref(operation)
}

func finish() {
    probe.phase = .done
    pa_mainloop_quit(mainloop, 0)
}

let testCallback: pa_ext_stream_restore_test_cb_t = { context, version, _ in
    guard version != UInt32.max else {  // PA_INVALID_INDEX: the server refused the test
        fail("the sound server does not offer the stream-restore extension "
             + "(PulseAudio: load module-stream-restore): \(contextError(context))")
        return
    }
    probe.phase = .working
    if let entry = entryToWrite {
        write(entry, context)
        return
    }
    read(context) {
        probe.lines = readEntries.map(\.line)
        finish()
    }
}

/// Writes, then reads back until the entry is listed: pipewire-pulse acknowledges a write that it
/// dropped (see below), so an unlisted entry is written again every 100 ms until the deadline.
func write(_ entry: Entry, _ context: OpaquePointer?) {
    if writeAttempts == 0 { writeStarted = pa_rtclock_now() }
    writeAttempts += 1
    var info = pa_ext_stream_restore_info()
    var volume = pa_cvolume()
    volume.channels = UInt8(entry.volumes.count)
    withUnsafeMutableBytes(of: &volume.values) { raw in
        let values = raw.bindMemory(to: pa_volume_t.self)
        for (index, value) in entry.volumes.enumerated() { values[index] = value }
    }
    info.volume = volume
    if !entry.volumes.isEmpty {
        pa_channel_map_init_auto(&info.channel_map, UInt32(entry.volumes.count), PA_CHANNEL_MAP_DEFAULT)
    }
    info.mute = entry.muted ? 1 : 0
    let operation = entry.name.withCString { name in
        (entry.device ?? "").withCString { device -> OpaquePointer? in
            info.name = name
            info.device = entry.device == nil ? nil : device
            return pa_ext_stream_restore_write(context, PA_UPDATE_REPLACE, &info, 1, 1, { context, success, _ in
                guard success != 0 else {
                    fail("the server refused to save the entry: \(contextError(context))")
                    return
                }
                read(context) {
                    guard let entry = entryToWrite else { return }
                    // Exact on PulseAudio; pipewire-pulse stores floats, so allow one step of rounding.
                    let listed = readEntries.contains { read in
                        read.name == entry.name && read.muted == entry.muted && read.volumes.count == entry.volumes.count
                            && zip(read.volumes, entry.volumes).allSatisfy { abs(Int64($0) - Int64($1)) <= 1 }
                    }
                    if listed { return finish() }
                    if pa_rtclock_now() > writeStarted + 1_500_000 {
                        probe.failure = "written \(writeAttempts) times but not listed on this connection: "
                            + "\(readEntries.map(\.line)) (read again on a new connection)"
                        probe.phase = .done
                        pa_mainloop_quit(mainloop, 3)
                        return
                    }
                    _ = pa_context_rttime_new(context, pa_rtclock_now() + 100_000, { api, event, _, _ in
                        api?.pointee.time_free(event)
                        if let entry = entryToWrite { write(entry, probeContext) }
                    }, nil)
                }
            }, nil)
        }
    }
    guard let operation else {
        fail("pa_ext_stream_restore_write: \(contextError(context))")
        return
    }
    pa_operation_unref(operation)
}

/// pipewire-pulse answers the extension from a per-connection copy of WirePlumber's "route-settings"
/// metadata, which a new connection receives asynchronously after it is ready: a read right away can
/// miss entries and a write can be dropped (acknowledged all the same). So on PipeWire, wait a little.
let pipeWireSettleMicroseconds: pa_usec_t = 250_000

let serverInfoCallback: pa_server_info_cb_t = { context, info, _ in
    let name = info?.pointee.server_name.map { String(cString: $0) } ?? ""
    guard name.contains("PipeWire") else {
        testExtension(context)
        return
    }
    _ = pa_context_rttime_new(context, pa_rtclock_now() + pipeWireSettleMicroseconds, { api, event, _, _ in
        api?.pointee.time_free(event)
        testExtension(probeContext)
    }, nil)
}

func testExtension(_ context: OpaquePointer?) {
    guard let operation = pa_ext_stream_restore_test(context, testCallback, nil) else {
        fail("pa_ext_stream_restore_test: \(contextError(context))")
        return
    }
    pa_operation_unref(operation)
}

pa_context_set_state_callback(context, { context, _ in
    switch pa_context_get_state(context) {
    case PA_CONTEXT_READY:
        guard probe.phase == .connecting else { return }
        probe.phase = .testing
        guard let operation = pa_context_get_server_info(context, serverInfoCallback, nil) else {
            fail("pa_context_get_server_info: \(contextError(context))")
            return
        }
        pa_operation_unref(operation)
    case PA_CONTEXT_FAILED:
        fail("cannot connect to the sound server: \(contextError(context))")
    case PA_CONTEXT_TERMINATED:
        if probe.phase != .done { fail("the sound server closed the connection") }
    default:
        break
    }
}, nil)

guard pa_context_connect(context, nil, PA_CONTEXT_NOAUTOSPAWN, nil) >= 0 else {
    fputs("lector-pulse-probe: cannot connect to the sound server: \(contextError(context))\n", stderr)
    exit(1)
}

// A deadline, so a server that accepts but never answers cannot hang a test.
let deadline = pa_context_rttime_new(context, pa_rtclock_now() + 10 * PA_USEC_PER_SEC, { _, _, _, _ in
    if writeAttempts > 0 {
        fail("the entry was written \(writeAttempts) times in 10 s but never listed: \(readEntries.map(\.line))")
    } else {
        fail("no answer from the sound server within 10 s (still \(probe.phase))")
    }
}, nil)

var result: Int32 = 0
_ = pa_mainloop_run(mainloop, &result)
if let deadline { api?.pointee.time_free(deadline) }
pa_context_disconnect(context)
pa_context_unref(context)
pa_mainloop_free(mainloop)

if let failure = probe.failure {
    fputs("lector-pulse-probe: \(failure)\n", stderr)
    exit(result == 3 ? 3 : 1)
}
for line in probe.lines { print(line) }
exit(0)
