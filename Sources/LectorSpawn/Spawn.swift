import FoundationEssentials
import Glibc

/// Starts a child program the way every child of Lector starts (the daemon launched by the CLI,
/// the read-along server, the test kit's servers and clients), with `posix_spawn`:
/// - standard input, output and error on the three descriptors given, and no other descriptor
///   of ours (glibc's closefrom action, else each open one closed): a pipe or socket leaked
///   into a long-lived child keeps the other end from ever seeing EOF;
/// - no signal blocked and every disposition the default, whatever the parent's (a shell that
///   ignores SIGINT for background jobs must not make the daemon ignore SIGTERM);
/// - in a session of its own (no controlling terminal: closing the terminal does not end it) or
///   a process group of its own (a signal to the group reaches all of it, and none of ours).
///
/// ```swift
/// let pid = try Spawn.start("/usr/bin/lector", arguments: ["serve"], environment: environment,
///                           stdio: [null, null, log], detach: .session)
/// ```
public enum Spawn {
    public enum Detach: Sendable {
        /// setsid: its own session, no controlling terminal.
        case session
        /// setpgid(0, 0): its own process group in our session.
        case processGroup
    }

    public struct Failure: Error, CustomStringConvertible, Sendable {
        public let path: String
        public let code: Int32
        public var description: String { "cannot start \(path): \(String(cString: strerror(code)))" }
    }

    /// Starts `path` with `arguments` (argv[0] is `path`) and exactly `environment`; returns its
    /// pid. `stdio` are descriptors of ours that become its 0, 1 and 2.
    public static func start(_ path: String, arguments: [String], environment: [String: String],
                             stdio: [Int32], detach: Detach) throws(Failure) -> pid_t {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        for (target, source) in stdio.enumerated() {
            posix_spawn_file_actions_adddup2(&actions, source, Int32(target))
        }
        if let addCloseFrom {
            _ = addCloseFrom(&actions, 3)
        } else {
            let open = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
            for descriptor in open.compactMap({ Int32($0) }) where descriptor > 2 {
                posix_spawn_file_actions_addclose(&actions, descriptor)
            }
        }

        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var noSignals = sigset_t(), allSignals = sigset_t()
        sigemptyset(&noSignals)
        sigfillset(&allSignals)
        posix_spawnattr_setsigmask(&attributes, &noSignals)
        posix_spawnattr_setsigdefault(&attributes, &allSignals)
        var flags = Int32(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF)
        switch detach {
        case .session:
            flags |= setSID
        case .processGroup:
            posix_spawnattr_setpgroup(&attributes, 0)
            flags |= Int32(POSIX_SPAWN_SETPGROUP)
        }
        posix_spawnattr_setflags(&attributes, Int16(flags))

        let argv = ([path] + arguments).map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            argv.forEach { free($0) }
            envp.forEach { free($0) }
        }
        var pid: pid_t = 0
        let result = posix_spawn(&pid, path, &actions, &attributes, argv, envp)
        guard result == 0 else { throw Failure(path: path, code: result) }
        return pid
    }

    /// glibc's POSIX_SPAWN_SETSID (2.26+), a _GNU_SOURCE constant Swift's Glibc module leaves out.
    private static let setSID: Int32 = 0x80

    private typealias CloseFromFunction = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32

    /// glibc ≥ 2.34's posix_spawn_file_actions_addclosefrom_np, which Swift's Glibc module does
    /// not export either.
    private static let addCloseFrom: CloseFromFunction? = {
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "posix_spawn_file_actions_addclosefrom_np") else {
            return nil
        }
        return unsafeBitCast(symbol, to: CloseFromFunction.self)
    }()
}
