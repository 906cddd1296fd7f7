import Foundation
import LectorTestKit
import XCTest

/// One private session (bus + PulseAudio) with `lector serve` running in it, a recorder on the
/// sink's monitor and a watcher on the daemon's signals. Everything is started through the
/// session (never Foundation.Process while it is up).
final class LectorFixture {
    static let service = "io.github.lector.Lector1"
    static let objectPath = "/io/github/lector/Lector1"
    static let interface = "io.github.lector.Lector1"
    static let errorPrefix = "io.github.lector.Error."

    let session: TestSession
    let recording: MonitorRecording
    let daemon: ManagedProcess
    let watcher: SignalWatcher
    var lector: String { LectorExecutable.path }

    /// Starts the session, recorder, daemon and watcher, in that order, so that every signal
    /// and every sound of the daemon is seen.
    init(sinks: [String] = ["lector_test"]) throws {
        let session = try TestSession(sinks: sinks)
        self.session = session
        recording = try session.record()
        daemon = try session.spawn(LectorExecutable.path, ["serve"], extraEnvironment: ["LECTOR_LOG": "stderr"])
        do {
            try session.waitForBusName(Self.service, timeout: 15)
        } catch {
            throw TestKitError.failed("lector serve did not take its name: \(error)\ndaemon said:\n\(daemon.output)")
        }
        watcher = try session.watchSignals(from: Self.service)
        guard watcher.waitUntilSubscribed(timeout: 10) else {
            throw TestKitError.timedOut("gdbus monitor did not subscribe:\n\(watcher.transcript)")
        }
    }

    func shutdown() { session.shutdown() }

    /// Daemon log, signals seen, bus/pulse logs: attached to failure messages.
    var context: String {
        "\n--- daemon (running: \(daemon.isRunning)) ---\n\(daemon.output)\n--- signals ---\n\(watcher.transcript)\n"
    }

    /// Some sound recorded at or after `instant` (which may be in the future) within `timeout`
    /// of then; returns the newest such. (Samples are dated from their chunk's arrival, so a chunk
    /// arriving after `instant` can hold samples dated before it: only a date at or after
    /// `instant` counts. MonitorRecording.waitForSound with a future date would count those.)
    func sound(after instant: Date, timeout: TimeInterval) -> Date? {
        if instant > Date() { Thread.sleep(until: instant) }
        let deadline = Date(timeIntervalSinceNow: timeout)
        repeat {
            if let last = recording.lastSound(after: instant), last >= instant { return last }
            usleep(5_000)
        } while Date() < deadline
        return nil
    }

    // MARK: - Calling the daemon

    /// `gdbus call` of a Lector1 method; arguments in gdbus's GVariant text syntax.
    func call(_ method: String, _ arguments: [String], timeout: TimeInterval = 15) throws -> ProcessResult {
        try session.run("gdbus", Self.gdbusCall(method, arguments), timeout: timeout)
    }

    static func gdbusCall(_ method: String, _ arguments: [String]) -> [String] {
        ["call", "--session", "--dest", service, "--object-path", objectPath,
         "--method", "\(interface).\(method)"] + arguments
    }

    /// Speak, which must succeed; returns the id.
    func speak(_ text: String, _ options: String = "{}", file: StaticString = #filePath, line: UInt = #line) throws -> UInt64 {
        let result = try call("Speak", [text, options])
        guard result.succeeded, let id = Self.uint64(in: result.stdout) else {
            XCTFail("Speak \(options) failed: \(result)\(context)", file: file, line: line)
            throw TestKitError.failed("Speak failed: \(result)")
        }
        return id
    }

    /// The value of the first `uint64 N` in gdbus output such as `(uint64 1,)`.
    static func uint64(in output: String) -> UInt64? {
        guard let range = output.range(of: #"uint64 [0-9]+"#, options: .regularExpression) else { return nil }
        return UInt64(output[range].dropFirst("uint64 ".count))
    }

    /// Asserts that a call failed with `io.github.lector.Error.<name>`.
    func assertError(_ result: ProcessResult, _ name: String, _ what: String,
                     file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertFalse(result.succeeded, "\(what): expected \(name), but the call succeeded: \(result)",
                       file: file, line: line)
        XCTAssertTrue(result.stderr.contains("GDBus.Error:\(Self.errorPrefix)\(name):"),
                      "\(what): expected error \(Self.errorPrefix)\(name), got: \(result)", file: file, line: line)
    }

    // MARK: - Signals

    func started(_ id: UInt64, timeout: TimeInterval) -> ObservedSignal? {
        watcher.wait(timeout: timeout) { $0.member == "SpeechStarted" && $0.arguments.first == String(id) }
    }

    func finished(_ id: UInt64, timeout: TimeInterval) -> ObservedSignal? {
        watcher.wait(timeout: timeout) { $0.member == "SpeechFinished" && $0.arguments.first == String(id) }
    }

    /// All signals about `id`, in arrival order.
    func signals(of id: UInt64) -> [ObservedSignal] {
        watcher.signals().filter { $0.arguments.first == String(id) }
    }

    func ranges(of id: UInt64) -> [ObservedSignal] {
        signals(of: id).filter { $0.member == "SpeakingRange" }
    }

    /// Reads a property with `busctl --user --json=short` and returns its decoded `data`.
    func property(_ name: String) throws -> Any {
        let result = try session.run("busctl", ["--user", "--json=short", "get-property", Self.service,
                                                Self.objectPath, Self.interface, name], timeout: 10)
        guard result.succeeded else { throw TestKitError.failed("get-property \(name): \(result)") }
        let object = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8))
        guard let dictionary = object as? [String: Any], let data = dictionary["data"] else {
            throw TestKitError.failed("unexpected busctl output: \(result.stdout)")
        }
        return data
    }

    /// The daemon process is alive and answers a method call on the bus.
    func assertServing(_ what: String, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertTrue(daemon.isRunning, "\(what): the daemon exited\(context)", file: file, line: line)
        let version = try? property("Version") as? String
        XCTAssertNotNil(version, "\(what): the daemon did not answer Get(Version)\(context)", file: file, line: line)
    }
}

/// Texts long enough to still be speaking after a few seconds.
enum Texts {
    static let long = """
        This is a long text that keeps the speaker busy for a good while. It has several sentences, \
        so that there is always more to say when the test interrupts it. The quick brown fox jumps \
        over the lazy dog, again and again, while the listener waits patiently for the end of it. \
        Nobody expects this paragraph to be read to the very end during a test.
        """
    static let short = "Hello world, this is a test."
}

extension Date {
    /// "+1.234 s" relative to `reference`, for failure messages.
    func since(_ reference: Date) -> String { String(format: "%+.3f s", timeIntervalSince(reference)) }
}

