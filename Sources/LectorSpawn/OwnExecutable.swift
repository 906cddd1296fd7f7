import FoundationEssentials
import Glibc

/// Where this program is, and where Lector's other programs are installed with it: the one place
/// that reads `/proc/self/exe` (the CLI starting `lectord`, `lector-view` and `lector-tools`, the daemon starting
/// `lector-piper` and `lector view`, the test kit and the benchmarks finding what was built).
///
/// Lector's programs and where they live:
///
/// | program        | package                            | build tree        |
/// |----------------|------------------------------------|-------------------|
/// | `lector`       | `/usr/bin/lector` (the CLI)        | beside the others |
/// | `lectord`      | `/usr/libexec/lector/lectord`      | beside the others |
/// | `lector-view`  | `/usr/libexec/lector/lector-view`  | beside the others |
/// | `lector-tools` | `/usr/libexec/lector/lector-tools` | beside the others |
/// | `lector-piper` | `/usr/libexec/lector/lector-piper` | beside the others |
///
/// ```swift
/// OwnExecutable.path                              // "/usr/bin/lector"
/// OwnExecutable.sibling(named: "lectord").path    // "/usr/libexec/lector/lectord"
/// ```
public enum OwnExecutable {
    /// The directory under a prefix that holds Lector's internal programs (FHS 3.0 §4.7).
    public static let libexecSubdirectory = "libexec/lector"

    /// This very program, symbolic links resolved: `/proc/self/exe` (a program replaced on disk
    /// while it runs, as a rebuild does, reads "PATH (deleted)": the new file at PATH is the one
    /// meant), else argv[0] made absolute; nil where neither names a file.
    public static var path: String? {
        if let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"), target.hasPrefix("/") {
            let deleted = " (deleted)"
            return target.hasSuffix(deleted) ? String(target.dropLast(deleted.count)) : target
        }
        guard let first = CommandLine.arguments.first, first.contains("/") else { return nil }
        let url = URL(fileURLWithPath: first).resolvingSymlinksInPath().standardizedFileURL
        return FileManager.default.fileExists(atPath: url.path) ? url.path : nil
    }

    /// The directory this program is in.
    public static var directory: String? {
        path.map { URL(fileURLWithPath: $0).deletingLastPathComponent().path }
    }

    /// The prefix this program is installed under: the directory above `bin/` or above
    /// `libexec/lector/` (`/usr` for `/usr/bin/lector` and `/usr/libexec/lector/lectord`); for a
    /// program anywhere else, the directory above its own.
    public static var prefix: String? { path.map(installationPrefix(ofProgram:)) }

    static func installationPrefix(ofProgram program: String) -> String {
        let directory = URL(fileURLWithPath: program).deletingLastPathComponent().standardizedFileURL
        return (directory.path.hasSuffix("/" + libexecSubdirectory)
            ? directory.deletingLastPathComponent().deletingLastPathComponent()
            : directory.deletingLastPathComponent()).path
    }

    /// What a look-up found (nil: none of `looked` is an executable file) and where it looked, in order.
    public struct Lookup: Sendable, CustomStringConvertible {
        public let path: String?
        public let looked: [String]

        public var description: String {
            path ?? "no \(looked.first.map { URL(fileURLWithPath: $0).lastPathComponent } ?? "program") in \(looked.joined(separator: ", "))"
        }
    }

    /// Lector's program `name` as installed with this one: beside it (a build tree, or all of them
    /// in `~/.local/bin`), then in the installation this program belongs to (PREFIX is the
    /// directory above `bin/` or above `libexec/lector/`): `PREFIX/libexec/lector/NAME`, then
    /// `PREFIX/bin/NAME`; then the package's `/usr/libexec/lector/NAME` and `/usr/bin/NAME`.
    /// Never `PATH`: a program found there may be another installation's, of another version.
    public static func sibling(named name: String) -> Lookup {
        sibling(named: name, besideProgram: path)
    }

    /// `sibling(named:)` as seen from `program` (for tests of the rule).
    public static func sibling(named name: String, besideProgram program: String?) -> Lookup {
        var candidates: [String] = []
        if let program {
            let directory = URL(fileURLWithPath: program).deletingLastPathComponent().standardizedFileURL
            candidates.append(directory.appendingPathComponent(name).path)
            let prefix = URL(fileURLWithPath: installationPrefix(ofProgram: program))
            candidates.append(prefix.appendingPathComponent(libexecSubdirectory).appendingPathComponent(name).path)
            candidates.append(prefix.appendingPathComponent("bin").appendingPathComponent(name).path)
        }
        candidates += ["/usr/\(libexecSubdirectory)/\(name)", "/usr/bin/\(name)"]
        var seen = Set<String>()
        let looked = candidates.filter { seen.insert($0).inserted }
        return Lookup(path: looked.first(where: isProgram), looked: looked)
    }

    private static func isProgram(_ path: String) -> Bool {
        var status = stat()
        return stat(path, &status) == 0 && (status.st_mode & S_IFMT) != S_IFDIR && access(path, X_OK) == 0
    }

    /// Replaces this process with Lector's program `name` (same pid: a supervisor, a test or the
    /// bus that started `lector serve` goes on watching the daemon itself). argv[0] is its path.
    /// Returns only if it could not: then the error says where it looked or why exec failed.
    public static func replace(with name: String, arguments: [String]) -> ExecFailure {
        let found = sibling(named: name)
        guard let program = found.path else {
            return ExecFailure(message: "cannot find Lector's \(name) program: looked in \(found.looked.joined(separator: ", "))")
        }
        let argv = ([program] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        execv(program, argv)
        return ExecFailure(message: "cannot run \(program): \(String(cString: strerror(errno)))")
    }

    public struct ExecFailure: Error, CustomStringConvertible, Sendable {
        public let message: String
        public var description: String { message }
    }
}
