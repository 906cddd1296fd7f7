import ArgumentParser
import FoundationEssentials
import Glibc
import LectorBus
import LectorInterface
import LectorLoop

/// The CLI's side of the bus: call `Speak`, wait for `SpeechFinished`, start the daemon if needed.
///
/// Commands that change something start the daemon (`start: true`, the default); read-only ones
/// (`status`, `queue`) pass `start: false` and get `NotRunning` instead of a daemon started just
/// to say that nothing plays.
///
/// ```swift
/// let client = try DaemonClient()
/// let reply = try client.callDaemon(path: BusNames.objectPath, interface: BusNames.interface, member: "GetQueue", start: false)
/// ```
public final class DaemonClient {
    public let bus: Bus
    private var finished: [UInt64: String] = [:]
    private var daemonGone = false

    /// The daemon is not running and was not to be started for this question.
    public struct NotRunning: Error, CustomStringConvertible {
        public init() {}
        public var description: String { "Lector is not running" }
    }

    public init() throws {
        do {
            bus = try Bus.session()
        } catch {
            throw CLIError("no session bus: \(error). Run inside a desktop session or set DBUS_SESSION_BUS_ADDRESS.")
        }
    }

    /// Subscribes to `SpeechFinished` and the daemon's exit; call before `speak` so no signal is missed.
    public func watchFinishes() throws {
        let rule = "type='signal',sender='\(BusNames.service)',path='\(BusNames.objectPath)',interface='\(BusNames.interface)',member='SpeechFinished'"
        try bus.addMatch(rule) { [weak self] message in
            if let id = try? message.readUInt64(), let reason = try? message.readString() { self?.finished[id] = reason }
        }
        let owner = "type='signal',sender='org.freedesktop.DBus',member='NameOwnerChanged',arg0='\(BusNames.service)'"
        try bus.addMatch(owner) { [weak self] message in
            _ = try? message.readString()
            _ = try? message.readString()
            if (try? message.readString()) == "" { self?.daemonGone = true }
        }
    }

    public func speak(_ text: String, options: (MessageWriter) throws -> Void) throws -> UInt64 {
        try callDaemon(path: BusNames.objectPath, interface: BusNames.interface, member: "Speak") { writer in
            try writer.append(text)
            try options(writer)
        }.readUInt64()
    }

    /// `org.freedesktop.DBus.Properties.Get` on the daemon (started if needed, unless `start` is false).
    public func property(_ path: String, _ interface: String, _ name: String, start: Bool = true) throws -> MessageReader {
        try callDaemon(path: path, interface: "org.freedesktop.DBus.Properties", member: "Get", start: start) {
            try $0.append(interface)
            try $0.append(name)
        }
    }

    /// Any method of the daemon; lector's own errors become plain messages. A daemon that is not
    /// running is started (by D-Bus activation, or by `startDaemon` without an activation file),
    /// unless `start` is false: then it is `NotRunning`.
    public func callDaemon(path: String, interface: String, member: String, start: Bool = true,
                    _ build: (MessageWriter) throws -> Void = { _ in }) throws -> MessageReader {
        func attempt() throws -> MessageReader {
            do {
                return try bus.call(destination: BusNames.service, path: path, interface: interface, member: member,
                                    autoStart: start, build)
            } catch let error as BusCallError where error.name.hasPrefix(LectorError.namePrefix) {
                throw CLIError(error.message + " (\(error.name))")
            }
        }
        do {
            return try attempt()
        } catch let error as BusCallError where Self.notRunningErrors.contains(error.name) {
            guard start else { throw NotRunning() }
            try startDaemon()
            return try attempt()
        }
    }

    /// What the bus answers for a name nobody owns: ServiceUnknown (nothing can start it), or
    /// NameHasNoOwner (a call that asked not to start it).
    public static let notRunningErrors: Set<String> = ["org.freedesktop.DBus.Error.ServiceUnknown",
                                                "org.freedesktop.DBus.Error.NameHasNoOwner"]

    /// Whether a daemon owns Lector's name now (asking starts nothing).
    public func daemonIsRunning() throws -> Bool {
        try bus.call(destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus",
                     interface: "org.freedesktop.DBus", member: "NameHasOwner") {
            try $0.append(BusNames.service)
        }.readBool()
    }

    /// Waits for speech `id` to finish and returns its reason. Ctrl-C (or SIGTERM, SIGHUP) while
    /// waiting cancels that speech first, then exits with 128 + the signal, as shells expect:
    /// the speech belongs to this command and must not talk on after it.
    public func waitForFinish(of id: UInt64, interrupts: InterruptSignals) throws -> String {
        while true {
            if let reason = finished[id] { return reason }
            if let signal = interrupts.received {
                interrupts.restoreDefaults()   // a second Ctrl-C ends the command at once
                cancelAfterInterrupt(id)
                throw ExitCode(128 + signal)
            }
            if daemonGone { throw CLIError("the Lector daemon exited before speech \(id) finished") }
            do {
                // Short: a signal landing just before the wait starts is seen within 250 ms.
                try bus.processOrWait(timeoutMicroseconds: 250_000)
            } catch let error as SystemError where error.errno == EINTR {
                continue   // a signal: seen at the top of the loop
            }
        }
    }

    /// Cancels `id` and waits (briefly) for the daemon to say it ended, so the speech is silent
    /// before the command returns to the shell.
    private func cancelAfterInterrupt(_ id: UInt64) {
        do {
            _ = try bus.call(destination: BusNames.service, path: BusNames.objectPath, interface: BusNames.interface,
                             member: "Cancel", timeoutMicroseconds: 3_000_000, autoStart: false) { try $0.append(id) }
        } catch {
            // Already finished (NoSuchSpeech) or the daemon went away: nothing speaks on either way.
            return
        }
        let deadline = Date(timeIntervalSinceNow: 2)
        while finished[id] == nil, !daemonGone, Date() < deadline {
            try? bus.processOrWait(timeoutMicroseconds: 100_000)
        }
        StandardError.write("lector: speech \(id) cancelled\n")
    }

    /// No activation file: starts the daemon (`lectord`) detached (`DaemonLauncher`), and waits until it
    /// owns its name.
    private func startDaemon() throws {
        let launched = try DaemonLauncher.launch()
        let deadline = Date(timeIntervalSinceNow: 5)
        while Date() < deadline {
            if (try? daemonIsRunning()) == true { return }
            if let status = launched.exitStatus() {
                throw CLIError("the daemon (lectord) exited with status \(status)" + (launched.log.map { "; its log: \($0)" } ?? ""))
            }
            usleep(20_000)
        }
        throw CLIError("the Lector daemon did not appear on the bus within 5 seconds"
                       + (launched.log.map { "; its log: \($0)" } ?? ""))
    }
}

/// A message for the person at the terminal, and exit status 1.
public struct CLIError: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}
