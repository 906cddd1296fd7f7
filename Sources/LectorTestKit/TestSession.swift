import Foundation

/// A private desktop session for one test, so tests never touch the developer's real session bus or
/// speakers and can run side by side: a temp dir holding private XDG_RUNTIME_DIR/HOME/XDG_*_HOME,
/// a private dbus-daemon (session-like config with a service directory we control), and a private
/// sound server with null sinks whose monitors can be recorded: PulseAudio, or PipeWire with
/// pipewire-pulse and WirePlumber (`LECTOR_TEST_SOUND_SERVER=pipewire`, see `SoundServerKind`).
/// Everything started through the session carries a marker in its environment, so `shutdown()`
/// (also run by deinit) can find and kill even D-Bus-activated services that were double-forked away from us.
///
/// Set LECTOR_TEST_KEEP_DIRECTORY=1 to keep the temp dir (logs of every process) after shutdown.
public final class TestSession: @unchecked Sendable {
    /// Temp root; removed on shutdown.
    public let directory: URL
    /// D-Bus activation .service files go here (it is the bus config's only <servicedir>).
    public let serviceDirectory: URL
    /// stdout/stderr of every process the session starts.
    public let logDirectory: URL
    /// Null sinks of the sound server; the first is the default sink.
    public let sinks: [String]
    /// e.g. unix:path=/tmp/lector-test-XXXXXX/runtime/bus
    public let busAddress: String
    /// e.g. unix:/tmp/lector-test-XXXXXX/runtime/pulse/native (PulseAudio's or pipewire-pulse's socket)
    public let pulseServer: String
    /// The sound server this session runs (`LECTOR_TEST_SOUND_SERVER` unless the initializer chose one).
    public let soundServerKind: SoundServerKind
    /// Environment for child processes: ours plus the private bus, sound server and XDG dirs,
    /// without DISPLAY/WAYLAND_DISPLAY (nothing may reach a real desktop).
    public let environment: [String: String]

    /// Environment variable whose value (the session directory) marks every process we start.
    public static let markerVariable = "LECTOR_TEST_SESSION"

    let runtimeDirectory: URL
    let lock = NSLock()
    private var bus: ManagedProcess?
    /// pulseaudio; or pipewire, wireplumber and pipewire-pulse.
    private var soundServerProcesses: [ManagedProcess] = []
    /// One idle recorder per sink, see `keepSinksAwake`.
    private var sinkKeepers: [ManagedProcess] = []
    var children: [ManagedProcess] = []
    private var recordings: [MonitorRecording] = []
    private var watchers: [SignalWatcher] = []
    private var logCounter = 0
    private var isShutDown = false

    /// `soundServer` nil: the one `LECTOR_TEST_SOUND_SERVER` names (default pulseaudio).
    public init(sinks: [String] = ["lector_test"], startSoundServer: Bool = true,
                soundServer: SoundServerKind? = nil) throws {
        soundServerKind = try soundServer ?? SoundServerKind.fromEnvironment()
        var template = Array("/tmp/lector-test-XXXXXX".utf8CString)
        guard let created = mkdtemp(&template) else { throw TestKitError.failed("mkdtemp: \(errno)") }
        directory = URL(fileURLWithPath: String(cString: created), isDirectory: true)
        runtimeDirectory = directory.appendingPathComponent("runtime", isDirectory: true)
        serviceDirectory = directory.appendingPathComponent("services", isDirectory: true)
        logDirectory = directory.appendingPathComponent("logs", isDirectory: true)
        self.sinks = sinks
        // Unix socket paths are limited to 108 bytes; /tmp/lector-test-XXXXXX/runtime/... stays well below.
        busAddress = "unix:path=\(runtimeDirectory.path)/bus"
        pulseServer = "unix:\(runtimeDirectory.path)/pulse/native"

        var environment = ProcessInfo.processInfo.environment
        for key in environment.keys where key.hasPrefix("PULSE_") || key.hasPrefix("PIPEWIRE_")
            || key.hasPrefix("WIREPLUMBER_") || key == "DISPLAY" || key == "WAYLAND_DISPLAY"
            || key == "DBUS_STARTER_ADDRESS" || key == "DBUS_STARTER_BUS_TYPE" {
            environment.removeValue(forKey: key)
        }
        let home = directory.appendingPathComponent("home").path
        environment["HOME"] = home
        environment["XDG_RUNTIME_DIR"] = runtimeDirectory.path
        environment["XDG_STATE_HOME"] = home + "/.local/state"
        environment["XDG_CACHE_HOME"] = home + "/.cache"
        environment["XDG_CONFIG_HOME"] = home + "/.config"
        environment["XDG_DATA_HOME"] = home + "/.local/share"
        environment["DBUS_SESSION_BUS_ADDRESS"] = busAddress
        environment["PULSE_SERVER"] = pulseServer
        environment[Self.markerVariable] = directory.path
        // xdg-open (`lector view`, MPRIS Raise) "opens" pages with this: no real browser window.
        environment["BROWSER"] = "true"
        self.environment = environment

        do {
            for path in [runtimeDirectory.path, runtimeDirectory.path + "/pulse", serviceDirectory.path, logDirectory.path,
                         home, home + "/.local/state", home + "/.cache", home + "/.config", home + "/.local/share"] {
                try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true,
                                                        attributes: [.posixPermissions: 0o700])
            }
            try startBus()
            if startSoundServer { try self.startSoundServer() }
        } catch {
            shutdown()
            throw error
        }
    }

    deinit { shutdown() }

    // MARK: - D-Bus

    private func startBus() throws {
        let config = directory.appendingPathComponent("bus.conf")
        try """
        <!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
         "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
        <busconfig>
          <type>session</type>
          <listen>\(busAddress)</listen>
          <servicedir>\(serviceDirectory.path)</servicedir>
          <policy context="default">
            <allow send_destination="*" eavesdrop="true"/>
            <allow eavesdrop="true"/>
            <allow own="*"/>
          </policy>
        </busconfig>
        """.write(to: config, atomically: true, encoding: .utf8)
        // Activated services inherit the daemon's environment, so it gets ours (PULSE_SERVER etc.).
        let daemon = try launch("dbus-daemon", ["--config-file=\(config.path)", "--nofork", "--print-address"],
                                environment: environment)
        lock.withLock { bus = daemon }
        let socket = runtimeDirectory.path + "/bus"
        let deadline = Date(timeIntervalSinceNow: 5)
        // --print-address is written once the socket listens.
        while !daemon.standardOutput.contains("unix:") || !FileManager.default.fileExists(atPath: socket) {
            guard daemon.isRunning, Date() < deadline else {
                throw TestKitError.failed("dbus-daemon did not start:\n\(daemon.output)")
            }
            usleep(2_000)
        }
    }

    /// Stops the session bus and starts a new one at the same address, as a `dbus-daemon`
    /// restart or a logout does to the clients connected to it: they lose their connection.
    public func restartBus() throws {
        let old = lock.withLock { bus }
        old?.terminate(signal: SIGTERM, grace: 3)
        try? FileManager.default.removeItem(atPath: runtimeDirectory.path + "/bus")
        try startBus()
    }

    /// Blocks until `name` is owned on the private bus (does not activate it).
    public func waitForBusName(_ name: String, timeout: TimeInterval = 10) throws {
        let seconds = Int(timeout.rounded(.up)) + 1
        let result = try run("gdbus", ["wait", "--session", "--timeout", String(seconds), name], timeout: timeout)
        guard result.succeeded else {
            throw TestKitError.timedOut("bus name \(name) did not appear within \(timeout) s (\(result))")
        }
    }

    /// True if `name` currently has an owner on the private bus.
    public func busNameHasOwner(_ name: String) throws -> Bool {
        let result = try run("gdbus", ["call", "--session", "--dest", "org.freedesktop.DBus",
                                       "--object-path", "/org/freedesktop/DBus",
                                       "--method", "org.freedesktop.DBus.NameHasOwner", name], timeout: 5)
        guard result.succeeded else { throw TestKitError.failed("NameHasOwner \(name): \(result)") }
        return result.stdout.contains("true")
    }

    /// Watches the signals `busName` emits; returns once gdbus follows the name (see `SignalWatcher`).
    public func watchSignals(from busName: String) throws -> SignalWatcher {
        let monitor = try launch("gdbus", ["monitor", "--session", "--dest", busName],
                                 environment: environment, stdout: .pipe)
        let watcher = SignalWatcher(busName: busName, process: monitor)
        lock.withLock { watchers.append(watcher) }
        try watcher.waitUntilWatching(timeout: 10)
        return watcher
    }

    /// Writes `NAME.service` into `serviceDirectory` so the bus can activate `executable` on demand.
    /// Arguments must not contain quotes; the bus parses Exec= like a simple shell.
    @discardableResult
    public func installDBusService(name: String, executable: String, arguments: [String] = []) throws -> URL {
        let path = try ExecutableLocator.locate(executable, searchPath: environment["PATH"]).path
        let exec = ([path] + arguments).map { $0.contains(" ") ? "\"\($0)\"" : $0 }.joined(separator: " ")
        let file = serviceDirectory.appendingPathComponent("\(name).service")
        try "[D-BUS Service]\nName=\(name)\nExec=\(exec)\n".write(to: file, atomically: true, encoding: .utf8)
        return file
    }

    // MARK: - Sound server

    /// (Re)starts the sound server (`soundServerKind`) with the null sinks, makes the first the
    /// default and waits until `pactl info` answers (10 s at most). Saved state (stream-restore
    /// database, WirePlumber's state files) survives a restart, as on a desktop.
    public func startSoundServer() throws {
        stopSoundServer()
        switch soundServerKind {
        case .pulseaudio: try startPulseAudio()
        case .pipewire: try startPipeWire()
        }
    }

    /// Where the sound server's own processes run: off the test bus (they only warn). Unsetting the
    /// address is not enough: libdbus then falls back to $XDG_RUNTIME_DIR/bus, which is our bus;
    /// an address of an unknown transport fails instead.
    private var soundServerEnvironment: [String: String] {
        var serverEnvironment = environment
        serverEnvironment["DBUS_SESSION_BUS_ADDRESS"] = "disabled:"
        serverEnvironment["PULSE_RUNTIME_PATH"] = runtimeDirectory.path + "/pulse"
        return serverEnvironment
    }

    private var pulseSocket: String { runtimeDirectory.path + "/pulse/native" }

    /// PulseAudio with module-stream-restore (saved stream volumes exist as on a desktop;
    /// `restore_device=false` so a stream moved once does not send the next one of its kind elsewhere).
    private func startPulseAudio() throws {
        let sinkModules = try sinks.map { sink in
            "--load=module-null-sink " + (try Self.nullSinkArguments(name: sink, properties: [:], channels: 1)).joined(separator: " ")
        }
        let arguments = [
            "-n", "--daemonize=no", "--system=no", "--exit-idle-time=-1", "--use-pid-file=no",
            "--realtime=no", "--high-priority=no", "--log-target=stderr",
            "--load=module-native-protocol-unix auth-anonymous=1 socket=\(pulseSocket)",
            "--load=module-stream-restore restore_device=false",
        ] + sinkModules
        let server = try launch("pulseaudio", arguments, environment: soundServerEnvironment)
        lock.withLock { soundServerProcesses = [server] }
        try waitForPulseProtocol(servedBy: [server])
        if let first = sinks.first {
            try pactl(["set-default-sink", first])
        }
        try keepSinksAwake()
    }

    /// pipewire, then wireplumber and pipewire-pulse (see `PipeWireConfiguration`); the null sinks are
    /// loaded through pipewire-pulse like any `pactl load-module` (so they end with it). Ready once
    /// WirePlumber has made the first sink the default (so it links streams by then).
    private func startPipeWire() throws {
        let configuration = PipeWireConfiguration(directory: directory, pulseSocket: pulseSocket)
        try configuration.write()
        var serverEnvironment = soundServerEnvironment
        serverEnvironment["PIPEWIRE_RUNTIME_DIR"] = runtimeDirectory.path
        var pipewireEnvironment = serverEnvironment
        pipewireEnvironment["PIPEWIRE_CONFIG_DIR"] = configuration.configDirectory.path
        var wirePlumberEnvironment = serverEnvironment
        wirePlumberEnvironment["XDG_CONFIG_HOME"] = configuration.wirePlumberConfigHome.path

        // A pipewire killed by SIGKILL leaves its socket behind: never mistake that one for the new one.
        let socket = runtimeDirectory.path + "/pipewire-0"
        try? FileManager.default.removeItem(atPath: socket)
        let pipewire = try launch("pipewire", ["-c", "pipewire.conf"], environment: pipewireEnvironment)
        lock.withLock { soundServerProcesses = [pipewire] }
        let deadline = Date(timeIntervalSinceNow: 10)
        while !FileManager.default.fileExists(atPath: socket) {
            guard pipewire.isRunning else { throw TestKitError.failed("pipewire exited:\n\(pipewire.output)") }
            guard Date() < deadline else {
                throw TestKitError.timedOut("pipewire did not create \(socket) within 10 s:\n\(pipewire.output)")
            }
            usleep(2_000)
        }
        let wirePlumber = try launch("wireplumber", [], environment: wirePlumberEnvironment)
        lock.withLock { soundServerProcesses.append(wirePlumber) }
        let pulse = try launch("pipewire-pulse", ["-c", "pipewire-pulse.conf"], environment: pipewireEnvironment)
        lock.withLock { soundServerProcesses.append(pulse) }
        let processes = [pipewire, wirePlumber, pulse]
        try waitForPulseProtocol(servedBy: processes)
        // WirePlumber creates the "default" metadata (without it pipewire-pulse answers set-default-sink
        // with "Not supported") and, from restore-stream, "route-settings" (what pipewire-pulse's
        // stream-restore extension reads and writes; a write before it exists is lost without an error).
        // pw-metadata waits for a metadata object that does not exist yet, hence the short timeout.
        for name in ["default", "route-settings"] {
            try waitUntil("wireplumber published its \(name) metadata", servedBy: processes) {
                try run("pw-metadata", ["-n", name], timeout: 0.5).stdout.contains("Found \"\(name)\"")
            }
        }

        for sink in sinks {
            try pactl(["load-module", "module-null-sink"]
                      + (try Self.nullSinkArguments(name: sink, properties: [:], channels: 1)))
        }
        if let first = sinks.first {
            try waitUntil("wireplumber made \(first) the default sink", servedBy: processes) {
                try pactl(["set-default-sink", first])
                return try pactl(["get-default-sink"]).trimmingCharacters(in: .whitespacesAndNewlines) == first
            }
        }
        // No keep-awake recorders: a PipeWire null sink is clocked by the graph's driver at the quantum
        // its lowest-latency client asks for, so a new 5 ms recorder gets data within a cycle (~20 ms
        // measured, even from a suspended sink) instead of waiting out a 2 s sleep as on PulseAudio.
    }

    /// Waits until `pactl info` answers (10 s at most); fails early if a server process exits.
    private func waitForPulseProtocol(servedBy processes: [ManagedProcess]) throws {
        try waitUntil("the sound server answered pactl info", servedBy: processes) {
            try run("pactl", ["info"], timeout: 2).succeeded
        }
    }

    private func waitUntil(_ what: String, servedBy processes: [ManagedProcess], timeout: TimeInterval = 10,
                           _ condition: () throws -> Bool) throws {
        let deadline = Date(timeIntervalSinceNow: timeout)
        while true {
            if let dead = processes.first(where: { !$0.isRunning }) {
                throw TestKitError.failed("\(dead.name) exited (waiting until \(what)):\n\(soundServerOutput)")
            }
            if (try? condition()) == true { return }
            guard Date() < deadline else {
                throw TestKitError.timedOut("not \(what) within \(timeout) s:\n\(soundServerOutput)")
            }
            usleep(10_000)
        }
    }

    /// An idle null sink sleeps for its maximum latency (about 2 s) between renders, and a new
    /// low-latency recorder is only noticed at the next wake-up, so a fresh `parec` would wait ~2 s
    /// for data and sound would reach the monitor in coarse blocks. A permanent 5 ms recorder per sink
    /// keeps every sink rendering in 5 ms steps; suspending and resuming the sink once makes it adopt
    /// that latency now instead of at the end of its current 2 s sleep. (PulseAudio only.)
    private func keepSinksAwake() throws {
        guard !sinks.isEmpty else { return }
        let keepers = try sinks.map { sink in
            try launch("parec", Self.recorderArguments(sink: sink, clientName: "lector-testkit-keep-awake"),
                       environment: environment, stdout: .file(URL(fileURLWithPath: "/dev/null")))
        }
        lock.withLock { sinkKeepers = keepers }
        let deadline = Date(timeIntervalSinceNow: 5)
        while try run("pactl", ["list", "short", "source-outputs"], timeout: 2).stdout
            .split(separator: "\n").count < sinks.count {
            guard Date() < deadline else {
                throw TestKitError.timedOut("keep-awake recorders did not connect:\n\(keepers.map(\.output))")
            }
            usleep(5_000)
        }
        for sink in sinks {
            try pactl(["suspend-sink", sink, "1"])
            try pactl(["suspend-sink", sink, "0"])
        }
    }

    /// Runs `pactl` against the session's server and returns its stdout; throws (with stderr) if it fails.
    @discardableResult
    public func pactl(_ arguments: [String], timeout: TimeInterval = 10) throws -> String {
        let result = try run("pactl", arguments, timeout: timeout)
        guard result.succeeded else {
            throw TestKitError.failed("pactl \(arguments.joined(separator: " ")): \(result)")
        }
        return result.stdout
    }

    static func recorderArguments(sink: String, clientName: String, latencyMilliseconds: Int = 5) -> [String] {
        ["--device=\(sink).monitor", "--format=s16le", "--rate=\(MonitorRecording.sampleRate)", "--channels=1",
         "--latency-msec=\(latencyMilliseconds)", "--raw", "--client-name=\(clientName)"]
    }

    /// Stops the sound server (SIGTERM, SIGKILL after 3 s; all PipeWire processes together), e.g. to
    /// test how clients cope with a server restart. Recordings end with it.
    public func stopSoundServer() {
        let processes: [ManagedProcess] = lock.withLock {
            defer {
                soundServerProcesses = []
                sinkKeepers = []
            }
            return sinkKeepers + soundServerProcesses
        }
        ManagedProcess.terminateAll(processes, grace: 3)
    }

    /// Records the monitor of `sink` (default: the first sink); returns once audio flows.
    public func record(sink: String? = nil, latencyMilliseconds: Int = 5) throws -> MonitorRecording {
        guard let sink = sink ?? sinks.first else { throw TestKitError.failed("the session has no sinks") }
        let recorder = try launch("parec", Self.recorderArguments(sink: sink, clientName: "lector-testkit-recorder",
                                                                  latencyMilliseconds: latencyMilliseconds),
                                  environment: environment, stdout: .pipe)
        let recording = MonitorRecording(sink: sink, process: recorder)
        lock.withLock { recordings.append(recording) }
        try recording.waitForFirstSamples(timeout: 5)
        return recording
    }

    // MARK: - Processes

    /// Starts a long-running process (e.g. the daemon under test) with `environment` + `extraEnvironment`;
    /// stdout/stderr go to files in `logDirectory`. The session terminates it at shutdown.
    public func spawn(_ executable: String, _ arguments: [String],
                      extraEnvironment: [String: String] = [:]) throws -> ManagedProcess {
        let child = try launch(executable, arguments, environment: environment.merging(extraEnvironment) { $1 })
        lock.withLock { children.append(child) }
        return child
    }

    /// Runs a process to completion; after `timeout` its process group is killed and `timedOut` is set.
    public func run(_ executable: String, _ arguments: [String], stdin: Data? = nil, timeout: TimeInterval = 30,
                    extraEnvironment: [String: String] = [:]) throws -> ProcessResult {
        var stdinFile: URL?
        if let stdin {
            let file = nextLogBase(for: executable).appendingPathExtension("stdin")
            try stdin.write(to: file)
            stdinFile = file
        }
        let process = try launch(executable, arguments, environment: environment.merging(extraEnvironment) { $1 },
                                 stdin: stdinFile)
        var status = process.waitForExit(timeout: timeout)
        let timedOut = status == nil
        if timedOut {
            process.terminate(grace: 1)
            status = process.exitStatus
        }
        return ProcessResult(status: status ?? -1, stdout: process.standardOutput,
                             stderr: process.standardError, timedOut: timedOut)
    }

    /// Compiles C `source` into the shared library `library` with the C compiler on PATH (cc, else
    /// the Swift toolchain's clang, which the test command puts on PATH); throws with the
    /// compiler's output if it fails. For shims a test loads into a program (LD_PRELOAD, a stand-in).
    ///
    ///     let shim = try session.compileSharedLibrary("int nothing;", to: directory.appendingPathComponent("libx.so"))
    @discardableResult
    public func compileSharedLibrary(_ source: String, to library: URL, flags: [String] = []) throws -> URL {
        let file = library.deletingPathExtension().appendingPathExtension("c")
        try source.write(to: file, atomically: true, encoding: .utf8)
        let options = (flags + ["-o", library.path, file.path]).map { "'\($0)'" }.joined(separator: " ")
        let result = try run("/bin/sh", ["-c", "\"$(command -v cc || command -v clang)\" -shared -fPIC \(options)"])
        guard result.status == 0 else { throw TestKitError.failed("\(library.lastPathComponent) did not compile: \(result)") }
        return library
    }

    /// Living processes started with this session's environment (children, activated services, their children).
    public func livingProcesses() -> [Int32] {
        ProcessProbe.livingProcesses(withEnvironmentEntry: "\(Self.markerVariable)=\(directory.path)")
    }

    /// Logs of the bus and sound server, to attach to a failure message.
    public var diagnostics: String {
        let bus = lock.withLock { self.bus }
        return "dbus-daemon:\n\(bus?.output ?? "(not running)")\n\(soundServerOutput)"
    }

    /// Output of each sound server process (\(soundServerKind)).
    private var soundServerOutput: String {
        let processes = lock.withLock { soundServerProcesses }
        guard !processes.isEmpty else { return "\(soundServerKind.rawValue): (not running)" }
        return processes.map { "\($0.name)\($0.isRunning ? "" : " (exited)"):\n\($0.output)" }.joined(separator: "\n")
    }

    /// Stops everything the session started, then deletes `directory`. Safe to call more than once.
    public func shutdown() {
        let processes: (clients: [ManagedProcess], infrastructure: [ManagedProcess])? = lock.withLock {
            guard !isShutDown else { return nil }
            isShutDown = true
            let clients = children + recordings.map(\.processForShutdown) + watchers.map(\.processForShutdown)
            return (clients + sinkKeepers, [bus].compactMap { $0 } + soundServerProcesses)
        }
        guard let (clients, infrastructure) = processes else { return }
        // Clients first, while bus and sound server are still there for a graceful exit.
        ManagedProcess.terminateAll(clients, grace: 3)
        let infrastructurePids = Set(infrastructure.map(\.pid))
        terminate(pids: livingProcesses().filter { !infrastructurePids.contains($0) }, grace: 3)
        ManagedProcess.terminateAll(infrastructure, grace: 3)
        terminate(pids: livingProcesses(), grace: 1)

        if ProcessInfo.processInfo.environment["LECTOR_TEST_KEEP_DIRECTORY"] != nil {
            FileHandle.standardError.write(Data("TestSession: kept \(directory.path)\n".utf8))
        } else {
            try? FileManager.default.removeItem(at: directory)
        }
    }

    // MARK: - Helpers

    /// Processes we did not start directly (orphans, activated services): SIGTERM, then SIGKILL after `grace`.
    private func terminate(pids: [Int32], grace: TimeInterval) {
        guard !pids.isEmpty else { return }
        pids.forEach { kill($0, SIGTERM) }
        let deadline = Date(timeIntervalSinceNow: grace)
        while pids.contains(where: ProcessProbe.isAlive) && Date() < deadline { usleep(5_000) }
        pids.filter(ProcessProbe.isAlive).forEach { kill($0, SIGKILL) }
    }

    func launch(_ executable: String, _ arguments: [String], environment: [String: String],
                        stdin: URL? = nil, stdout: ManagedProcess.Output? = nil) throws -> ManagedProcess {
        let url = try ExecutableLocator.locate(executable, searchPath: environment["PATH"])
        let logBase = nextLogBase(for: executable)
        return try ManagedProcess(executable: url, arguments: arguments, environment: environment, stdin: stdin,
                                  stdout: stdout ?? .file(logBase.appendingPathExtension("stdout")),
                                  stderr: logBase.appendingPathExtension("stderr"))
    }

    /// logs/NNN-name, numbered in start order so the logs read like a timeline.
    private func nextLogBase(for executable: String) -> URL {
        let number = lock.withLock {
            logCounter += 1
            return logCounter
        }
        let padded = String(repeating: "0", count: max(0, 3 - String(number).count)) + String(number)
        return logDirectory.appendingPathComponent("\(padded)-\(URL(fileURLWithPath: executable).lastPathComponent)")
    }
}
