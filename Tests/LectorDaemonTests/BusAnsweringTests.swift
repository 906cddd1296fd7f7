import CSystemd
import Foundation
import LectorBus
import LectorLoop
import LectorTestKit
import XCTest

/// `Bus.beforeAnswering` on a real private dbus-daemon: what a method handler emits leaves after
/// the hook (where the daemon sends its cork), in the order emitted, and before the reply. The
/// client is a second connection in this process, read only when the test says so, so the hook
/// can look whether anything of the handler's has reached it yet.
final class BusAnsweringTests: XCTestCase {
    private static let interface = "io.github.lector.Test.Answering"
    private static let path = "/io/github/lector/Test"

    /// What happened, in order: on the server's side and as the client received it.
    @MainActor private static var log: [String] = []

    @MainActor
    final class Target {
        var count: UInt32 = 0
    }

    func testWhatAHandlerEmitsLeavesAfterTheHookAndBeforeTheReply() throws {
        let session = try TestSession(startSoundServer: false)
        defer { session.shutdown() }
        let saved = ProcessInfo.processInfo.environment["DBUS_SESSION_BUS_ADDRESS"]
        setenv("DBUS_SESSION_BUS_ADDRESS", session.busAddress, 1)
        defer { if let saved { setenv("DBUS_SESSION_BUS_ADDRESS", saved, 1) } else { unsetenv("DBUS_SESSION_BUS_ADDRESS") } }

        try MainActor.assumeIsolated {
            Self.log = []
            let loop = try EventLoop()
            defer { loop.close() }
            let server = try Bus.session()
            let client = try Bus.session()
            defer {
                client.close()
                server.close()
            }
            let target = Target()
            let object = BusObject(path: Self.path, interface: Self.interface, target: target, members: [
                .method("Touch") { target, _ in
                    Self.log.append("handler")
                    target.count += 1
                    try server.emitSignal(path: Self.path, interface: Self.interface, member: "Touched") { _ in }
                    server.emitPropertiesChanged(path: Self.path, interface: Self.interface, names: ["Count"])
                    return .done
                },
                .signal("Touched", "", []),
                .property("Count", "u", .change) { target, reply in try reply.append(target.count) },
            ])
            try server.add(object)
            try server.attach(to: loop)
            server.beforeAnswering = {
                // Anything the handler had sent would reach the client within this time, and be
                // logged before the hook is.
                let deadline = Date().addingTimeInterval(0.2)
                while Date() < deadline { try? client.processOrWait(timeoutMicroseconds: 10_000) }
                Self.log.append("hook")
            }

            try client.addMatch("type='signal',path='\(Self.path)'") { message in
                MainActor.assumeIsolated { Self.log.append("signal \(message.member)") }
            }
            let unique = try Self.uniqueName(of: server)
            var call: OpaquePointer?
            XCTAssertGreaterThanOrEqual(sd_bus_message_new_method_call(client.pointer, &call, unique, Self.path,
                                                                        Self.interface, "Touch"), 0)
            defer { sd_bus_message_unref(call) }
            XCTAssertGreaterThanOrEqual(sd_bus_call_async(client.pointer, nil, call, { _, _, _ in
                MainActor.assumeIsolated { BusAnsweringTests.log.append("reply") }
                return 0
            }, nil, 0), 0)

            // The server answers on the loop; the client is read from a timer on the same loop.
            let deadline = Date().addingTimeInterval(10)
            var poll: EventSource?
            poll = try loop.timer {
                while sd_bus_process(client.pointer, nil) > 0 {}
                if Self.log.contains("reply") || Date() > deadline { loop.exit(0) } else { poll?.schedule(after: 2_000) }
            }
            poll?.schedule(after: 0)
            _ = try loop.run()
            poll?.close()

            XCTAssertEqual(Self.log, ["handler", "hook", "signal Touched", "signal PropertiesChanged", "reply"],
                           "the handler's signals leave after the hook, in the order emitted, then the reply")
            XCTAssertEqual(target.count, 1)
        }
    }

    /// The server connection's unique name, which the client calls (no well-known name needed).
    private static func uniqueName(of bus: Bus) throws -> String {
        var name: UnsafePointer<CChar>?
        let r = sd_bus_get_unique_name(bus.pointer, &name)
        guard r >= 0, let name else { throw TestKitError.failed("sd_bus_get_unique_name: \(r)") }
        return String(cString: name)
    }
}
