import Foundation

/// Foundation's Process needs an absolute path; tests want to say "pactl" like a shell would.
enum ExecutableLocator {
    static func locate(_ name: String, searchPath: String?) throws -> URL {
        if name.contains("/") { return URL(fileURLWithPath: name) }
        let directories = (searchPath ?? "/usr/local/bin:/usr/bin:/bin").split(separator: ":")
        for directory in directories {
            let candidate = "\(directory)/\(name)"
            if FileManager.default.isExecutableFile(atPath: candidate) {
                return URL(fileURLWithPath: candidate)
            }
        }
        throw TestKitError.executableNotFound(name)
    }
}
