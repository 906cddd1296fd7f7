import CPulse
import CSystemd
import Foundation
import LectorAudio
import LectorBus
import LectorLoop
import LectorPolicy
#if canImport(Glibc)
import Glibc
#endif

/// What the loop thread saw: a signal on the bus or a change of the sound server mirror.
enum BenchEvent: CustomStringConvertible {
    /// org.freedesktop.DBus.Properties.PropertiesChanged: the interface and its changed values as text.
    case properties(path: String, interface: String, changed: [String: String])
    case speechStarted(id: UInt64)
    case speechFinished(id: UInt64, reason: String)
    /// The mirror's snapshot changed (it is read through `BenchLoop.mirror` in the predicate).
    case audio(SoundServerMirror.Change)
    /// The benchmark lost its connection to the sound server.
    case soundServerLost(String)

    var description: String {
        switch self {
        case .properties(let path, let interface, let changed):
            return "PropertiesChanged \(path) \(interface) \(changed.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " "))"
        case .speechStarted(let id): return "SpeechStarted(\(id))"
        case .speechFinished(let id, let reason): return "SpeechFinished(\(id), \(reason))"
        case .audio(let change): return "mirror \(change)"
        case .soundServerLost(let reason): return "sound server lost: \(reason)"
        }
    }
}

/// A condition the loop thread watches for; stamped (CLOCK_MONOTONIC) by the first event that
/// makes it true, or at arming if it already holds.
final class Watch {
    let name: String
    fileprivate let predicate: (BenchEvent?) -> Bool
    /// Written on the loop thread before `semaphore` is signalled; read after waiting on it.
    fileprivate(set) var firedAt: UInt64?
    fileprivate(set) var event: BenchEvent?
    fileprivate let semaphore = DispatchSemaphore(value: 0)

    fileprivate init(name: String, predicate: @escaping (BenchEvent?) -> Bool) {
        self.name = name
        self.predicate = predicate
    }
}

/// The benchmark's own sd-event loop, on a thread of its own, with an sd-bus connection
/// (LectorBus) and a libpulse context plus mirror (LectorAudio) attached: bus signals and
/// sound-server events are dated in their handlers on one thread and one clock, and the
/// actions that start a measurement (unload a module, connect a stream, send a call) are
/// issued from the same thread right after reading the clock.
///
/// Everything that touches the loop's objects runs on the loop thread: `sync` and `post` carry
/// work there from the orchestrating thread.
final class BenchLoop: @unchecked Sendable {
    // Loop thread only.
    private(set) var loop: EventLoop!
    private(set) var bus: Bus!
    private(set) var soundServer: SoundServer!
    private(set) var mirror: SoundServerMirror!
    /// The mirror's picture now (loop thread).
    var snapshot: AudioSnapshot { MainActor.assumeIsolated { mirror.snapshot } }
    private var watches: [Watch] = []
    /// The last events with their times, for failure messages.
    private var recent: [(UInt64, String)] = []

    private let finished = DispatchSemaphore(value: 0)
    /// Written by the loop thread before it signals that it is ready.
    private var setupError: Error?

    private let properties: [String: String]
    private let connectsBus: Bool

    /// `properties`: the libpulse client's proplist (application.name ...); `bus`: also connect to
    /// the session bus and watch the daemon's signals (the policy benchmark; the probe does not).
    init(properties: [String: String], bus: Bool = true) {
        self.properties = properties
        connectsBus = bus
    }

    /// Starts the thread, connects to the bus and the sound server (from this process's
    /// environment) and returns once the mirror holds the server's first full picture.
    func start(timeout: TimeInterval = 10) throws {
        let ready = DispatchSemaphore(value: 0)
        MainThreadWork.submit { [self] in   // runs once; nothing keeps it
            do {
                try MainActor.assumeIsolated { try self.setUp() }
            } catch {
                self.setupError = error
                ready.signal()
                self.finished.signal()
                return
            }
            ready.signal()
            _ = try? MainActor.assumeIsolated { try self.loop.run() }
            self.finished.signal()
        }
        guard ready.wait(timeout: .now() + timeout) == .success else { throw BenchError("the benchmark's event loop did not start") }
        if let setupError { throw BenchError("setting up the benchmark's loop: \(setupError)") }
        // Synced, or the sound server could not be reached (SoundServer would retry every second).
        let synced = try arm("the benchmark's sound-server mirror to list the server") { [weak self] _ in
            MainActor.assumeIsolated {
                guard let self else { return true }
                if case .unavailable = self.soundServer.state { return true }
                return self.mirror.isSynced
            }
        }
        try wait(synced, timeout: timeout)
        let state = try sync { [self] in MainActor.assumeIsolated { self.soundServer.state } }
        if case .unavailable(let reason) = state { throw BenchError("cannot connect to the sound server: \(reason)") }
    }

    @MainActor
    private func setUp() throws {
        loop = try EventLoop()
        mirror = SoundServerMirror()
        if connectsBus { try setUpBus() }
        soundServer = try SoundServer(loop: loop, properties: properties)
        mirror.onChange = { [weak self] _, change in
            self?.dispatch(.audio(change), at: monotonicNanoseconds())
        }
        soundServer.onStateChange = { [weak self] state in
            guard let self else { return }
            switch state {
            case .ready:
                if let context = self.soundServer.context { self.mirror.attach(context: context) }
            case .unavailable(let reason):
                self.mirror.detach()
                self.dispatch(.soundServerLost(reason), at: monotonicNanoseconds())
            case .connecting:
                break
            }
        }
        soundServer.connect()
    }

    @MainActor
    private func setUpBus() throws {
        bus = try Bus.session()
        try bus.attach(to: loop)
        // No sender= in the rules: sd-bus compares it locally with the unique name. Only the
        // daemon emits these on the private bus.
        try bus.addMatch("type='signal',interface='org.freedesktop.DBus.Properties',member='PropertiesChanged'") { [weak self] message in
            guard let self else { return }
            let now = monotonicNanoseconds()
            let path = sd_bus_message_get_path(message.message).map { String(cString: $0) } ?? ""
            guard let interface = try? message.readString(),
                  let changed = try? message.readDisplayDictionary() else { return }
            self.dispatch(.properties(path: path, interface: interface, changed: changed), at: now)
        }
        try bus.addMatch("type='signal',interface='io.github.lector.Lector1'") { [weak self] message in
            guard let self else { return }
            let now = monotonicNanoseconds()
            switch message.member {
            case "SpeechStarted":
                guard let id = try? message.readUInt64() else { return }
                self.dispatch(.speechStarted(id: id), at: now)
            case "SpeechFinished":
                guard let id = try? message.readUInt64(), let reason = try? message.readString() else { return }
                self.dispatch(.speechFinished(id: id, reason: reason), at: now)
            default:
                break
            }
        }
    }

    /// Ends the loop and its thread.
    func stop() {
        post { [self] in MainActor.assumeIsolated { self.loop.exit() } }
        _ = finished.wait(timeout: .now() + 5)
    }

    // MARK: - crossing threads

    func post(_ body: @escaping () -> Void) {
        nonisolated(unsafe) let body = body   // runs on the loop thread, the only one touching its captures
        LoopInbox.post { body() }
    }

    /// Runs `body` on the loop thread and returns its result.
    func sync<T>(timeout: TimeInterval = 10, _ body: @escaping () throws -> T) throws -> T {
        let done = DispatchSemaphore(value: 0)
        var result: Result<T, Error>?
        post {
            result = Result { try body() }
            done.signal()
        }
        guard done.wait(timeout: .now() + timeout) == .success, let result else {
            throw BenchError("the benchmark's event loop did not answer within \(Int(timeout)) s")
        }
        return try result.get()
    }

    /// Starts an asynchronous request on the loop thread and waits for its completion.
    func request<T>(_ what: String, timeout: TimeInterval = 10,
                    _ body: @escaping (_ done: @escaping (T) -> Void) -> Void) throws -> T {
        let done = DispatchSemaphore(value: 0)
        var value: T?
        post {
            body { result in
                value = result
                done.signal()
            }
        }
        guard done.wait(timeout: .now() + timeout) == .success, let value else {
            throw BenchError("timed out after \(timeout) s: \(what)")
        }
        return value
    }

    // MARK: - watches

    /// Loop thread: start watching for `predicate` (checked at once, then on every event).
    func armHere(_ name: String, _ predicate: @escaping (BenchEvent?) -> Bool) -> Watch {
        let watch = Watch(name: name, predicate: predicate)
        if predicate(nil) {
            fire(watch, at: monotonicNanoseconds(), event: nil)
        } else {
            watches.append(watch)
        }
        return watch
    }

    /// Any thread but the loop's: `armHere` on the loop thread.
    func arm(_ name: String, _ predicate: @escaping (BenchEvent?) -> Bool) throws -> Watch {
        try sync { [self] in self.armHere(name, predicate) }
    }

    /// Waits until `watch` fired and returns its time; throws (with the last events seen) after `timeout`.
    @discardableResult
    func wait(_ watch: Watch, timeout: TimeInterval) throws -> UInt64 {
        if watch.semaphore.wait(timeout: .now() + timeout) == .success, let time = watch.firedAt {
            watch.semaphore.signal()   // a second wait returns at once
            return time
        }
        _ = try? sync { [self] in self.watches.removeAll { $0 === watch } }
        throw BenchError("timed out after \(timeout) s waiting for: \(watch.name)\nlast events seen by the benchmark:\n"
                         + recentEvents(last: 12, since: nil))
    }

    /// The last `count` events, one a line, dated relative to `since` (or to now, as negative times).
    func recentEvents(last count: Int, since start: UInt64?) -> String {
        (try? sync { [self] () -> String in
            let now = monotonicNanoseconds()
            return self.recent.suffix(count).map { time, text in
                let offset = start.map { (Double(time) - Double($0)) / 1e6 } ?? -(Double(now - time) / 1e6)
                return String(format: "  %+.2f ms %@", offset, text)
            }.joined(separator: "\n")
        }) ?? "  (the loop did not answer)"
    }

    private func fire(_ watch: Watch, at time: UInt64, event: BenchEvent?) {
        watch.firedAt = time
        watch.event = event
        watch.semaphore.signal()
    }

    private func dispatch(_ event: BenchEvent, at time: UInt64) {
        recent.append((time, event.description))
        if recent.count > 64 { recent.removeFirst(recent.count - 64) }
        guard !watches.isEmpty else { return }
        var remaining: [Watch] = []
        for watch in watches {
            if watch.predicate(event) { fire(watch, at: time, event: event) } else { remaining.append(watch) }
        }
        watches = remaining
    }

    // MARK: - sound server requests (loop thread)

    var context: OpaquePointer? { MainActor.assumeIsolated { soundServer.context.map(UInt.init(bitPattern:)) }.flatMap(OpaquePointer.init(bitPattern:)) }

    /// pa_context_load_module; `done` gets the module index (nil if it failed).
    func loadModule(_ name: String, arguments: String, done: @escaping (UInt32?) -> Void) {
        guard let context else { done(nil); return }
        let box = Unmanaged.passRetained(Callback<UInt32?>(done)).toOpaque()
        let operation = pa_context_load_module(context, name, arguments, { _, index, userdata in
            Unmanaged<Callback<UInt32?>>.fromOpaque(userdata!).takeRetainedValue().body(index == UInt32.max ? nil : index)
        }, box)
        finish(operation, box, Callback<UInt32?>.self, failure: nil)
    }

    /// pa_context_unload_module; `done(true)` once the server has done it.
    func unloadModule(_ index: UInt32, done: @escaping (Bool) -> Void) {
        guard let context else { done(false); return }
        let box = Unmanaged.passRetained(Callback<Bool>(done)).toOpaque()
        let operation = pa_context_unload_module(context, index, { _, success, userdata in
            Unmanaged<Callback<Bool>>.fromOpaque(userdata!).takeRetainedValue().body(success != 0)
        }, box)
        finish(operation, box, Callback<Bool>.self, failure: false)
    }

    func setDefaultSink(_ name: String, done: @escaping (Bool) -> Void) {
        guard let context else { done(false); return }
        let box = Unmanaged.passRetained(Callback<Bool>(done)).toOpaque()
        let operation = pa_context_set_default_sink(context, name, { _, success, userdata in
            Unmanaged<Callback<Bool>>.fromOpaque(userdata!).takeRetainedValue().body(success != 0)
        }, box)
        finish(operation, box, Callback<Bool>.self, failure: false)
    }

    /// "pulseaudio 16.1" (pipewire-pulse says "PulseAudio (on PipeWire 0.3.65)").
    func serverName(done: @escaping (String) -> Void) {
        guard let context else { done("?"); return }
        let box = Unmanaged.passRetained(Callback<String>(done)).toOpaque()
        let operation = pa_context_get_server_info(context, { _, info, userdata in
            let name = info.map { "\(String(cString: $0.pointee.server_name)) \(String(cString: $0.pointee.server_version))" } ?? "?"
            Unmanaged<Callback<String>>.fromOpaque(userdata!).takeRetainedValue().body(name)
        }, box)
        finish(operation, box, Callback<String>.self, failure: "?")
    }

    private func finish<T>(_ operation: OpaquePointer?, _ box: UnsafeMutableRawPointer, _ type: Callback<T>.Type, failure: T) {
        if let operation {
            pa_operation_unref(operation)
        } else {
            Unmanaged<Callback<T>>.fromOpaque(box).takeRetainedValue().body(failure)
        }
    }

    // MARK: - bus (loop thread)

    /// Sends a method call without waiting: `reply` gets the reply or the error when it comes.
    /// Returns the time read right before the message was handed to sd-bus (it writes it at once).
    @discardableResult
    func callAsync(destination: String, path: String, interface: String, member: String,
                   _ build: (MessageWriter) throws -> Void,
                   reply: @escaping (Result<MessageReader, BenchError>) -> Void) throws -> UInt64 {
        var message: OpaquePointer?
        var r = sd_bus_message_new_method_call(bus.pointer, &message, destination, path, interface, member)
        guard r >= 0, let message else { throw BenchError("creating call \(member): \(String(cString: strerror(-r)))") }
        defer { sd_bus_message_unref(message) }
        try build(MessageWriter(message))
        let box = Unmanaged.passRetained(Callback<Result<MessageReader, BenchError>>(reply)).toOpaque()
        // A floating slot (nil): sd-bus keeps the call until its reply or timeout comes.
        let sent = monotonicNanoseconds()
        r = sd_bus_call_async(bus.pointer, nil, message, { message, userdata, _ in
            let callback = Unmanaged<Callback<Result<MessageReader, BenchError>>>.fromOpaque(userdata!).takeRetainedValue()
            guard let message else { callback.body(.failure(BenchError("no reply"))); return 0 }
            if let error = sd_bus_message_get_error(message), error.pointee.name != nil {
                let name = String(cString: error.pointee.name)
                let text = error.pointee.message.map { String(cString: $0) } ?? ""
                callback.body(.failure(BenchError("\(name): \(text)")))
            } else {
                callback.body(.success(MessageReader(sd_bus_message_ref(message), owned: true)))
            }
            return 0
        }, box, 10_000_000)
        if r < 0 {
            Unmanaged<Callback<Result<MessageReader, BenchError>>>.fromOpaque(box).release()
            throw BenchError("sending \(member): \(String(cString: strerror(-r)))")
        }
        return sent
    }
}

/// A closure carried through a C callback's userdata.
final class Callback<T> {
    let body: (T) -> Void
    init(_ body: @escaping (T) -> Void) { self.body = body }
}

/// The daemon's wrappers are @MainActor: the bench's event loop runs on the main thread, and the
/// measurements are driven from a thread of their own (main.swift). `submit` hands the main
/// thread its work.
enum MainThreadWork {
    nonisolated(unsafe) private static var work: [() -> Void] = []
    private static let lock = NSCondition()

    static func submit(_ body: @escaping () -> Void) {
        lock.lock()
        work.append(body)
        lock.signal()
        lock.unlock()
    }

    /// Main thread: runs submitted work for ever (the process exits from the other thread).
    static func serve() -> Never {
        while true {
            lock.lock()
            while work.isEmpty { lock.wait() }
            let body = work.removeFirst()
            lock.unlock()
            body()
        }
    }
}
