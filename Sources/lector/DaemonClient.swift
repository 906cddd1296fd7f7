import ArgumentParser
import Foundation
import LectorBus
import LectorInterface

/// The CLI's side of the bus: call `Speak`, wait for `SpeechFinished`, start the daemon if needed.
final class DaemonClient {
    let bus: Bus
    private var finished: [UInt64: String] = [:]
    private var daemonGone = false

    init() throws {
        do {
            bus = try Bus.session()
        } catch {
            throw CLIError("no session bus: \(error). Run inside a desktop session or set DBUS_SESSION_BUS_ADDRESS.")
        }
    }

    /// Subscribes to `SpeechFinished` and the daemon's exit; call before `speak` so no signal is missed.
    func watchFinishes() throws {
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

    func speak(_ text: String, options: (MessageWriter) throws -> Void) throws -> UInt64 {
        do {
            return try callSpeak(text, options)
        } catch let error as BusCallError where error.name == "org.freedesktop.DBus.Error.ServiceUnknown" {
            // No activation file installed: start the daemon ourselves, then try once more.
            try startDaemon()
            return try callSpeak(text, options)
        }
    }

    private func callSpeak(_ text: String, _ options: (MessageWriter) throws -> Void) throws -> UInt64 {
        do {
            let reply = try bus.call(destination: BusNames.service, path: BusNames.objectPath,
                                     interface: BusNames.interface, member: "Speak") { writer in
                try writer.append(text)
                try options(writer)
            }
            return try reply.readUInt64()
        } catch let error as BusCallError where error.name.hasPrefix("io.github.lector.Error.") {
            throw CLIError(error.message + " (\(error.name))")
        }
    }

    /// `org.freedesktop.DBus.Properties.Get` on the running daemon (starting it if needed).
    func property(_ path: String, _ interface: String, _ name: String) throws -> MessageReader {
        try bus.call(destination: BusNames.service, path: path, interface: "org.freedesktop.DBus.Properties",
                     member: "Get") {
            try $0.append(interface)
            try $0.append(name)
        }
    }

    /// Any method of the daemon; lector's own errors become plain messages, ServiceUnknown starts it.
    func callDaemon(path: String, interface: String, member: String,
                    _ build: (MessageWriter) throws -> Void = { _ in }) throws -> MessageReader {
        func attempt() throws -> MessageReader {
            do {
                return try bus.call(destination: BusNames.service, path: path, interface: interface, member: member, build)
            } catch let error as BusCallError where error.name.hasPrefix("io.github.lector.Error.") {
                throw CLIError(error.message + " (\(error.name))")
            }
        }
        do {
            return try attempt()
        } catch let error as BusCallError where error.name == "org.freedesktop.DBus.Error.ServiceUnknown" {
            try startDaemon()
            return try attempt()
        }
    }

    func waitForFinish(of id: UInt64) throws -> String {
        while true {
            if let reason = finished[id] { return reason }
            if daemonGone { throw CLIError("the Lector daemon exited before speech \(id) finished") }
            try bus.processOrWait(timeoutMicroseconds: 1_000_000)
        }
    }

    private func startDaemon() throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        if !FileManager.default.isExecutableFile(atPath: process.executableURL!.path) {
            process.executableURL = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        }
        process.arguments = ["serve"]
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        for _ in 0..<100 {
            let reply = try? bus.call(destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus",
                                      interface: "org.freedesktop.DBus", member: "NameHasOwner") {
                try $0.append(BusNames.service)
            }
            if let reply, (try? reply.readBool()) == true { return }
            if !process.isRunning { throw CLIError("lector serve exited with status \(process.terminationStatus)") }
            usleep(50_000)
        }
        throw CLIError("the Lector daemon did not appear on the bus within 5 seconds")
    }
}

/// A message for the person at the terminal, and exit status 1.
struct CLIError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
