import Foundation

/// Reads /proc so cleanup can be verified and finished independently of who is the parent:
/// orphans are re-parented to a PID 1 that may never reap them, so a zombie counts as gone.
public enum ProcessProbe {
    /// True while `pid` exists and is not a zombie.
    public static func isAlive(_ pid: Int32) -> Bool {
        guard pid > 0, let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let closing = stat.lastIndex(of: ")") else { return false }
        let state = stat[stat.index(after: closing)...].trimmingCharacters(in: .whitespaces).first
        return state != "Z" && state != "X"
    }

    /// Living processes whose environment contains exactly `entry` (e.g. "LECTOR_TEST_SESSION=/tmp/x").
    /// This finds everything started with a session's environment, including D-Bus-activated services
    /// that were double-forked away from any process we own.
    public static func livingProcesses(withEnvironmentEntry entry: String) -> [Int32] {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: "/proc") else { return [] }
        let needle = Array(entry.utf8) + [0]
        let me = getpid()
        return names.compactMap { Int32($0) }.filter { pid in
            guard pid != me, let environ = FileManager.default.contents(atPath: "/proc/\(pid)/environ") else {
                return false
            }
            return contains(Array(environ), entry: needle) && isAlive(pid)
        }
    }

    /// Living children of `pid` named `command` (its /proc comm, up to 15 characters), e.g. the
    /// daemon's voice worker `lector-piper`.
    public static func children(of pid: Int32, named command: String) -> [Int32] {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: "/proc") else { return [] }
        return names.compactMap { Int32($0) }.filter { child in
            guard let stat = try? String(contentsOfFile: "/proc/\(child)/stat", encoding: .utf8),
                  let open = stat.firstIndex(of: "("), let close = stat.lastIndex(of: ")") else { return false }
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            return String(stat[stat.index(after: open)..<close]) == String(command.prefix(15))
                && fields.count > 1 && Int32(fields[1]) == pid && isAlive(child)
        }
    }

    /// VmRSS of `pid`, kB.
    public static func residentKiB(_ pid: Int32) -> Int? { statusField("VmRSS", pid) }

    /// VmHWM of `pid` (its peak resident size), kB.
    public static func peakResidentKiB(_ pid: Int32) -> Int? { statusField("VmHWM", pid) }

    /// utime + stime of `pid`, in clock ticks (100 a second).
    public static func cpuTicks(_ pid: Int32) -> Int? {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let close = stat.lastIndex(of: ")") else { return nil }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        // After the command: state is field 3, utime 14 and stime 15.
        guard fields.count > 12, let user = Int(fields[11]), let system = Int(fields[12]) else { return nil }
        return user + system
    }

    private static func statusField(_ name: String, _ pid: Int32) -> Int? {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return nil }
        for line in status.split(separator: "\n") where line.hasPrefix(name + ":") {
            let fields = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
            return fields.count >= 2 ? Int(fields[1]) : nil
        }
        return nil
    }

    private static func contains(_ environ: [UInt8], entry: [UInt8]) -> Bool {
        guard environ.count >= entry.count else { return false }
        var start = 0
        while start + entry.count <= environ.count {
            if environ[start..<(start + entry.count)].elementsEqual(entry) { return true }
            guard let nextNul = environ[start...].firstIndex(of: 0) else { return false }
            start = nextNul + 1
        }
        return false
    }
}
