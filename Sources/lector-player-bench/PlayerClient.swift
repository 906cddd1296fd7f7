import Foundation
import LectorBus
#if canImport(Glibc)
import Glibc
#endif

/// MPRIS calls on one in-process sd-bus connection (LectorBus). Not thread-safe, like `Bus`:
/// each thread that calls makes its own.
final class PlayerClient {
    static let mprisPath = "/org/mpris/MediaPlayer2"
    static let playerInterface = "org.mpris.MediaPlayer2.Player"
    static let propertiesInterface = "org.freedesktop.DBus.Properties"

    let bus: Bus
    let destination: String

    /// Connects to `DBUS_SESSION_BUS_ADDRESS` of this process (the bench points it at the private bus).
    init(destination: String) throws {
        bus = try Bus.session()
        self.destination = destination
    }

    @discardableResult
    func player(_ member: String, _ build: (MessageWriter) throws -> Void = { _ in }) throws -> MessageReader {
        try bus.call(destination: destination, path: Self.mprisPath, interface: Self.playerInterface,
                     member: member, build)
    }

    /// The measured call: Properties.GetAll("org.mpris.MediaPlayer2.Player"); the reply is dropped.
    @inline(__always)
    func getAllPlayer() throws {
        _ = try bus.call(destination: destination, path: Self.mprisPath, interface: Self.propertiesInterface,
                         member: "GetAll") { try $0.append(Self.playerInterface) }
    }

    /// GetAll's reply as text, to check it is a real answer (and show what it carries).
    func getAllPlayerDisplay() throws -> [String: String] {
        try bus.call(destination: destination, path: Self.mprisPath, interface: Self.propertiesInterface,
                     member: "GetAll") { try $0.append(Self.playerInterface) }.readDisplayDictionary()
    }

    func playerProperty(_ name: String) throws -> String {
        let reply = try bus.call(destination: destination, path: Self.mprisPath, interface: Self.propertiesInterface,
                                 member: "Get") {
            try $0.append(Self.playerInterface)
            try $0.append(name)
        }
        return try reply.readDisplayVariant()
    }

    /// Polls PlaybackStatus until it is `status`; false after `timeout`.
    func waitForStatus(_ status: String, timeout: TimeInterval) -> Bool {
        let deadline = Date(timeIntervalSinceNow: timeout)
        while Date() < deadline {
            if (try? playerProperty("PlaybackStatus")) == status { return true }
            usleep(20_000)
        }
        return false
    }
}

/// Monotonic nanoseconds.
@inline(__always)
func monotonicNanoseconds() -> UInt64 {
    var spec = timespec()
    clock_gettime(CLOCK_MONOTONIC, &spec)
    return UInt64(spec.tv_sec) * 1_000_000_000 + UInt64(spec.tv_nsec)
}
