import CSystemd
import Foundation
import LectorBus
import LectorInterface

/// Blocking calls on one sd-bus connection (LectorBus `Bus`, connected to this process's
/// `DBUS_SESSION_BUS_ADDRESS`, which `BenchSession` points at the private bus). Not thread-safe,
/// like `Bus`: every thread that calls makes its own. Needs no event loop.
final class BusClient {
    static let properties = "org.freedesktop.DBus.Properties"

    let bus: Bus
    /// Where `player`, `property` and GetAll go: lector's MPRIS name, or mpv's.
    let destination: String

    init(destination: String = MPRISNames.service) throws {
        bus = try Bus.session()
        self.destination = destination
    }

    @discardableResult
    func call(path: String, interface: String, member: String, timeout seconds: Double = 30,
              _ build: (MessageWriter) throws -> Void = { _ in }) throws -> MessageReader {
        try bus.call(destination: destination, path: path, interface: interface, member: member,
                     timeoutMicroseconds: UInt64(seconds * 1_000_000), build)
    }

    /// `Speak(text, {})` on lector's own interface; returns the speech id.
    @discardableResult
    func speak(_ text: String) throws -> UInt64 {
        try bus.call(destination: BusNames.service, path: BusNames.objectPath, interface: BusNames.interface,
                     member: "Speak") { writer in
            try writer.append(text)
            try writer.container("a", "{sv}") {}
        }.readUInt64()
    }

    /// `Narrator1.Open(uri, options)`, e.g. `["from-start": true, "play": false]`.
    func open(_ url: URL, options: [String: Bool] = [:], timeout seconds: Double = 30) throws {
        do {
            try call(path: BusNames.objectPath, interface: MPRISNames.narrator, member: "Open", timeout: seconds) { writer in
                try writer.append(url.absoluteString)
                try writer.container("a", "{sv}") {
                    for (key, value) in options.sorted(by: { $0.key < $1.key }) {
                        try writer.entry(key, "b") { try $0.append(value) }
                    }
                }
            }
        } catch {
            throw BenchError("Narrator1.Open \(url.lastPathComponent) failed: \(error)")
        }
    }

    /// An MPRIS Player method, e.g. "Play".
    func player(_ member: String) throws {
        do {
            try call(path: MPRISNames.path, interface: MPRISNames.player, member: member)
        } catch {
            throw BenchError("MPRIS \(member) failed: \(error)")
        }
    }

    func property(path: String = MPRISNames.path, interface: String = MPRISNames.player, _ name: String) throws -> String {
        do {
            return try call(path: path, interface: Self.properties, member: "Get") {
                try $0.append(interface)
                try $0.append(name)
            }.readDisplayVariant()
        } catch {
            throw BenchError("reading \(interface).\(name) failed: \(error)")
        }
    }

    func playbackStatus() throws -> String { try property("PlaybackStatus") }

    func pausedBecause() throws -> String {
        try property(path: BusNames.objectPath, interface: MPRISNames.narrator, "PausedBecause")
    }

    /// Polls PlaybackStatus until it is `status`; false after `timeout`.
    func waitForStatus(_ status: String, timeout: TimeInterval) -> Bool {
        let deadline = Date(timeIntervalSinceNow: timeout)
        while Date() < deadline {
            if (try? playbackStatus()) == status { return true }
            usleep(20_000)
        }
        return false
    }

    /// The measured call of the GetAll rows: Properties.GetAll("org.mpris.MediaPlayer2.Player"),
    /// the reply dropped.
    @inline(__always)
    func getAllPlayer() throws {
        _ = try call(path: MPRISNames.path, interface: Self.properties, member: "GetAll") {
            try $0.append(MPRISNames.player)
        }
    }

    /// GetAll's reply as text, to check it is a real answer (and count what it carries).
    func getAllPlayerDisplay() throws -> [String: String] {
        try call(path: MPRISNames.path, interface: Self.properties, member: "GetAll") {
            try $0.append(MPRISNames.player)
        }.readDisplayDictionary()
    }
}

/// A daemon signal as the benchmark received it, dated when sd-bus handed it to the match handler.
struct ReceivedSignal: Sendable {
    let member: String
    /// PropertiesChanged: the interface whose properties changed; its changed values as text.
    let interface: String?
    let changed: [String: String]
    /// SpeechFinished(t id, s reason).
    let speechFinished: (id: UInt64, reason: String)?
    let receivedAt: Date
}

/// Collects the daemon's signals on a bus connection of its own, processed by a thread of its own
/// (`Bus.processOrWait`), so each is dated by its match handler when it reaches this process, not
/// when the benchmark next looks.
final class SignalRecorder: @unchecked Sendable {
    /// Lector's signals and every PropertiesChanged (no sender= in the rules: sd-bus compares a
    /// sender locally with the unique name; only the daemon emits these on the private bus).
    static let lectorRules = [
        "type='signal',interface='org.freedesktop.DBus.Properties',member='PropertiesChanged'",
        "type='signal',interface='\(BusNames.interface)'",
    ]

    private let condition = NSCondition()
    private var received: [ReceivedSignal] = []
    private var stopped = false
    private var endedBecause: String?

    init(rules: [String] = SignalRecorder.lectorRules) throws {
        let ready = DispatchSemaphore(value: 0)
        // Written by the thread before it signals `ready`, read after the wait: ordered by the semaphore.
        nonisolated(unsafe) var setupError: Error?
        let thread = Thread { [self] in
            let bus: Bus
            do {
                bus = try Bus.session()
                for rule in rules { try bus.addMatch(rule) { [self] message in record(message) } }
            } catch {
                setupError = error
                ready.signal()
                return
            }
            ready.signal()
            processUntilStopped(bus)
        }
        thread.name = "SignalRecorder"
        thread.start()
        ready.wait()
        if let setupError { throw BenchError("the signal recorder could not listen: \(setupError)") }
    }

    /// How many signals have been received; pass it to `wait(after:)` to look only at later ones.
    var count: Int { condition.withLock { received.count } }

    func signals(from start: Int) -> [ReceivedSignal] {
        condition.withLock { Array(received[min(start, received.count)...]) }
    }

    /// The first signal at index `start` or later that matches, waiting up to `timeout` for it.
    func wait(after start: Int, timeout: TimeInterval, for predicate: (ReceivedSignal) -> Bool) -> ReceivedSignal? {
        let deadline = Date(timeIntervalSinceNow: timeout)
        condition.lock()
        defer { condition.unlock() }
        var checked = start
        while true {
            while checked < received.count {
                if predicate(received[checked]) { return received[checked] }
                checked += 1
            }
            if endedBecause != nil || !condition.wait(until: deadline) { break }
        }
        return received[min(checked, received.count)...].first(where: predicate)
    }

    /// Why the recorder stopped early (the bus went away), or nil while it listens.
    var failure: String? { condition.withLock { endedBecause } }

    func stop() { condition.withLock { stopped = true } }

    private func record(_ message: MessageReader) {
        let now = Date()
        var interface: String?
        var changed: [String: String] = [:]
        var finished: (UInt64, String)?
        switch message.member {
        case "PropertiesChanged":
            interface = try? message.readString()
            changed = (try? message.readDisplayDictionary()) ?? [:]
        case "SpeechFinished":
            if let id = try? message.readUInt64(), let reason = try? message.readString() { finished = (id, reason) }
        default:
            break
        }
        let signal = ReceivedSignal(member: message.member, interface: interface, changed: changed,
                                    speechFinished: finished, receivedAt: now)
        condition.withLock {
            received.append(signal)
            condition.broadcast()
        }
    }

    private func processUntilStopped(_ bus: Bus) {
        while !condition.withLock({ stopped }) {
            do {
                try bus.processOrWait(timeoutMicroseconds: 200_000)
            } catch {
                condition.withLock {
                    endedBecause = "\(error)"
                    condition.broadcast()
                }
                return
            }
        }
        bus.close()
    }
}
