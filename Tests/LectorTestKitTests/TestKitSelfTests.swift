import Foundation
import LectorTestKit
import XCTest

/// Proves the test kit measures what it claims, against real dbus-daemon, PulseAudio and espeak-ng,
/// so integration-test failures can be blamed on the daemon rather than on the harness.
final class TestKitSelfTests: XCTestCase {
    /// Debian's python3 has python3-dbus; a pyenv python3 earlier on PATH may not.
    private let systemPython = "/usr/bin/python3"

    func testRecordingFindsSpeechPlayedIntoTheSink() throws {
        let session = try TestSession()
        defer { session.shutdown() }
        let recording = try session.record()

        let playStarted = Date()
        let play = try session.run("sh", ["-c", "espeak-ng --stdout 'hello world' | paplay"], timeout: 10)
        XCTAssertTrue(play.succeeded, "\(play)")

        let firstSound = try XCTUnwrap(recording.waitForSound(after: playStarted, timeout: 5),
                                       "no sound recorded\n\(session.diagnostics)")
        XCTAssertGreaterThanOrEqual(firstSound.timeIntervalSince(playStarted), 0)
        XCTAssertLessThan(firstSound.timeIntervalSince(playStarted), 2, "sound started implausibly late")
        XCTAssertTrue(recording.waitForSilence(quiet: 0.3, timeout: 5), "sound never stopped")

        let duration = recording.soundDuration(after: playStarted)
        XCTAssertGreaterThan(duration, 0.3)
        XCTAssertLessThan(duration, 3)
        let lastSound = try XCTUnwrap(recording.lastSound(after: playStarted))
        XCTAssertGreaterThan(lastSound.timeIntervalSince(firstSound), 0.3, "hello world lasts longer than that")
        XCTAssertGreaterThan(recording.peakAmplitude(after: playStarted), 1000)
        XCTAssertLessThanOrEqual(recording.startedAt, playStarted)
    }

    func testSilenceIsNotMistakenForSound() throws {
        let session = try TestSession()
        defer { session.shutdown() }
        let recording = try session.record()

        let start = Date()
        let recordedBefore = recording.recordedDuration
        Thread.sleep(forTimeInterval: 0.5)

        XCTAssertGreaterThan(recording.recordedDuration - recordedBefore, 0.4, "the monitor must keep delivering samples")
        XCTAssertNil(recording.firstSound(after: start))
        XCTAssertNil(recording.lastSound(after: start))
        XCTAssertEqual(recording.soundDuration(after: start), 0)
        XCTAssertTrue(recording.waitForSilence(quiet: 0.3, timeout: 1))
    }

    func testSoundServerCanBeStoppedAndRestarted() throws {
        let session = try TestSession(sinks: ["first_sink", "second_sink"])
        defer { session.shutdown() }
        XCTAssertTrue(try session.run("pactl", ["info"]).succeeded)

        session.stopSoundServer()
        let whileStopped = try session.run("pactl", ["info"], timeout: 5)
        XCTAssertFalse(whileStopped.succeeded, "pactl still answered: \(whileStopped)")

        try session.startSoundServer()
        let sinks = try session.run("pactl", ["list", "short", "sinks"])
        XCTAssertTrue(sinks.succeeded, "\(sinks)")
        XCTAssertTrue(sinks.stdout.contains("first_sink") && sinks.stdout.contains("second_sink"), sinks.stdout)
        let defaultSink = try session.run("pactl", ["get-default-sink"])
        XCTAssertEqual(defaultSink.stdout.trimmingCharacters(in: .whitespacesAndNewlines), "first_sink")

        // Recording works against the new server, on a sink other than the default.
        let recording = try session.record(sink: "second_sink")
        let start = Date()
        let beep = try session.run("sh", ["-c", "sox -n -t wav - synth 0.3 sine 440 vol 0.5 | paplay -d second_sink"],
                                   timeout: 10)
        XCTAssertTrue(beep.succeeded, "\(beep)")
        XCTAssertNotNil(recording.waitForSound(after: start, timeout: 3))
    }

    func testSignalWatcherParsesSignalsFromANameOwner() throws {
        try requirePythonDBus()
        let session = try TestSession(startSoundServer: false)
        defer { session.shutdown() }
        let trigger = session.directory.appendingPathComponent("emit-now")
        let script = try writeEmitterScript(in: session, owning: "org.example.Emitter", trigger: trigger)
        let emitter = try session.spawn(systemPython, [script.path])
        try session.waitForBusName("org.example.Emitter", timeout: 5)

        let watcher = try session.watchSignals(from: "org.example.Emitter")
        let triggered = Date()
        _ = FileManager.default.createFile(atPath: trigger.path, contents: nil)

        let finished = try XCTUnwrap(watcher.wait(timeout: 5) { $0.member == "Finished" },
                                     "no Finished signal\n\(watcher.transcript)\n\(emitter.output)")
        XCTAssertEqual(finished.arguments, ["done", "it's, \"quoted\" (x)"])
        XCTAssertEqual(finished.interface, "org.example.Emitter")
        XCTAssertEqual(finished.path, "/org/example/Emitter")
        XCTAssertGreaterThanOrEqual(finished.receivedAt, triggered)

        let ranges = watcher.signals(named: "SpeakingRange")
        XCTAssertEqual(ranges.count, 1, watcher.transcript)
        XCTAssertEqual(ranges.first?.raw, "(uint64 1, uint32 0, uint32 5)")
        XCTAssertEqual(ranges.first?.arguments, ["1", "0", "5"])
        XCTAssertEqual(watcher.signals().map(\.member), ["SpeakingRange", "Finished"], "in emission order")
        XCTAssertNil(watcher.wait(timeout: 0.2) { $0.member == "NeverSent" })
    }

    func testSignalWatcherFollowsANameThatAppearsLater() throws {
        try requirePythonDBus()
        let session = try TestSession(startSoundServer: false)
        defer { session.shutdown() }
        XCTAssertThrowsError(try session.waitForBusName("org.example.Late", timeout: 0.3))

        let watcher = try session.watchSignals(from: "org.example.Late")
        let trigger = session.directory.appendingPathComponent("emit-now")
        let script = try writeEmitterScript(in: session, owning: "org.example.Late", trigger: trigger)
        _ = try session.spawn(systemPython, [script.path])
        XCTAssertTrue(watcher.waitUntilSubscribed(timeout: 5), watcher.transcript)
        XCTAssertTrue(try session.busNameHasOwner("org.example.Late"))
        _ = FileManager.default.createFile(atPath: trigger.path, contents: nil)

        XCTAssertNotNil(watcher.wait(timeout: 5) { $0.member == "Finished" }, watcher.transcript)
        XCTAssertEqual(watcher.signals().count, 2, watcher.transcript)
    }

    func testRunPassesStdinIsolatesTheEnvironmentAndEnforcesTimeouts() throws {
        // A developer's desktop must stay out of reach even when the test runner has one.
        let desktop = EnvironmentOverride(["DISPLAY": ":99", "WAYLAND_DISPLAY": "wayland-99"])
        let session = try { defer { desktop.restore() }; return try TestSession(startSoundServer: false) }()
        defer { session.shutdown() }
        XCTAssertNil(session.environment["DISPLAY"])
        XCTAssertNil(session.environment["WAYLAND_DISPLAY"])

        let echoed = try session.run("cat", [], stdin: Data("fed through stdin".utf8))
        XCTAssertEqual(echoed.stdout, "fed through stdin")
        XCTAssertEqual(echoed.status, 0)

        let failing = try session.run("sh", ["-c", "echo oops >&2; exit 7"])
        XCTAssertEqual(failing.status, 7)
        XCTAssertEqual(failing.stderr, "oops\n")

        let environment = try session.run("sh", ["-c", "echo \"$DBUS_SESSION_BUS_ADDRESS|$HOME|${DISPLAY-unset}|$EXTRA\""],
                                          extraEnvironment: ["EXTRA": "added"])
        XCTAssertEqual(environment.stdout, "\(session.busAddress)|\(session.directory.path)/home|unset|added\n")

        // Children must not inherit the test process's descriptors (pipes of recorders, sockets).
        let descriptors = try session.run("sh", ["-c", "ls /proc/$$/fd"])
        XCTAssertEqual(descriptors.stdout.split(separator: "\n").sorted(), ["0", "1", "2"])

        let started = Date()
        let slow = try session.run("sh", ["-c", "sleep 10 & sleep 10"], timeout: 0.3)
        XCTAssertTrue(slow.timedOut)
        XCTAssertFalse(slow.succeeded)
        XCTAssertLessThan(Date().timeIntervalSince(started), 2, "the timeout must kill the whole group promptly")
        // Killed with its group; under load the kernel may take a moment to finish it.
        let sleeping = {
            session.livingProcesses().filter { pid in
                ((try? String(contentsOfFile: "/proc/\(pid)/cmdline", encoding: .utf8)) ?? "").hasPrefix("sleep")
            }
        }
        XCTAssertTrue(poll(timeout: 2) { sleeping().isEmpty },
                      "the background sleep was in the same process group and must be gone: \(sleeping())")
    }

    func testMonitorLinesWithContainersAndEscapesParse() throws {
        let line = #"/org/x: org.freedesktop.DBus.Properties.PropertiesChanged ('io.x', {'State': <'a, b'>}, @as [])"#
        let signal = try XCTUnwrap(ObservedSignal(monitorLine: line))
        XCTAssertEqual(signal.member, "PropertiesChanged")
        XCTAssertEqual(signal.arguments, ["io.x", "{'State': <'a, b'>}", "[]"])

        let escaped = try XCTUnwrap(ObservedSignal(monitorLine: #"/a: x.Y.Z ('tab\there', byte 0x10, objectpath '/p', true)"#))
        XCTAssertEqual(escaped.arguments, ["tab\there", "16", "/p", "true"])
        XCTAssertEqual(try XCTUnwrap(ObservedSignal(monitorLine: "/a: x.Y.Empty ()")).arguments, [])
        XCTAssertNil(ObservedSignal(monitorLine: "The name x.Y is owned by :1.2"))
    }

    func testShutdownLeavesNoProcessBehind() throws {
        try requirePythonDBus()
        let session = try TestSession()
        let directory = session.directory

        let sleeper = try session.spawn("sleep", ["60"])
        let pidFile = directory.appendingPathComponent("grandchild.pid")
        let shell = try session.spawn("sh", ["-c", "sleep 60 & echo $! > '\(pidFile.path)'; wait"])
        let script = try writeEmitterScript(in: session, owning: "org.example.Activated",
                                            trigger: directory.appendingPathComponent("never"))
        try session.installDBusService(name: "org.example.Activated", executable: systemPython, arguments: [script.path])
        let activation = try session.run("gdbus", ["call", "--session", "--dest", "org.freedesktop.DBus",
                                                   "--object-path", "/org/freedesktop/DBus",
                                                   "--method", "org.freedesktop.DBus.StartServiceByName",
                                                   "org.example.Activated", "0"], timeout: 10)
        XCTAssertTrue(activation.succeeded, "\(activation)\n\(session.diagnostics)")
        let activatedPid = try pidOwning("org.example.Activated", in: session)
        let recording = try session.record()
        let watcher = try session.watchSignals(from: "org.example.Activated")
        _ = (recording, watcher)

        let grandchildPid = try XCTUnwrap(waitForPidFile(pidFile))
        let tracked = [sleeper.pid, shell.pid, grandchildPid, activatedPid]
        let everything = session.livingProcesses()
        XCTAssertTrue(Set(tracked).isSubset(of: everything), "\(tracked) not all in \(everything)")
        XCTAssertGreaterThanOrEqual(everything.count, tracked.count + 4, "bus, sound server, parec, gdbus monitor")

        let started = Date()
        session.shutdown()
        XCTAssertLessThan(Date().timeIntervalSince(started), 5, "shutdown should not wait out grace periods")

        let survivors = everything.filter(isRunningAccordingToProc)
        XCTAssertEqual(survivors, [], "processes survived shutdown")
        XCTAssertFalse(FileManager.default.fileExists(atPath: directory.path))
        session.shutdown()  // idempotent
    }

    // MARK: - Sound server kinds and audio-policy helpers (run on whichever LECTOR_TEST_SOUND_SERVER names)

    func testTheSessionRunsTheChosenSoundServer() throws {
        let session = try TestSession(sinks: ["first_sink", "second_sink"])
        defer { session.shutdown() }
        XCTAssertEqual(session.soundServerKind, try SoundServerKind.fromEnvironment())
        let info = try session.pactl(["info"])
        let serverName = info.split(separator: "\n").first { $0.hasPrefix("Server Name:") }.map(String.init) ?? info
        switch session.soundServerKind {
        case .pulseaudio:
            XCTAssertEqual(serverName, "Server Name: pulseaudio")
        case .pipewire:
            XCTAssertTrue(serverName.contains("PipeWire"), serverName)
            let commands = session.livingProcesses().compactMap {
                try? String(contentsOfFile: "/proc/\($0)/comm", encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
            }
            for name in ["pipewire", "wireplumber", "pipewire-pulse"] {
                XCTAssertTrue(commands.contains(name), "\(name) not among the session's processes \(commands)")
            }
        }
        XCTAssertEqual(try session.pactl(["get-default-sink"]).trimmingCharacters(in: .whitespacesAndNewlines), "first_sink")
        XCTAssertEqual(try session.sinkInfos().map(\.name).sorted(), ["first_sink", "second_sink"],
                       "only the session's null sinks, no always-sink, no real device")
        XCTAssertThrowsError(try session.pactl(["no-such-command"])) { error in
            XCTAssertTrue("\(error)".contains("no-such-command"), "\(error)")
        }
        XCTAssertThrowsError(try SoundServerKind.fromEnvironment(["LECTOR_TEST_SOUND_SERVER": "jack"]))
        XCTAssertEqual(try SoundServerKind.fromEnvironment([:]), .pulseaudio)
        XCTAssertEqual(try SoundServerKind.fromEnvironment(["LECTOR_TEST_SOUND_SERVER": "PipeWire"]), .pipewire)
    }

    func testNullSinksWithPropertiesAreVisibleThroughLibpulseAndUnload() throws {
        let session = try TestSession()
        defer { session.shutdown() }
        let module = try session.loadNullSink(name: "headset", properties: [
            "device.form_factor": "headphone", "device.bus": "bluetooth", "device.description": "Blue headset",
        ], channels: 2)
        let sink = try XCTUnwrap(try session.sinkInfos().first { $0.name == "headset" })
        XCTAssertEqual(sink.properties["device.form_factor"], "headphone")
        XCTAssertEqual(sink.properties["device.bus"], "bluetooth")
        XCTAssertEqual(sink.description, "Blue headset")
        XCTAssertEqual(sink.volume, [65536, 65536])
        XCTAssertEqual(sink.channelMap, ["front-left", "front-right"])
        XCTAssertFalse(sink.muted)
        XCTAssertEqual(sink.ownerModule, module)

        // What libpulse's sink info carries, independent of the kit's JSON parsing.
        let listing = try session.pactl(["list", "sinks"])
        let section = try XCTUnwrap(listing.components(separatedBy: "\nSink #").first { $0.contains("Name: headset\n") })
        XCTAssertTrue(section.contains("device.form_factor = \"headphone\""), section)
        XCTAssertTrue(section.contains("device.bus = \"bluetooth\""), section)

        try session.pactl(["set-sink-volume", "headset", "50%", "25%"])
        try session.pactl(["set-sink-mute", "headset", "1"])
        let changed = try XCTUnwrap(try session.sinkInfos().first { $0.name == "headset" })
        XCTAssertEqual(changed.volume, [32768, 16384], "in channel-map order: left, right")
        XCTAssertTrue(changed.muted)

        try session.unloadModule(module)
        XCTAssertFalse(try session.sinkInfos().contains { $0.name == "headset" })
        XCTAssertThrowsError(try session.unloadModule(module), "unloading twice must fail")
        XCTAssertThrowsError(try session.loadNullSink(name: "bad", properties: ["device.description": "it's"]))
    }

    func testOtherApplicationsStreamsAreListedWithRoleSinkAndVolume() throws {
        let session = try TestSession(sinks: ["first_sink", "second_sink"])
        defer { session.shutdown() }
        let music = try session.startPlayback(role: "music", sink: "second_sink", name: "other-music")
        let silent = try session.startPlayback(role: nil, name: "silent-app", tone: false)

        let stream = try XCTUnwrap(try session.playbackStreams(named: "other-music").first)
        XCTAssertEqual(stream.role, "music")
        XCTAssertEqual(stream.mediaName, "other-music")
        XCTAssertEqual(stream.sinkName, "second_sink")
        XCTAssertEqual(stream.sinkIndex, try session.sinkInfos().first { $0.name == "second_sink" }?.index)
        XCTAssertEqual(stream.volume, [65536])
        XCTAssertFalse(stream.muted)
        XCTAssertFalse(stream.corked)
        let quiet = try XCTUnwrap(try session.playbackStreams(named: "silent-app").first)
        XCTAssertNil(quiet.role)
        XCTAssertEqual(quiet.sinkName, "first_sink", "no sink given: the default sink")

        try session.pactl(["set-sink-input-volume", String(stream.index), "30%"])
        try session.pactl(["set-sink-input-mute", String(stream.index), "1"])
        let changed = try XCTUnwrap(try session.playbackStreams(named: "other-music").first)
        XCTAssertEqual(Double(try XCTUnwrap(changed.volume.first)), 19661, accuracy: 2, "30 %")
        XCTAssertTrue(changed.muted)
        try session.pactl(["set-sink-input-mute", String(stream.index), "0"])
        try session.pactl(["set-sink-input-volume", String(stream.index), "100%"])

        // The tone is really played (on its sink only), the silent stream is silent.
        let second = try session.record(sink: "second_sink")
        let first = try session.record(sink: "first_sink")
        let start = Date()
        XCTAssertNotNil(second.waitForSound(after: start, timeout: 3), "the tone was not heard\n\(session.diagnostics)")
        Thread.sleep(forTimeInterval: 0.3)
        // PipeWire resamples (22050 -> 48000 -> 22050 Hz): the tone's onset rings up to ~12 % above it.
        XCTAssertEqual(Double(second.peakAmplitude(after: start)), 0.3 * 32767, accuracy: 2000, "sox's vol 0.3 at 100 %")
        XCTAssertNil(first.firstSound(after: start), "the default sink has only the silent stream")

        // Moved (the helper waits until it is listed there), and the default sink changed.
        try session.moveStream(stream.index, to: "first_sink")
        XCTAssertEqual(try session.playbackStreams(named: "other-music").first?.sinkName, "first_sink")
        try session.setDefaultSink("second_sink")
        XCTAssertEqual(try session.pactl(["get-default-sink"]).trimmingCharacters(in: .whitespacesAndNewlines), "second_sink")
        XCTAssertThrowsError(try session.moveStream(stream.index, to: "no_such_sink", timeout: 0.5))

        music.terminate()
        silent.terminate()
        XCTAssertTrue(try session.playbackStreams().filter { ["other-music", "silent-app"].contains($0.applicationName) }.isEmpty)
    }

    func testACallIsARecordingStreamWithRolePhone() throws {
        let session = try TestSession()
        defer { session.shutdown() }
        let call = try session.startCapture(name: "softphone")
        let stream = try XCTUnwrap(try session.captureStreams().first { $0.applicationName == "softphone" })
        XCTAssertEqual(stream.role, "phone")
        XCTAssertEqual(stream.sourceName, "lector_test.monitor", "the default source is the default sink's monitor")
        XCTAssertTrue(call.isRunning)
        call.terminate()
        XCTAssertFalse(try session.captureStreams().contains { $0.applicationName == "softphone" })
    }

    func testSavedStreamVolumesAreReadWrittenAndRestored() throws {
        let session = try TestSession()
        defer { session.shutdown() }
        XCTAssertEqual(try session.savedStreamVolumes()["sink-input-by-media-role:music"], nil, "a fresh session saved nothing")

        // A user sets another app's volume: the server saves it by role and a new stream of that role gets it.
        let first = try session.startPlayback(role: "music", name: "player-one")
        let stream = try XCTUnwrap(try session.playbackStreams(named: "player-one").first)
        try session.pactl(["set-sink-input-volume", String(stream.index), "30%"])
        switch session.soundServerKind {
        case .pulseaudio:
            let entries = try session.savedStreamEntries()
            let saved = try XCTUnwrap(entries.first { $0.name == "sink-input-by-media-role:music" }?.volume, "\(entries)")
            XCTAssertEqual(Double(try XCTUnwrap(saved.first)), 19661, accuracy: 2)
        case .pipewire:
            // WirePlumber saves it in its own state (after 1 s); pipewire-pulse's stream-restore
            // extension only lists what clients wrote through it.
            XCTAssertTrue(poll(timeout: 5) {
                session.wirePlumberRestoreStreamState()["Output/Audio:media.role:Music:channelVolumes"] != nil
            }, "\(session.wirePlumberRestoreStreamState())")
            let cubic = try XCTUnwrap(session.wirePlumberRestoreStreamState()["Output/Audio:media.role:Music:channelVolumes"]
                .flatMap { Double($0.split(separator: ";").first ?? "") })
            XCTAssertEqual(cubic, 0.027, accuracy: 0.001, "30 % is 0.3³ in PipeWire's linear volume")
            XCTAssertNil(try session.savedStreamVolumes()["sink-input-by-media-role:music"])
        }
        first.terminate()
        let second = try session.startPlayback(role: "music", name: "player-two")
        let restored = try XCTUnwrap(try session.playbackStreams(named: "player-two").first)
        XCTAssertEqual(Double(try XCTUnwrap(restored.volume.first)), 19661, accuracy: 2, "the saved volume was not restored")
        second.terminate()

        // A crashed ducker's leftover, written through the extension: listed, and restored on both servers.
        try session.saveStreamEntry(name: "sink-input-by-media-role:music", volume: [13107])
        try session.saveStreamEntry(name: "sink-input-by-media-role:announce", volume: [6554, 6554], muted: true)
        let entries = try session.savedStreamEntries()
        XCTAssertEqual(entries.first { $0.name == "sink-input-by-media-role:music" }?.volume, [13107], "\(entries)")
        let announce = try XCTUnwrap(entries.first { $0.name == "sink-input-by-media-role:announce" }, "\(entries)")
        XCTAssertEqual(announce.volume, [6554, 6554])
        XCTAssertTrue(announce.muted)
        // WirePlumber takes the written entry into its state asynchronously.
        var third: PlaybackStreamInfo?
        XCTAssertTrue(try poll(timeout: 3) {
            let player = try session.startPlayback(role: "music", name: "player-three")
            defer { player.terminate() }
            third = try session.playbackStreams(named: "player-three").first
            return third?.volume.first.map { abs(Int($0) - 13107) <= 2 } ?? false
        }, "a new music stream starts at \(String(describing: third?.volume)), not at the saved 20 %")

        // The probe fails clearly without a server.
        session.stopSoundServer()
        XCTAssertThrowsError(try session.savedStreamEntries()) { error in
            XCTAssertTrue("\(error)".contains("cannot connect to the sound server"), "\(error)")
        }
    }

    func testSavedStreamVolumesSurviveARestartOfTheServer() throws {
        let session = try TestSession()
        defer { session.shutdown() }
        try session.saveStreamEntry(name: "sink-input-by-media-role:music", volume: [16384])
        // WirePlumber writes its state file 1 s after the last change.
        if session.soundServerKind == .pipewire {
            XCTAssertTrue(poll(timeout: 5) {
                session.wirePlumberRestoreStreamState()["Output/Audio:media.role:Music:channelVolumes"] != nil
            })
        }
        session.stopSoundServer()
        try session.startSoundServer()
        let player = try session.startPlayback(role: "music", name: "after-restart")
        let stream = try XCTUnwrap(try session.playbackStreams(named: "after-restart").first)
        XCTAssertEqual(Double(try XCTUnwrap(stream.volume.first)), 16384, accuracy: 2)
        player.terminate()
    }

    func testWithoutTheStreamRestoreExtensionTheProbeSaysSo() throws {
        let session = try TestSession()
        defer { session.shutdown() }
        guard session.soundServerKind == .pulseaudio else {
            // pipewire-pulse always offers the extension (and has no module to unload).
            XCTAssertNoThrow(try session.savedStreamEntries(), "pipewire-pulse does not offer stream-restore")
            return
        }
        let modules = try session.pactl(["list", "short", "modules"])
        let module = try XCTUnwrap(modules.split(separator: "\n").first { $0.contains("module-stream-restore") }?
            .split(separator: "\t").first.flatMap { UInt32($0) }, modules)
        try session.unloadModule(module)
        XCTAssertThrowsError(try session.savedStreamEntries()) { error in
            XCTAssertTrue("\(error)".contains("does not offer the stream-restore extension"), "\(error)")
        }
    }

    // MARK: - Helpers

    private func requirePythonDBus() throws {
        let probe = Process()
        probe.executableURL = URL(fileURLWithPath: systemPython)
        probe.arguments = ["-c", "import dbus"]
        probe.standardError = FileHandle.nullDevice
        // scripts/install-deps --test installs python3-dbus: without it this is a failure, not a skip.
        guard (try? probe.run()) != nil else { throw TestKitError.failed("\(systemPython) missing (scripts/install-deps --test)") }
        probe.waitUntilExit()
        if probe.terminationStatus != 0 { throw TestKitError.failed("python3-dbus not installed (scripts/install-deps --test)") }
    }

    /// A name owner that emits two signals once `trigger` exists, then idles until killed.
    private func writeEmitterScript(in session: TestSession, owning name: String, trigger: URL) throws -> URL {
        let script = session.directory.appendingPathComponent("\(name).py")
        try """
        import dbus, dbus.lowlevel, os, time
        bus = dbus.SessionBus()
        assert bus.request_name("\(name)") == dbus.bus.REQUEST_NAME_REPLY_PRIMARY_OWNER
        while not os.path.exists("\(trigger.path)"):
            time.sleep(0.01)
        path = "/" + "\(name)".replace(".", "/")
        message = dbus.lowlevel.SignalMessage(path, "\(name)", "SpeakingRange")
        message.append(dbus.UInt64(1), dbus.UInt32(0), dbus.UInt32(5), signature="tuu")
        bus.send_message(message)
        message = dbus.lowlevel.SignalMessage(path, "\(name)", "Finished")
        message.append("done", 'it\\'s, "quoted" (x)', signature="ss")
        bus.send_message(message)
        bus.flush()
        time.sleep(60)
        """.write(to: script, atomically: true, encoding: .utf8)
        return script
    }

    private func pidOwning(_ name: String, in session: TestSession) throws -> Int32 {
        let result = try session.run("gdbus", ["call", "--session", "--dest", "org.freedesktop.DBus",
                                               "--object-path", "/org/freedesktop/DBus",
                                               "--method", "org.freedesktop.DBus.GetConnectionUnixProcessID", name])
        // "(uint32 1234,)"
        let digits = result.stdout.split(whereSeparator: { !$0.isNumber }).last.map(String.init)
        return try XCTUnwrap(digits.flatMap { Int32($0) }, "\(result)")
    }

    private func waitForPidFile(_ file: URL) -> Int32? {
        let deadline = Date(timeIntervalSinceNow: 5)
        while Date() < deadline {
            if let text = try? String(contentsOf: file, encoding: .utf8),
               let pid = Int32(text.trimmingCharacters(in: .whitespacesAndNewlines)) {
                return pid
            }
            usleep(10_000)
        }
        return nil
    }

    /// Independent of the kit: a pid is running if /proc has it in a state other than zombie/dead.
    private func isRunningAccordingToProc(_ pid: Int32) -> Bool {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8) else { return false }
        let afterName = stat.split(separator: ")").last ?? ""
        let state = afterName.split(separator: " ").first ?? ""
        return state != "Z" && state != "X"
    }
}
