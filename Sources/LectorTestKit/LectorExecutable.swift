import Foundation
import LectorSpawn

/// Where the `lector` executable under test is: `LECTOR_BIN`, else next to the test bundle in the
/// build products directory (`.build/debug/lector`), walking up a few levels if needed.
public enum LectorExecutable {
    public static let path: String = BuiltProduct.path(named: "lector", overrideVariable: "LECTOR_BIN")
}

/// Executables of this package that tests run (`lector`, `lector-bench`): found next to the
/// test bundle in the build products directory, walking up a few levels if needed.
public enum BuiltProduct {
    /// `$overrideVariable` if set, else the first executable `name` beside the test bundle or
    /// runner; else a path that does not exist, so that the first spawn fails with a clear message.
    public static func path(named name: String, overrideVariable: String) -> String {
        if let override = ProcessInfo.processInfo.environment[overrideVariable], !override.isEmpty {
            return override
        }
        var starts: [URL] = []
        if let directory = OwnExecutable.directory {
            starts.append(URL(fileURLWithPath: directory))
        }
        if let first = CommandLine.arguments.first {
            starts.append(URL(fileURLWithPath: first).resolvingSymlinksInPath().deletingLastPathComponent())
        }
        starts.append(Bundle.main.bundleURL)
        starts.append(Bundle.main.bundleURL.deletingLastPathComponent())
        for bundle in Bundle.allBundles where bundle.bundlePath.hasSuffix(".xctest") {
            starts.append(bundle.bundleURL.deletingLastPathComponent())
        }
        for start in starts {
            var directory = start.standardizedFileURL
            for _ in 0..<5 {
                for candidate in [directory.appendingPathComponent(name),
                                  directory.appendingPathComponent(".build/debug/\(name)")] {
                    var isDirectory: ObjCBool = false
                    if FileManager.default.fileExists(atPath: candidate.path, isDirectory: &isDirectory),
                       !isDirectory.boolValue, FileManager.default.isExecutableFile(atPath: candidate.path) {
                        return candidate.path
                    }
                }
                directory = directory.deletingLastPathComponent()
            }
        }
        return "/nonexistent/\(name) (build it, or set \(overrideVariable))"
    }
}

extension LectorExecutable {
    /// For the benchmarks: `override`, else the `lector` next to the running executable
    /// (`.build/release/lector-bench` -> `.build/release/lector`). Throws if it is not executable.
    public static func besideThisExecutable(override: String?) throws -> String {
        let path = override ?? ((OwnExecutable.directory ?? ".") + "/lector")
        guard FileManager.default.isExecutableFile(atPath: path) else {
            throw TestKitError.failed("no lector executable at \(path); build it with lectord and lector-view beside it (swift build -c release) or pass --lector")
        }
        return URL(fileURLWithPath: path).standardizedFileURL.path
    }
}
