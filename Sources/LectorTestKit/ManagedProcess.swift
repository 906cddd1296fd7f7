import Foundation
#if canImport(Glibc)
import Glibc
#endif
import LectorSpawn

/// A child process the test owns, started with posix_spawn in its own process group so signals reach
/// the whole group: a `sh -c "a | b"` pipeline, or the services a dbus-daemon activated, die with it.
/// Never outlives its owner: deinit terminates it.
///
/// Not Foundation.Process: on Linux its single manager thread does a blocking waitpid as soon as a
/// child closes an inherited socket, which daemons like pulseaudio do at startup; from then on no
/// Foundation.Process in the test process is ever seen to exit. We reap our own children with
/// waitpid(pid, WNOHANG) instead, and close every inherited descriptor in the child.
public final class ManagedProcess: @unchecked Sendable {
    /// Where the child's stdout goes: a log file for long-lived processes (no pipe to fill up),
    /// or a pipe whose read end the caller drains on its own thread (parec, gdbus monitor).
    enum Output {
        case file(URL)
        /// Receives the read end of a new pipe; the caller owns and closes it.
        case pipe

        var fileURL: URL? {
            if case .file(let url) = self { return url }
            return nil
        }
    }

    public let pid: Int32
    public let name: String
    /// Read end of the stdout pipe for `.pipe` output, else -1. Owned by whoever asked for the pipe.
    let pipeReadDescriptor: Int32
    private let stdoutFile: URL?
    private let stderrFile: URL
    private let lock = NSLock()
    private var waitStatus: Int32?
    private var usage: rusage?

    init(executable: URL, arguments: [String], environment: [String: String],
         stdin: URL?, stdout: Output, stderr: URL) throws {
        name = executable.lastPathComponent
        stdoutFile = stdout.fileURL
        stderrFile = stderr

        var parentDescriptors: [Int32] = []  // closed in the parent once the child has its copies
        defer { parentDescriptors.forEach { close($0) } }
        func openFile(_ path: String, _ flags: Int32) throws -> Int32 {
            let descriptor = open(path, flags | O_CLOEXEC, 0o644)
            guard descriptor >= 0 else { throw TestKitError.failed("open \(path): \(String(cString: strerror(errno)))") }
            parentDescriptors.append(descriptor)
            return descriptor
        }
        let stdinDescriptor = try openFile(stdin?.path ?? "/dev/null", O_RDONLY)
        let stderrDescriptor = try openFile(stderr.path, O_WRONLY | O_CREAT | O_TRUNC)
        let stdoutDescriptor: Int32
        switch stdout {
        case .file(let url):
            stdoutDescriptor = try openFile(url.path, O_WRONLY | O_CREAT | O_TRUNC)
            pipeReadDescriptor = -1
        case .pipe:
            var ends: [Int32] = [-1, -1]
            guard pipe(&ends) == 0 else { throw TestKitError.failed("pipe: \(String(cString: strerror(errno)))") }
            _ = fcntl(ends[0], F_SETFD, FD_CLOEXEC)
            _ = fcntl(ends[1], F_SETFD, FD_CLOEXEC)
            parentDescriptors.append(ends[1])
            stdoutDescriptor = ends[1]
            pipeReadDescriptor = ends[0]
        }

        do {
            pid = try Self.spawn(executable.path, arguments: arguments, environment: environment,
                                 stdio: [stdinDescriptor, stdoutDescriptor, stderrDescriptor])
        } catch {
            if pipeReadDescriptor >= 0 { close(pipeReadDescriptor) }
            throw error
        }
    }

    deinit {
        if isRunning { terminate(grace: 1) }
    }

    public var isRunning: Bool { reap() == nil }

    /// Exit code, or 128 + signal when killed by a signal; nil while running.
    /// -1 if the status was lost because something else in the test process reaped the child.
    public var exitStatus: Int32? {
        guard let status = reap() else { return nil }
        if status == -1 { return -1 }
        let signal = status & 0x7f
        return signal == 0 ? (status >> 8) & 0xff : 128 + signal
    }

    /// What the child used over its whole life, all its threads summed (wait4's rusage: CPU time
    /// in `ru_utime`/`ru_stime`, context switches in `ru_nvcsw`/`ru_nivcsw`); nil while it runs or
    /// when something else reaped it. /proc/PID/task/*/status cannot tell this once it has exited.
    public var resourceUsage: rusage? {
        _ = reap()
        return lock.withLock { usage }
    }

    /// Sends `signal` to the process group, waits up to `grace` for the process to exit,
    /// then SIGKILLs the group (which also sweeps up children that ignored the first signal).
    public func terminate(signal: Int32 = SIGTERM, grace: TimeInterval = 3) {
        Self.terminateAll([self], signal: signal, grace: grace)
    }

    /// Sends `signal` to this process only (not its group) and returns at once, e.g. to test
    /// how the daemon under test handles SIGINT or SIGHUP.
    public func send(signal: Int32) {
        if isRunning { kill(pid, signal) }
    }

    /// Exit status (see `exitStatus`), or nil if still running after `timeout`.
    public func waitForExit(timeout: TimeInterval) -> Int32? {
        let deadline = Date(timeIntervalSinceNow: timeout)
        while isRunning && Date() < deadline { usleep(2_000) }
        return exitStatus
    }

    /// Captured stdout (if it went to a file) followed by stderr, for failure messages.
    public var output: String {
        let out = standardOutput, err = standardError
        if out.isEmpty { return err }
        if err.isEmpty { return out }
        return out + (out.hasSuffix("\n") ? "" : "\n") + err
    }

    public var standardOutput: String {
        stdoutFile.flatMap { try? String(contentsOf: $0, encoding: .utf8) } ?? ""
    }

    public var standardError: String {
        (try? String(contentsOf: stderrFile, encoding: .utf8)) ?? ""
    }

    /// Signals all groups first and then waits once, so shutting down many processes costs one grace period.
    /// A group is only signalled while its leader is unreaped (so the number cannot have been reused);
    /// stragglers of a group whose leader already died are found by the session's environment sweep.
    static func terminateAll(_ processes: [ManagedProcess], signal: Int32 = SIGTERM, grace: TimeInterval) {
        for managed in processes { managed.signalGroup(signal) }
        let deadline = Date(timeIntervalSinceNow: grace)
        while processes.contains(where: \.isRunning) && Date() < deadline { usleep(2_000) }
        for managed in processes { managed.signalGroup(SIGKILL) }
        let reapDeadline = Date(timeIntervalSinceNow: 2)
        while processes.contains(where: \.isRunning) && Date() < reapDeadline { usleep(2_000) }
    }

    private func signalGroup(_ signal: Int32) {
        guard isRunning else { return }
        if kill(-pid, signal) != 0 { kill(pid, signal) }
    }

    /// The raw wait status once the child has been reaped, nil while it runs.
    private func reap() -> Int32? {
        lock.lock()
        defer { lock.unlock() }
        if let waitStatus { return waitStatus }
        var status: Int32 = 0
        var used = rusage()
        let result = wait4(pid, &status, WNOHANG, &used)
        if result == pid {
            waitStatus = status
            usage = used
        } else if result == -1 && errno == ECHILD {
            waitStatus = -1
        }
        return waitStatus
    }

    // MARK: - Spawning

    private static func spawn(_ path: String, arguments: [String], environment: [String: String],
                              stdio: [Int32]) throws -> Int32 {
        do {
            // Its own process group: signals reach it and its children, none of ours.
            return try Spawn.start(path, arguments: arguments, environment: environment, stdio: stdio, detach: .processGroup)
        } catch {
            throw TestKitError.failed("posix_spawn \(path): \(String(cString: strerror(error.code)))")
        }
    }
}
