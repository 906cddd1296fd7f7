import Foundation

/// Configuration of a private PipeWire for one `TestSession`: written into the session directory,
/// so neither the machine's nor the developer's PipeWire/WirePlumber configuration matters, and
/// nothing touches real devices.
///
/// - `pipewire` and `pipewire-pulse` read only `PIPEWIRE_CONFIG_DIR` (it replaces the usual search
///   path). Their configuration is Debian 12's minus every module that reaches outside (rt/rtkit,
///   portal, x11-bell, D-Bus), minus the VM overrides (a container can look like a VM and get
///   1024-sample minimum quanta) and minus `module-always-sink` (a test that removes every sink
///   must really have none).
/// - `wireplumber` (0.4, Lua configuration) gets its own `XDG_CONFIG_HOME`: a `wireplumber.conf`
///   without the bluetooth component, and a `main.lua.d` file that turns off the ALSA, V4L2 and
///   libcamera monitors and the flatpak portal (which needs D-Bus: without it WirePlumber exits).
///   The default and policy scripts still come from /usr/share/wireplumber, so linking, default
///   nodes and restore-stream (saved stream volumes) behave as on a desktop; only restoring a
///   stream's *target* is off, as `restore_device=false` is for PulseAudio's module-stream-restore,
///   so every new stream goes to the default sink.
/// - State (WirePlumber's restore-stream and default-nodes files) goes to the session's
///   `XDG_STATE_HOME`, so it survives `stopSoundServer()`/`startSoundServer()` like on a desktop.
struct PipeWireConfiguration {
    /// `PIPEWIRE_CONFIG_DIR` of pipewire and pipewire-pulse.
    let configDirectory: URL
    /// `XDG_CONFIG_HOME` of wireplumber only.
    let wirePlumberConfigHome: URL
    /// Absolute path of the PulseAudio-protocol socket, e.g. /tmp/lector-test-X/runtime/pulse/native.
    let pulseSocket: String

    init(directory: URL, pulseSocket: String) {
        configDirectory = directory.appendingPathComponent("pipewire", isDirectory: true)
        wirePlumberConfigHome = configDirectory.appendingPathComponent("wireplumber-config-home", isDirectory: true)
        self.pulseSocket = pulseSocket
    }

    func write() throws {
        let wirePlumber = wirePlumberConfigHome.appendingPathComponent("wireplumber", isDirectory: true)
        let mainLua = wirePlumber.appendingPathComponent("main.lua.d", isDirectory: true)
        try FileManager.default.createDirectory(at: mainLua, withIntermediateDirectories: true)
        try pipewire.write(to: configDirectory.appendingPathComponent("pipewire.conf"), atomically: true, encoding: .utf8)
        try pipewirePulse.write(to: configDirectory.appendingPathComponent("pipewire-pulse.conf"),
                                atomically: true, encoding: .utf8)
        try wirePlumberMain.write(to: wirePlumber.appendingPathComponent("wireplumber.conf"),
                                  atomically: true, encoding: .utf8)
        try wirePlumberLua.write(to: mainLua.appendingPathComponent("51-lector-test.lua"),
                                 atomically: true, encoding: .utf8)
    }

    private var pipewire: String {
        """
        # Written by LectorTestKit: a private PipeWire without devices, D-Bus or realtime scheduling.
        context.properties = {
            core.daemon = true
            core.name = pipewire-0
            default.clock.rate = 48000
            default.clock.min-quantum = 16
            support.dbus = false
            mem.allow-mlock = false
            log.level = 2
        }
        context.spa-libs = {
            audio.convert.* = audioconvert/libspa-audioconvert
            support.*       = support/libspa-support
        }
        context.modules = [
            { name = libpipewire-module-protocol-native }
            { name = libpipewire-module-metadata }
            { name = libpipewire-module-spa-device-factory }
            { name = libpipewire-module-spa-node-factory }
            { name = libpipewire-module-client-node }
            { name = libpipewire-module-client-device }
            { name = libpipewire-module-access }
            { name = libpipewire-module-adapter }
            { name = libpipewire-module-link-factory }
            { name = libpipewire-module-session-manager }
        ]
        # Null sinks are not drivers: the dummy driver clocks the graph (as on a machine without a sound card).
        context.objects = [
            { factory = spa-node-factory
                args = {
                    factory.name = support.node.driver
                    node.name = Dummy-Driver
                    node.group = pipewire.dummy
                    priority.driver = 20000
                }
            }
            { factory = spa-node-factory
                args = {
                    factory.name = support.node.driver
                    node.name = Freewheel-Driver
                    priority.driver = 19000
                    node.group = pipewire.freewheel
                    node.freewheel = true
                }
            }
        ]
        """
    }

    private var pipewirePulse: String {
        """
        # Written by LectorTestKit: the PulseAudio protocol on the session's socket, no always-sink.
        context.properties = {
            support.dbus = false
            mem.allow-mlock = false
            log.level = 2
        }
        context.spa-libs = {
            audio.convert.* = audioconvert/libspa-audioconvert
            support.*       = support/libspa-support
        }
        context.modules = [
            { name = libpipewire-module-protocol-native }
            { name = libpipewire-module-client-node }
            { name = libpipewire-module-adapter }
            { name = libpipewire-module-metadata }
            { name = libpipewire-module-protocol-pulse args = { } }
        ]
        pulse.properties = {
            server.address = [ "unix:\(pulseSocket)" ]
        }
        """
    }

    private var wirePlumberMain: String {
        """
        # Written by LectorTestKit: Debian's wireplumber.conf without bluetooth.lua and D-Bus.
        context.properties = {
          log.level = 2
          wireplumber.script-engine = lua-scripting
          support.dbus = false
        }
        context.spa-libs = {
          audio.convert.* = audioconvert/libspa-audioconvert
          support.*       = support/libspa-support
        }
        context.modules = [
          { name = libpipewire-module-protocol-native }
          { name = libpipewire-module-client-node }
          { name = libpipewire-module-client-device }
          { name = libpipewire-module-adapter }
          { name = libpipewire-module-metadata }
          { name = libpipewire-module-session-manager }
        ]
        wireplumber.components = [
          { name = libwireplumber-module-lua-scripting, type = module }
          { name = main.lua, type = config/lua }
          { name = policy.lua, type = config/lua }
        ]
        """
    }

    /// Runs after Debian's 50-*.lua and before 90-enable-all.lua.
    private var wirePlumberLua: String {
        """
        -- Written by LectorTestKit: no real devices, no D-Bus services, no restored stream targets.
        alsa_monitor.enabled = false
        v4l2_monitor.enabled = false
        libcamera_monitor.enabled = false
        default_access.properties["enable-flatpak-portal"] = false
        stream_defaults.properties["restore-target"] = false

        """
    }
}
