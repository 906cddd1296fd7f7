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
