import CSystemd
import Foundation
import LectorBus
import LectorConfig
import LectorCore

/// config.toml: read at start, on SIGHUP and on the `Reload` method. A broken file is reported
/// with file, line and reason, and the last good configuration stays in force.
extension LectorService {
    var configurationPath: String { Configuration.defaultPath(environment: ProcessInfo.processInfo.environment) }

    /// Reads the file (absent means defaults) and applies it; throws `BadConfig` and changes
    /// nothing when it is invalid. Small and read once per reload, so read on the loop.
    func reloadConfiguration() throws {
        let path = configurationPath
        let loaded: Configuration
        if let data = FileManager.default.contents(atPath: path) {
            do {
                loaded = try Configuration.parse(utf8: Array(data), file: path)
            } catch let error as ConfigError {
                Journal.log(.error, "invalid configuration, keeping the last good one: \(error)",
                            fields: ["LECTOR_ERROR": "BadConfig", "LECTOR_CONFIG_FILE": error.file, "LECTOR_CONFIG_LINE": String(error.line)])
                throw LectorError(.badConfig, error.description)
            }
        } else if FileManager.default.fileExists(atPath: path) {
            throw LectorError(.badConfig, "\(path): cannot be read")
        } else {
            loaded = Configuration()
        }
        apply(loaded)
        notifications.reload()
        Journal.log(.info, FileManager.default.fileExists(atPath: path) ? "configuration loaded from \(path)"
                                                                          : "no \(path): using defaults")
    }

    private func apply(_ new: Configuration) {
        configuration = new
        announcer.configuration = new
        notifications.configuration = new.notifications
        library.configuration = new
        audioPolicy.duckPolicy.level = new.audio.duckLevel
        // The fade is three steps at most, a few ms apart; 0 ms means one step.
        let ramp = UInt64(new.audio.duckRampMilliseconds) * 1000
        audioPolicy.rampSteps = ramp == 0 ? 1 : 3
        audioPolicy.rampStepMicroseconds = ramp / 3
        audioPolicy.volumeFloor = new.audio.volumeFloor
        audioPolicy.interruptions.resumeTimeoutMicroseconds = UInt64(new.audio.autoResumeTimeoutMinutes) * 60_000_000
        // Skipping Next/Previous can always be pressed: CanGoNext/CanGoPrevious follow.
        narrator.update { $0.nextPreviousSkips = new.narration.nextPrevious == .skip }
        resumeRewind.afterPauseSeconds = new.narration.rewindAfterPauseSeconds
        resumeRewind.rewindSeconds = new.narration.rewindSeconds
        // The listener's lexicons: announcements from the next one, narration from its next segment.
        narrator.listenerLexicons = new.pronunciation
    }
}
