import Foundation
import LectorTestKit

/// mpv with the mpv-mpris plugin, the reference MPRIS player, on the same private bus and
/// sound server (its own null sink, so it never sounds on lector's monitor).
enum MPV {
    static let busName = "org.mpris.MediaPlayer2.mpv"
    static let pluginCandidates = ["/usr/lib/mpv-mpris/mpris.so", "/etc/mpv/scripts/mpris.so",
                                   "/usr/lib/x86_64-linux-gnu/mpv-mpris/mpris.so", "/usr/local/lib/mpv-mpris/mpris.so"]
    static let installHint = "install them with `apt-get install mpv mpv-mpris` (Debian/Ubuntu), "
        + "or pass --mpv-mpris PATH to the plugin; --skip-mpv leaves the mpv rows out"

    static func executable(searchPath: String?) -> String? {
        for directory in (searchPath ?? "/usr/local/bin:/usr/bin:/bin").split(separator: ":") {
            let candidate = "\(directory)/mpv"
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        return nil
    }

    static func plugin(explicit: String?) -> String? {
        if let explicit { return FileManager.default.fileExists(atPath: explicit) ? explicit : nil }
        return pluginCandidates.first { FileManager.default.fileExists(atPath: $0) }
    }

    /// `--no-config --load-scripts=no` so the plugin is loaded exactly once (Debian also drops it
    /// into /etc/mpv/scripts, which mpv autoloads), and nothing of a user's config applies.
    static func arguments(plugin: String, sink: String, file: URL) -> [String] {
        ["--no-config", "--idle=yes", "--no-video", "--ao=pulse", "--audio-device=pulse/\(sink)",
         "--load-scripts=no", "--script=\(plugin)", "--loop-file=inf", "--no-terminal", file.path]
    }

    /// 4 s of a soft 440 Hz tone with a fade at both ends, 22050 Hz mono s16 (looped by mpv).
    static func writeTone(to url: URL, seconds: Double = 4) throws {
        let rate = 22050
        let count = Int(Double(rate) * seconds)
        var pcm = Data(capacity: count * 2)
        for index in 0..<count {
            let time = Double(index) / Double(rate)
            let fade = min(1, min(time, seconds - time) / 0.05)
            let sample = Int16(8000 * fade * sin(2 * Double.pi * 440 * time))
            pcm.le16(UInt16(bitPattern: sample))
        }
        var wav = Data()
        wav.append(contentsOf: Array("RIFF".utf8)); wav.le32(UInt32(36 + pcm.count))
        wav.append(contentsOf: Array("WAVEfmt ".utf8)); wav.le32(16); wav.le16(1); wav.le16(1)
        wav.le32(UInt32(rate)); wav.le32(UInt32(rate * 2)); wav.le16(2); wav.le16(16)
        wav.append(contentsOf: Array("data".utf8)); wav.le32(UInt32(pcm.count))
        wav.append(pcm)
        try wav.write(to: url)
    }
}
