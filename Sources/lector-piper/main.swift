import CLinux
import Foundation
import Glibc
import LectorNeural

// Lector's voice worker: one Piper voice in ONNX Runtime, in a process of its own, so that the
// daemon never maps the runtime or holds the model (it ends when the daemon has no use for it,
// and all of that memory goes with it), and a crash or hang of the engine costs one process the
// daemon replaces, never narration. The daemon starts it with a socket on standard input and
// output (`WorkerMessage` frames) and reads its standard error into the journal.
//
//     lector-piper ~/.local/share/lector/voices/en_US-joe-medium.onnx
//     # → ready(sampleRate: 22050, …); then synthesize → audio | failed | cancelled, until EOF

let arguments = CommandLine.arguments
guard arguments.count == 2 || arguments.count == 3, !arguments[1].hasPrefix("-") else {
    FileHandle.standardError.write(Data("""
        usage: lector-piper MODEL.onnx [MODEL.onnx.json]
        Lector's voice worker: the daemon starts it with a socket on standard input and output.

        """.utf8))
    exit(64)
}
let channel = WorkerChannel(input: 0, output: 1)
// Behind the daemon and the sound server for the CPU: with seconds of audio buffered ahead, a
// run can wait; a pause or Play must not (on 2 cores a run otherwise slowed them at the sink).
// Lowering one's own priority needs no privilege; where a sandbox forbids it, it stays as it is.
_ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, 10)

let voice: PiperVoice
do {
    // The arena shrunk after each run (ORTMemory.default): a kept arena is as fast but its peak
    // drifts up with what was read (246-256 MB after 3 minutes; shrunk, flat at 192-204 MB). What
    // shrinking cost, faulting the memory in again, PiperWorker's huge pages give back.
    voice = try PiperVoice(modelPath: arguments[1], configPath: arguments.count == 3 ? arguments[2] : nil)
    try channel.send(.ready(sampleRate: voice.config.sampleRate, runtime: "\(voice.runtimePath) \(voice.runtimeVersion)"))
} catch {
    try? channel.send(.failed("\(error)"))
    exit(1)
}

/// The requests, put by the reading thread and run in order by the main thread; a cancel stops
/// every one that waits or runs (the daemon sends one at a time, each answered once).
final class Slot: @unchecked Sendable {   // state under `condition`
    typealias Job = (ids: [Int64], lengthScale: Float, cancellation: SynthesisCancellation)
    private let condition = NSCondition()
    private var jobs: [Job] = []

    func put(ids: [Int64], lengthScale: Float) {
        condition.lock()
        jobs.append((ids, lengthScale, SynthesisCancellation()))
        condition.signal()
        condition.unlock()
    }

    func cancel() {
        condition.lock()
        for job in jobs { job.cancellation.cancel() }
        condition.unlock()
    }

    /// The first job, left in place (so a cancel reaches it) until `done`.
    func take() -> Job {
        condition.lock()
        defer { condition.unlock() }
        while jobs.isEmpty { condition.wait() }
        return jobs[0]
    }

    func done() {
        condition.lock()
        jobs.removeFirst()
        condition.unlock()
    }
}

let slot = Slot()
let reading = Thread {
    while true {
        do {
            switch try channel.receive() {
            case .synthesize(let ids, let lengthScale): slot.put(ids: ids, lengthScale: lengthScale)
            case .cancel: slot.cancel()
            default: break
            }
        } catch {
            // The daemon closed its end (or went): nothing is left to speak for.
            _exit((error as? WorkerChannel.Failure) == .closed ? 0 : 2)
        }
    }
}
reading.stackSize = 1 << 20
reading.start()

while true {
    let job = slot.take()
    let reply: WorkerMessage
    do {
        reply = .audio(try voice.speak(ids: job.ids, lengthScale: job.lengthScale, cancellation: job.cancellation))
    } catch NeuralError.cancelled {
        reply = .cancelled
    } catch {
        reply = job.cancellation.isCancelled ? .cancelled : .failed("\(error)")
    }
    slot.done()
    do {
        try channel.send(reply)
    } catch {
        _exit(0)
    }
    // A long clause's buffers go back to the kernel after its run: RSS follows the clause spoken.
    _ = malloc_trim(0)
}
