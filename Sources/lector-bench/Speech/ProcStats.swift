import Foundation
import LectorTestKit
#if canImport(Glibc)
import Glibc
#endif

/// What /proc says about a process: CPU time and context switches, summed over all its threads.
struct ProcessCounters {
    /// utime + stime of the whole thread group, in clock ticks (/proc/PID/stat fields 14 and 15).
    let cpuTicks: Int
    /// voluntary + nonvoluntary context switches of every thread (/proc/PID/task/*/status).
    /// /proc/PID/status alone counts only the main thread, and PulseAudio renders each sink in its
    /// own I/O thread, so the per-thread sum is what counts wakeups.
    let contextSwitches: Int
    let threads: Int
    /// Each thread's context switches (and how many of them were involuntary: preempted, not
    /// waiting) and name (/proc/PID/task/TID/comm), by thread id.
    var perThread: [Int32: (name: String, switches: Int, involuntary: Int)] = [:]

    static let ticksPerSecond = Int(sysconf(Int32(_SC_CLK_TCK)))

    static func read(pid: Int32) -> ProcessCounters? {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let closing = stat.lastIndex(of: ")") else { return nil }
        // After "pid (comm)": field 3 is the state, so utime (14) and stime (15) are at 11 and 12 here.
        let fields = stat[stat.index(after: closing)...].split(separator: " ")
        guard fields.count > 12, let user = Int(fields[11]), let system = Int(fields[12]) else { return nil }

        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []
        var switches = 0
        var perThread: [Int32: (name: String, switches: Int, involuntary: Int)] = [:]
        for task in tasks {
            guard let status = try? String(contentsOfFile: "/proc/\(pid)/task/\(task)/status", encoding: .utf8) else {
                continue
            }
            var threadSwitches = 0, involuntary = 0
            for line in status.split(separator: "\n") {
                if line.hasPrefix("voluntary_ctxt_switches:") || line.hasPrefix("nonvoluntary_ctxt_switches:") {
                    let count = Int(line.split(separator: ":")[1].trimmingCharacters(in: .whitespaces)) ?? 0
                    threadSwitches += count
                    if line.hasPrefix("non") { involuntary = count }
                }
            }
            switches += threadSwitches
            if let tid = Int32(task) {
                let name = (try? String(contentsOfFile: "/proc/\(pid)/task/\(task)/comm", encoding: .utf8))?
                    .trimmingCharacters(in: .whitespacesAndNewlines) ?? "?"
                perThread[tid] = (name, threadSwitches, involuntary)
            }
        }
        return ProcessCounters(cpuTicks: user + system, contextSwitches: switches, threads: tasks.count,
                               perThread: perThread)
    }

    /// Context switches since `earlier`, per thread: a thread that started meanwhile counts from 0;
    /// one that ended meanwhile is lost (its counts go with it), and is not counted negative.
    func switchesPerThread(since earlier: ProcessCounters) -> [(tid: Int32, name: String, switches: Int, involuntary: Int)] {
        perThread.map { tid, now in
            (tid, now.name, now.switches - (earlier.perThread[tid]?.switches ?? 0),
             now.involuntary - (earlier.perThread[tid]?.involuntary ?? 0))
        }.sorted { $0.tid < $1.tid }
    }

    /// CPU time of every thread of `pids` so far, in ms, to the nanosecond (/proc/PID/task/TID/schedstat):
    /// `cpuTicks` counts in 10-ms ticks, too coarse to tell a 3-ms pause from a refill beside it.
    static func cpuMilliseconds(_ pids: [Int32]) -> Double {
        var total: UInt64 = 0
        for pid in pids {
            let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []
            for task in tasks {
                let text = (try? String(contentsOfFile: "/proc/\(pid)/task/\(task)/schedstat", encoding: .utf8)) ?? ""
                total += text.split(separator: " ").first.flatMap { UInt64($0) } ?? 0
            }
        }
        return Double(total) / 1_000_000
    }

    /// The command name (/proc/PID/comm), e.g. "pulseaudio".
    static func commandName(pid: Int32) -> String? {
        (try? String(contentsOfFile: "/proc/\(pid)/comm", encoding: .utf8))?
            .trimmingCharacters(in: .whitespacesAndNewlines)
    }
}

extension TestSession {
    /// Processes of this session (found by its environment marker) whose command name is `name`.
    /// The session keeps its PulseAudio's pid private; this finds it without touching the kit.
    func sessionProcesses(named name: String) -> [Int32] {
        // comm is cut to 15 bytes ("speech-dispatcher" reads "speech-dispatch").
        let comm = String(name.utf8.prefix(15))!
        return livingProcesses().filter { ProcessCounters.commandName(pid: $0) == comm }
    }
}
