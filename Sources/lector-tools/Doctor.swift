import ArgumentParser
import LectorCommandLine
import Foundation
import LectorAudio
import LectorBooks
import LectorBus
import LectorConfig
import LectorCore
import LectorInterface
import LectorLoop
import LectorSpawn
import LectorSpeech
import LectorState

/// `lector doctor`: checks what Lector needs, one line per check, and says how to fix what is wrong.
struct Doctor: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "doctor",
        abstract: "Check the bus, sound server, voices, config and installed files.",
        discussion: """
            Prints one line per check: ok, warning or FAIL, with what is wrong and how to fix it. \
            Exits with status 1 if any check failed. It never starts the daemon.

            Example: lector doctor --config ~/new-config.toml
            """)

    @Option(help: "Check this config file instead of $XDG_CONFIG_HOME/lector/config.toml.")
    var config: String?

    @Option(help: "How long to wait for the sound server, in milliseconds.")
    var soundServerTimeout = 3000

    func run() throws {
        var report = Report()
        let environment = ProcessInfo.processInfo.environment
        let bus = checkBus(&report, environment)
        var activatable: Set<String>?
        if let bus {
            activatable = checkService(&report, bus)
        } else {
            report.add(.warning, "lector service", "not checked without a session bus")
        }
        checkSoundServer(&report, environment)
        let voices = checkVoices(&report)
        checkConfig(&report, environment, voices: voices)
        checkBook(&report, bus, voices: voices, environment)
        InstalledFiles(environment: environment).check(&report, activatable: activatable)
        report.summary()
        if report.failures > 0 { throw ExitCode(1) }
    }

    // MARK: - Session bus and service

    private func checkBus(_ report: inout Report, _ environment: [String: String]) -> Bus? {
        let address = environment["DBUS_SESSION_BUS_ADDRESS"].flatMap { $0.isEmpty ? nil : $0 }
        let fallback = environment["XDG_RUNTIME_DIR"].map { "unix:path=\($0)/bus" }
        let fix = "Fix: run inside a desktop session, or start a bus with: dbus-run-session -- $SHELL"
        let bus: Bus
        do {
            bus = try Bus.session()
            _ = try bus.call(destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus",
                             interface: "org.freedesktop.DBus.Peer", member: "Ping", timeoutMicroseconds: 3_000_000)
        } catch {
            let reason: String
            switch error {
            case let error as SystemError: reason = String(cString: strerror(error.errno))
            case let error as BusCallError: reason = error.message
            default: reason = "\(error)"
            }
            if let target = address ?? fallback.map({ "\($0) (DBUS_SESSION_BUS_ADDRESS is not set)" }) {
                report.add(.fail, "session bus", "cannot connect to \(target): \(reason). \(fix)")
            } else {
                report.add(.fail, "session bus", "neither DBUS_SESSION_BUS_ADDRESS nor XDG_RUNTIME_DIR is set. \(fix)")
            }
            return nil
        }
        if let address {
            report.add(.ok, "session bus", address)
        } else {
            report.add(.warning, "session bus", "DBUS_SESSION_BUS_ADDRESS is not set; using \(fallback ?? "the default"). "
                + "Fix: export DBUS_SESSION_BUS_ADDRESS (desktop sessions do) so every client finds the same bus")
        }
        return bus
    }

    /// Running (with its pid and version) or activatable; returns the bus's activatable names.
    private func checkService(_ report: inout Report, _ bus: Bus) -> Set<String>? {
        let activatable = try? Set(dbusStrings(bus, "ListActivatableNames"))
        let running = (try? dbus(bus, "NameHasOwner", BusNames.service).readBool()) ?? false
        if running {
            let pid = (try? dbus(bus, "GetConnectionUnixProcessID", BusNames.service).readUInt32()).map { "pid \($0)" } ?? "pid ?"
            let version = (try? bus.call(destination: BusNames.service, path: BusNames.objectPath,
                                         interface: "org.freedesktop.DBus.Properties", member: "Get",
                                         timeoutMicroseconds: 3_000_000) {
                try $0.append(BusNames.interface)
                try $0.append("Version")
            }.readDisplayVariant()) ?? "?"
            let mpris = (try? dbus(bus, "NameHasOwner", "org.mpris.MediaPlayer2.lector").readBool()) == true
            var line = "\(BusNames.service) is running (\(pid), version \(version))"
            line += mpris ? ", media player org.mpris.MediaPlayer2.lector" : ""
            if version != "?" && version != BusNames.version {
                report.add(.warning, "lector service", line + "; this lector is version \(BusNames.version). "
                    + "Fix: restart it (systemctl --user restart lector, or end it and run any lector command)")
            } else if !mpris {
                report.add(.warning, "lector service", line + ", but org.mpris.MediaPlayer2.lector is not on the bus, "
                    + "so media controls do not see it. Fix: systemctl --user restart lector")
            } else {
                report.add(.ok, "lector service", line)
            }
        } else if activatable?.contains(BusNames.service) == true {
            report.add(.ok, "lector service", "not running; the session bus starts it on first use (D-Bus activation)")
        } else {
            report.add(.warning, "lector service", "not running, and the session bus cannot start it (no activation file); "
                + "lector say and lector read start it themselves, media keys and other D-Bus clients cannot. "
                + "Fix: install the activation file (see the activation file line)")
        }
        return activatable
    }

    private func dbus(_ bus: Bus, _ member: String, _ argument: String? = nil) throws -> MessageReader {
        try bus.call(destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus",
                     member: member, timeoutMicroseconds: 3_000_000) { writer in
            if let argument { try writer.append(argument) }
        }
    }

    /// A bus driver method returning `as`.
    private func dbusStrings(_ bus: Bus, _ member: String) throws -> [String] {
        try dbus(bus, member).readStrings()
    }

    // MARK: - Sound server

    private func checkSoundServer(_ report: inout Report, _ environment: [String: String]) {
        switch SoundServerProbe.probe(timeoutMilliseconds: max(100, soundServerTimeout)) {
        case .reachable(let server):
            let sink = server.defaultSink.map { "default sink \($0)" } ?? "no default sink"
            let line = "\(server.serverName) \(server.serverVersion) at \(server.address), \(sink) "
                + "(\(server.sinkCount) sink\(server.sinkCount == 1 ? "" : "s"))"
            if server.sinkCount == 0 {
                report.add(.warning, "sound server", line + "; nothing can be heard. Fix: connect an output device, "
                    + "or check the sound settings (pactl list short sinks)")
            } else {
                report.add(.ok, "sound server", line)
            }
        case .noLibrary(let reason):
            report.add(.fail, "sound server", reason)
        case .unreachable(let reason):
            let target = environment["PULSE_SERVER"].map { "PULSE_SERVER=\($0)" }
                ?? environment["XDG_RUNTIME_DIR"].map { "\($0)/pulse/native" } ?? "the default server"
            var fix = "Fix: start PipeWire (systemctl --user start pipewire-pulse.socket) or PulseAudio "
                + "(systemctl --user start pulseaudio.socket)"
            if environment["PULSE_SERVER"] != nil { fix += ", or correct or unset PULSE_SERVER" }
            if environment["XDG_RUNTIME_DIR"] == nil { fix += "; XDG_RUNTIME_DIR is not set, so the default server cannot be found" }
            report.add(.fail, "sound server", "cannot connect to \(target): \(reason). \(fix)")
        }
    }

    // MARK: - Voices

    private func checkVoices(_ report: inout Report) -> [Voice]? {
        let engine: SpeechEngine
        do {
            engine = try SpeechEngine(bufferedSecondsAhead: 1)
        } catch {
            report.add(.fail, "voices", "\(error)")   // its message names the fix
            return nil
        }
        let version = engine.version
        let data = engine.dataPath
        let voices = engine.voices
        engine.shutdown()   // its thread ends and frees espeak-ng; the list is ours
        guard !voices.isEmpty else {
            report.add(.fail, "voices", "espeak-ng \(version) lists no voices in \(data). Fix: apt install --reinstall espeak-ng-data")
            return voices
        }
        let languages = Set(voices.flatMap { $0.languages.map(\.tag) }).count
        let line = "\(voices.count) espeak-ng voices for \(languages) languages (espeak-ng \(version), data in \(data))"
        if (try? VoiceCatalog(voices: voices).resolve(language: "en", voice: nil)) == nil {
            report.add(.warning, "voices", line + ", but none for English, the default language. "
                + "Fix: apt install --reinstall espeak-ng-data")
        } else {
            report.add(.ok, "voices", line)
        }
        return voices
    }

    // MARK: - The book: can its voice read it?

    /// The open book as the running daemon checked it (Narrator1.Book), else the book read last,
    /// checked here the same way: a sample of its text through espeak-ng with its voice.
    private func checkBook(_ report: inout Report, _ bus: Bus?, voices: [Voice]?, _ environment: [String: String]) {
        if let bus, (try? dbus(bus, "NameHasOwner", BusNames.service).readBool()) == true {
            let book = (try? bus.call(destination: BusNames.service, path: BusNames.objectPath,
                                      interface: "org.freedesktop.DBus.Properties", member: "Get",
                                      timeoutMicroseconds: 3_000_000) {
                try $0.append(MPRISNames.narrator)
                try $0.append("Book")
            }.readDisplayDictionary()) ?? [:]
            guard let title = book["title"] else { return report.add(.ok, "book", "no book is open") }
            if let warning = book["voice-warning"] {
                let fix = CommandText.voiceFix(suggested: book["suggested-voice"], url: book["url"]).map { ". " + $0 } ?? ""
                report.add(.warning, "book", "\"\(title)\": \(warning)\(fix)")
            } else if book["unpronounced"] != nil {
                report.add(.ok, "book", "\"\(title)\": its voice reads it")
            } else {
                report.add(.ok, "book", "\"\(title)\": not checked yet (the daemon checks a book between the first sentences it reads; ask again in a moment)")
            }
            return
        }
        guard let voices, !voices.isEmpty else { return report.add(.warning, "book", "not checked without voices") }
        guard case .found(let recent) = RecentBookStore(directory: RecentBookStore.defaultDirectory()).load() else {
            return report.add(.ok, "book", "no book has been read yet")
        }
        guard FileManager.default.fileExists(atPath: recent.path) else {
            return report.add(.ok, "book", "not checked: the book read last, \(recent.path), is gone (moved or deleted)")
        }
        let outline: BookOutline
        do {
            outline = try BookReader.open(URL(fileURLWithPath: recent.path))
        } catch {
            return report.add(.warning, "book", "\(recent.path) cannot be read: \(error)")
        }
        var mark: Bookmark?
        if case .found(let found) = BookmarkStore(directory: BookmarkStore.defaultDirectory()).load(bookIdentity: outline.identity) {
            mark = found
        }
        let configuration = (try? FileManager.default.contents(atPath: config ?? Configuration.defaultPath(environment: environment))
            .map { try Configuration.parse(utf8: Array($0), file: "config.toml") }) ?? nil
        let catalog = VoiceCatalog(voices: voices)
        let language = outline.language
        let voice = mark?.voice.flatMap { try? catalog.resolve(language: nil, voice: $0) }
            ?? language.flatMap { tag in configuration?.voice(forLanguage: tag).flatMap { try? catalog.resolve(language: tag, voice: $0) } }
            ?? language.flatMap { try? catalog.resolve(language: $0, voice: nil) }
            ?? (try? catalog.resolve(language: nil, voice: nil))
        guard let voice else { return report.add(.warning, "book", "not checked: no voice") }
        let start = min(max(0, mark?.chapter ?? 0), max(0, outline.chapters.count - 1))
        let texts = (start..<min(outline.chapters.count, start + 6)).compactMap { try? outline.loadChapter($0).text }
        guard let engine = try? SpeechEngine(bufferedSecondsAhead: 1) else {
            return report.add(.warning, "book", "not checked: espeak-ng did not start")
        }
        defer { engine.shutdown() }
        let done = DispatchSemaphore(value: 0)
        nonisolated(unsafe) var result: PronunciationReport?
        PronunciationProbe.check(engine: engine, texts: texts, voice: voice, candidates: { verdict in
            PronunciationCheck.candidates(for: verdict, bookLanguage: language, current: voice, catalog: catalog)
        }) { checked in
            result = checked
            done.signal()
        }
        _ = done.wait(timeout: .now() + 30)
        let title = outline.title
        guard let result else { return report.add(.ok, "book", "\"\(title)\": too little text to check") }
        if result.isProblem {
            let fix = CommandText.voiceFix(suggested: result.suggestion?.voice, url: URL(fileURLWithPath: recent.path).absoluteString)
            report.add(.warning, "book", "\"\(title)\": \(result.sentence)" + (fix.map { ". " + $0 } ?? ""))
        } else {
            report.add(.ok, "book", "\"\(title)\": \(result.sentence)")
        }
    }

    // MARK: - Config

    private func checkConfig(_ report: inout Report, _ environment: [String: String], voices: [Voice]?) {
        let path = config ?? Configuration.defaultPath(environment: environment)
        guard FileManager.default.fileExists(atPath: path) else {
            if config != nil {
                report.add(.fail, "config", "\(path) does not exist")
            } else {
                report.add(.ok, "config", "no \(path); using the defaults (see man 5 lector.conf to change them)")
            }
            return
        }
        guard let data = FileManager.default.contents(atPath: path) else {
            report.add(.fail, "config", "cannot read \(path) (\(String(cString: strerror(errno)))). "
                + "Fix: make it a readable file (chmod u+r \(path))")
            return
        }
        let configuration: Configuration
        do {
            configuration = try Configuration.parse(utf8: Array(data), file: path)
        } catch {
            report.add(.fail, "config", "\(error). Fix: correct that line (man 5 lector.conf lists every key); "
                + "until then the daemon keeps its last good settings")
            return
        }
        if let voices {
            let catalog = VoiceCatalog(voices: voices)
            // A voice by name or file (what the voice option takes), or by the language espeak-ng
            // lists it under (its Language column, what espeak-ng -v also takes: en-gb).
            let missing = configuration.voices.sorted { $0.key < $1.key }.filter { entry in
                (try? catalog.resolve(language: nil, voice: entry.value)) == nil
                    && !voices.contains { $0.primaryLanguage == entry.value.lowercased() }
            }
            if !missing.isEmpty {
                let names = missing.map { "\($0.key) = \"\($0.value)\"" }.joined(separator: ", ")
                report.add(.warning, "config", "\(path) is valid, but [voices] names voices that are not installed: \(names). "
                    + "Fix: choose names that espeak-ng --voices lists")
                return
            }
        }
        report.add(.ok, "config", "\(path) is valid")
    }
}

/// The lines printed so far and their counts.
struct Report {
    enum Status: String {
        case ok = "ok"
        case warning = "warning"
        case fail = "FAIL"
    }

    private(set) var failures = 0
    private(set) var warnings = 0
    private(set) var oks = 0

    mutating func add(_ status: Status, _ check: String, _ message: String) {
        switch status {
        case .ok: oks += 1
        case .warning: warnings += 1
        case .fail: failures += 1
        }
        print(status.rawValue.padding(toLength: 8, withPad: " ", startingAt: 0) + check + ": " + message)
        fflush(nil)   // every stream: the line is seen at once, even piped
    }

    func summary() {
        print("lector doctor: \(oks) ok, \(warnings) warning\(warnings == 1 ? "" : "s"), \(failures) failed")
    }
}

/// Where a desktop installs Lector's files, per the XDG base directory spec, systemd and D-Bus.
struct InstalledFiles {
    static let activationFile = "\(BusNames.service).service"
    static let unitFile = "lector.service"
    static let desktopFile = "io.github.lector.Lector.desktop"
    static let iconName = "io.github.lector.Lector"

    let dataHome: String
    let dataDirectories: [String]
    let configHome: String
    let configDirectories: [String]
    let home: String

    init(environment: [String: String]) {
        home = environment["HOME"] ?? ""
        func absolute(_ value: String?) -> String? { value.flatMap { $0.hasPrefix("/") ? $0 : nil } }
        func list(_ value: String?, _ fallback: [String]) -> [String] {
            let items = (value ?? "").split(separator: ":").map(String.init).filter { $0.hasPrefix("/") }
            return items.isEmpty ? fallback : items
        }
        dataHome = absolute(environment["XDG_DATA_HOME"]) ?? home + "/.local/share"
        dataDirectories = list(environment["XDG_DATA_DIRS"], ["/usr/local/share", "/usr/share"])
        configHome = absolute(environment["XDG_CONFIG_HOME"]) ?? home + "/.config"
        configDirectories = list(environment["XDG_CONFIG_DIRS"], ["/etc/xdg"])
    }

    /// Data directories, the user's first.
    var dataSearchPath: [String] { unique([dataHome] + dataDirectories) }

    /// systemd's user unit search path (systemd.unit(5)), without the runtime and generator dirs.
    var unitSearchPath: [String] {
        unique([configHome + "/systemd/user"] + configDirectories.map { $0 + "/systemd/user" }
            + ["/etc/systemd/user", dataHome + "/systemd/user"] + dataDirectories.map { $0 + "/systemd/user" }
            + ["/usr/local/lib/systemd/user", "/usr/lib/systemd/user"])
    }

    func check(_ report: inout Report, activatable: Set<String>?) {
        checkPrograms(&report)
        let activation = checkActivationFile(&report, activatable: activatable)
        checkUnit(&report, activation: activation)
        checkDesktopFile(&report)
        checkIcon(&report)
    }

    /// The daemon and the read-along server, which `lector serve`, `lector view` and the CLI's
    /// own start of the daemon run, found as the CLI that ran this finds them (`InvokingCLI`).
    private func checkPrograms(_ report: inout Report) {
        let cli = InvokingCLI.path
        let daemon = OwnExecutable.sibling(named: "lectord", besideProgram: cli)
        let view = OwnExecutable.sibling(named: "lector-view", besideProgram: cli)
        let fix = "Fix: install the lector package, or put it beside \(cli ?? "lector") or in its ../libexec/lector/"
        if daemon.path == nil {
            report.add(.fail, "programs", "\(daemon): lector serve, and lector say or read without an activation file, "
                + "cannot start the daemon. \(fix)")
        } else if view.path == nil {
            report.add(.warning, "programs", "lectord: \(daemon.path ?? ""); \(view): lector view cannot show the read-along page. \(fix)")
        } else {
            report.add(.ok, "programs", "lectord: \(daemon.path ?? ""), lector-view: \(view.path ?? "")")
        }
    }

    /// The first activation file found, parsed.
    private func checkActivationFile(_ report: inout Report, activatable: Set<String>?) -> [String: String]? {
        let directories = dataSearchPath.map { $0 + "/dbus-1/services" }
        let canStart = activatable?.contains(BusNames.service)
        guard let path = first(Self.activationFile, in: directories) else {
            if canStart == true {
                report.add(.ok, "activation file", "none in \(directories.joined(separator: ", ")), "
                    + "but the session bus can start \(BusNames.service) (from a service directory of its own)")
            } else {
                report.add(.warning, "activation file", "no \(Self.activationFile) in \(directories.joined(separator: ", ")). "
                    + "Fix: install the lector package, or: sed \"s|@libexecdir@|$HOME/.local/libexec|\" "
                    + "dbus/io.github.lector.Lector1.service.in > \(dataHome)/dbus-1/services/\(Self.activationFile)")
            }
            return nil
        }
        let entries = Self.keyValues(path)
        let exec = entries["Exec"] ?? ""
        let program = exec.split(separator: " ").first.map(String.init) ?? ""
        if entries["Name"] != BusNames.service {
            report.add(.fail, "activation file", "\(path) has Name=\(entries["Name"] ?? "") instead of \(BusNames.service). "
                + "Fix: reinstall it")
        } else if !FileManager.default.isExecutableFile(atPath: program) {
            report.add(.fail, "activation file", "\(path) runs \(program.isEmpty ? "nothing" : program), which is not an executable. "
                + "Fix: correct its Exec= line to the daemon you installed (\(Self.daemonPath))")
        } else if canStart == false {
            report.add(.warning, "activation file", "\(path) exists, but the session bus does not list \(BusNames.service) as activatable. "
                + "Fix: busctl --user call org.freedesktop.DBus /org/freedesktop/DBus org.freedesktop.DBus ReloadConfig "
                + "(or log in again)")
        } else {
            report.add(.ok, "activation file", "\(path) (Exec=\(exec)" + (entries["SystemdService"].map { ", SystemdService=\($0)" } ?? "") + ")")
        }
        return entries
    }

    private func checkUnit(_ report: inout Report, activation: [String: String]?) {
        guard let path = first(Self.unitFile, in: unitSearchPath) else {
            if let service = activation?["SystemdService"] {
                report.add(.warning, "systemd unit", "the activation file hands the start to \(service), but no \(Self.unitFile) is installed, "
                    + "so activation fails where the bus is run by systemd. Fix: install packaging/systemd/lector.service to "
                    + "\(configHome)/systemd/user/ (ExecStart= your lectord) and run systemctl --user daemon-reload")
            } else {
                report.add(.warning, "systemd unit", "no \(Self.unitFile) in \(unitSearchPath.joined(separator: ", ")) "
                    + "(optional: with it systemd supervises and restarts the daemon). Fix: install the lector package")
            }
            return
        }
        let exec = Self.keyValues(path)["ExecStart"] ?? ""
        let program = exec.split(separator: " ").first.map { String($0.drop { "-@:+!".contains($0) }) } ?? ""
        if !FileManager.default.isExecutableFile(atPath: program) {
            report.add(.fail, "systemd unit", "\(path) runs \(program.isEmpty ? "nothing" : program), which is not an executable. "
                + "Fix: correct ExecStart= (\(Self.daemonPath)), then systemctl --user daemon-reload")
        } else {
            report.add(.ok, "systemd unit", "\(path) (ExecStart=\(exec))")
        }
    }

    private func checkDesktopFile(_ report: inout Report) {
        let directories = dataSearchPath.map { $0 + "/applications" }
        if let path = first(Self.desktopFile, in: directories) {
            report.add(.ok, "desktop file", path)
        } else {
            report.add(.warning, "desktop file", "no \(Self.desktopFile) in \(directories.joined(separator: ", ")): "
                + "media controls show Lector without its name and icon. Fix: install the lector package, or copy "
                + "data/\(Self.desktopFile) to \(dataHome)/applications/")
        }
    }

    private func checkIcon(_ report: inout Report) {
        let themes = unique([home + "/.icons"] + dataSearchPath.map { $0 + "/icons" })
        let candidates = ["scalable/apps/\(Self.iconName).svg"]
            + [16, 22, 24, 32, 48, 64, 128, 256, 512].map { "\($0)x\($0)/apps/\(Self.iconName).png" }
        for theme in themes {
            for candidate in candidates {
                let path = "\(theme)/hicolor/\(candidate)"
                if FileManager.default.fileExists(atPath: path) {
                    report.add(.ok, "icon", path)
                    return
                }
            }
        }
        report.add(.warning, "icon", "no \(Self.iconName) icon in the hicolor theme of \(themes.joined(separator: ", ")). "
            + "Fix: install the lector package, or copy data/icons/hicolor/scalable/apps/\(Self.iconName).svg "
            + "to \(dataHome)/icons/hicolor/scalable/apps/")
    }

    private func first(_ name: String, in directories: [String]) -> String? {
        directories.map { "\($0)/\(name)" }.first { FileManager.default.fileExists(atPath: $0) }
    }

    private func unique(_ paths: [String]) -> [String] {
        var seen = Set<String>()
        return paths.filter { seen.insert($0).inserted }
    }

    /// `Key=Value` lines of an ini-style file (the first of each key; sections ignored).
    static func keyValues(_ path: String) -> [String: String] {
        guard let data = FileManager.default.contents(atPath: path) else { return [:] }
        var result: [String: String] = [:]
        for line in String(decoding: data, as: UTF8.self).split(whereSeparator: \.isNewline) {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            guard !trimmed.hasPrefix("#"), !trimmed.hasPrefix(";"), let equals = trimmed.firstIndex(of: "=") else { continue }
            let key = trimmed[..<equals].trimmingCharacters(in: .whitespaces)
            if result[key] == nil { result[key] = trimmed[trimmed.index(after: equals)...].trimmingCharacters(in: .whitespaces) }
        }
        return result
    }

    /// The daemon's program as installed with the CLI, for the fixes this suggests.
    static var daemonPath: String {
        OwnExecutable.sibling(named: "lectord", besideProgram: InvokingCLI.path).path ?? "/usr/libexec/lector/lectord"
    }
}
