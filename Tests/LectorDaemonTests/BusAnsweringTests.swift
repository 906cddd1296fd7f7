import CSystemd
import Foundation
import LectorBus
import LectorLoop
import LectorTestKit
import XCTest

/// `Bus.beforeAnswering` on a real private dbus-daemon: what a method handler emits leaves after
/// the hook (where the daemon sends its cork), in the order emitted, and before the reply; a
/// reply the handler sends itself still follows what it emitted before. The client is a second
/// connection in this process, read only when the test says so, so the hook can look whether
/// anything of the handler's has reached it yet.
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
        let log = try call("Touch", until: "reply")
        XCTAssertEqual(log, ["handler", "hook", "signal Touched", "signal PropertiesChanged", "reply"],
                       "the handler's signals leave after the hook, in the order emitted, then the reply")
    }

    func testAReplyTheHandlerSendsItselfFollowsWhatItEmittedBefore() throws {
        let log = try call("Early", until: "signal After")
        XCTAssertEqual(log, ["handler", "signal Before", "reply", "hook", "signal After"],
                       "a signal emitted before an early reply goes first; one emitted after it waits for the hook")
    }

    /// Calls `member` from the client and returns the log once `last` is in it.
    private func call(_ member: String, until last: String) throws -> [String] {
        let session = try TestSession(startSoundServer: false)
        defer { session.shutdown() }
        let overridden = EnvironmentOverride(["DBUS_SESSION_BUS_ADDRESS": session.busAddress])
        defer { overridden.restore() }

        return try MainActor.assumeIsolated {
            Self.log = []
            let loop = try EventLoop()
            defer { loop.close() }
            let server = try Bus.session()
            let client = try Bus.session()
            defer {
                client.close()
                server.close()
            }
            let emit = { (member: String) in
                try server.emitSignal(path: Self.path, interface: Self.interface, member: member) { _ in }
            }
            let target = Target()   // held here: an object holds its target weakly
            let object = BusObject(path: Self.path, interface: Self.interface, target: target, members: [
                .method("Touch") { target, _ in
                    Self.log.append("handler")
                    target.count += 1
                    try emit("Touched")
                    server.emitPropertiesChanged(path: Self.path, interface: Self.interface, names: ["Count"])
                    return .done
                },
                .method("Early") { _, call in
                    Self.log.append("handler")
                    try emit("Before")
                    call.reply { _ in }
                    try emit("After")
                    return .answered
                },
                .signal("Touched", "", []),
                .signal("Before", "", []),
                .signal("After", "", []),
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
            var message: OpaquePointer?
            guard sd_bus_message_new_method_call(client.pointer, &message, try Self.uniqueName(of: server), Self.path,
                                                 Self.interface, member) >= 0, let message else {
                throw TestKitError.failed("could not make the call")
            }
            defer { sd_bus_message_unref(message) }
            guard sd_bus_call_async(client.pointer, nil, message, { _, _, _ in
                MainActor.assumeIsolated { BusAnsweringTests.log.append("reply") }
                return 0
            }, nil, 0) >= 0 else { throw TestKitError.failed("could not send the call") }

            // The server answers on the loop; the client is read from a timer on the same loop.
            let deadline = Date().addingTimeInterval(10)
            var poll: EventSource?
            poll = try loop.timer {
                while sd_bus_process(client.pointer, nil) > 0 {}
                if Self.log.contains(last) || Date() > deadline { loop.exit(0) } else { poll?.schedule(after: 2_000) }
            }
            poll?.schedule(after: 0)
            _ = try loop.run()
            poll?.close()
            withExtendedLifetime(target) {}
            return Self.log
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
