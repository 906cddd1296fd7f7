import Foundation
import Glibc
import LectorNeural
import LectorSpawn

/// One voice worker process (`lector-piper MODEL`), seen as a `PiperSpeaker`: phoneme ids go over
/// its socket, audio and durations come back. The one owner of the process and the socket:
/// `close()` (or deinit) ends the worker and reaps it. A worker that crashes or does not answer
/// within `hangSeconds` is reaped (killed first if it hangs) and its run fails by name; the
/// caller starts a new one if it wants.
///
///     let worker = try PiperWorker(executable: "/usr/libexec/lector/lector-piper", modelPath: joe)
///     let audio = try worker.speak(ids: ids, lengthScale: 1, cancellation: SynthesisCancellation())
///     worker.close()
public final class PiperWorker: PiperSpeaker, @unchecked Sendable {   // `reaped` under `lock`; runs from one thread
    public let config: PiperConfig
    public let phonemeIDs: PhonemeIDs
    public let pid: pid_t
    /// The ONNX Runtime library the worker loaded, and its version.
    public private(set) var runtime = ""
    private let channel: WorkerChannel
    private let hangSeconds: Double
    private let lock = NSLock()
    private var reaped: String?

    /// Where Lector's voice worker is installed with the running program (`OwnExecutable.sibling`):
    /// beside it (a build tree, `~/.local/bin`; the daemon in `/usr/libexec/lector`), then
    /// `PREFIX/libexec/lector` (`/usr/bin/lector` → `/usr/libexec/lector/lector-piper`).
    /// `LECTOR_PIPER_WORKER` names it instead.
    public static func installedExecutable(environment: [String: String] = ProcessInfo.processInfo.environment)
        -> (path: String?, looked: [String]) {
        if let path = environment["LECTOR_PIPER_WORKER"], !path.isEmpty {
            return (FileManager.default.isExecutableFile(atPath: path) ? path : nil, [path])
        }
        let found = OwnExecutable.sibling(named: "lector-piper")
        return (found.path, found.looked)
    }

    /// Starts the worker and waits (at most `loadSeconds`) for its voice to load. Throws the
    /// worker's own named error (a broken model, no runtime, …) or why it could not run.
    public init(executable: String, modelPath: String, loadSeconds: Double = 30, hangSeconds: Double = 10) throws {
        config = try PiperConfig(contentsOf: modelPath + ".json")
        phonemeIDs = PhonemeIDs(map: config.phonemeIDMap, clusters: config.vowelClusters)
        self.hangSeconds = hangSeconds
        var pair: [Int32] = [-1, -1]
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &pair) == 0 else {
            throw NeuralError.worker("cannot make a socket for the voice worker: \(String(cString: strerror(errno)))")
        }
        do {
            // Its standard error is ours: the journal, under systemd. No Swift backtracer: a crash
            // ends it at once (the backtracer holds a crashed process for seconds) and we say why.
            var environment = ProcessInfo.processInfo.environment
            environment["SWIFT_BACKTRACE"] = "enable=no"
            environment["GLIBC_TUNABLES"] = Self.tunables(environment["GLIBC_TUNABLES"])
            pid = try Spawn.start(executable, arguments: [modelPath], environment: environment,
                                  stdio: [pair[1], pair[1], 2], detach: .processGroup)
        } catch {
            Glibc.close(pair[0])
            Glibc.close(pair[1])
            throw NeuralError.worker("Lector's voice worker: \(error)")
        }
        Glibc.close(pair[1])
        channel = WorkerChannel(input: pair[0], output: pair[0])
        let answer: WorkerMessage
        do {
            answer = try channel.receive(within: loadSeconds)
        } catch {
            let reason = end(after: error)
            throw NeuralError.worker("the voice worker did not load \(modelPath): \(reason)")
        }
        switch answer {
        case .ready(_, let runtime):
            self.runtime = runtime
        case .failed(let reason):
            _ = end(after: .closed)
            throw NeuralError.worker(reason)
        default:
            _ = end(after: .malformed("\(answer) before ready"))
            throw NeuralError.worker("the voice worker answered \(answer) before it was ready")
        }
    }

    deinit { close() }

    /// glibc's large blocks in transparent huge pages (where the kernel offers them: Debian's
    /// default `madvise`). The arena shrunk after each run is faulted in again at the next, 4 kB
    /// at a time otherwise: lector-bench neural, RTF 0.050 → 0.041-0.044 at the same 192-204 MB peak.
    static func tunables(_ inherited: String?) -> String {
        [inherited, "glibc.malloc.hugetlb=1"].compactMap { $0?.isEmpty == false ? $0 : nil }.joined(separator: ":")
    }

    /// Whether the worker still runs (false once it crashed, hung or was closed).
    public var isRunning: Bool {
        lock.lock()
        defer { lock.unlock() }
        return reaped == nil
    }

    public func speak(ids: [Int64], lengthScale: Float, cancellation: SynthesisCancellation) throws -> PiperAudio {
        if let reaped = reapedReason() { throw NeuralError.worker("the voice worker is gone (\(reaped))") }
        let answer: WorkerMessage
        do {
            try channel.send(.synthesize(ids: ids, lengthScale: lengthScale))
            cancellation.whenCancelled { [channel] in try? channel.send(.cancel) }
            defer { cancellation.whenCancelled(nil) }
            answer = try channel.receive(within: hangSeconds)
        } catch {
            let reason = end(after: error)
            throw NeuralError.worker(error == .timedOut
                ? "the voice worker did not answer in \(Int(hangSeconds)) s and was stopped"
                : "the voice worker \(reason) mid-sentence")
        }
        switch answer {
        case .audio(let audio): return audio
        case .cancelled: throw NeuralError.cancelled
        case .failed(let reason): throw NeuralError.worker(reason)
        default:
            _ = end(after: .malformed("\(answer)"))
            throw NeuralError.worker("the voice worker answered \(answer) to a synthesis")
        }
    }

    /// Ends the worker: its socket closes, so it exits; killed if it has not within a second.
    public func close() {
        _ = end(after: .closed)
    }

    private func reapedReason() -> String? {
        lock.lock()
        defer { lock.unlock() }
        return reaped
    }

    /// Closes the socket and reaps the worker (killing it unless it closed on its own, after a
    /// second's grace); returns how it ended. Once.
    private func end(after failure: WorkerChannel.Failure) -> String {
        lock.lock()
        defer { lock.unlock() }
        if let reaped { return reaped }
        var status: Int32 = 0
        var done = false
        channel.close()   // the worker reads EOF and exits
        if failure == .closed {
            for _ in 0..<100 {
                let result = waitpid(pid, &status, WNOHANG)
                if result == pid || (result < 0 && errno != EINTR) {
                    done = result == pid
                    break
                }
                usleep(10_000)
            }
        }
        if !done {
            kill(pid, SIGKILL)
            while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        }
        let reason: String
        if failure == .timedOut {
            reason = "did not answer in time and was stopped"
        } else if status & 0x7f == 0 {
            reason = "ended with status \(status >> 8 & 0xff)"
        } else {
            reason = "was killed by signal \(status & 0x7f) (\(String(cString: strsignal(status & 0x7f))))"
        }
        reaped = reason
        return reason
    }
}
