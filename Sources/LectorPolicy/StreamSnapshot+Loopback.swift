extension StreamSnapshot {
    /// A loopback's stream (PulseAudio's module-loopback, pipewire's libpipewire-module-loopback,
    /// `pw-loopback`), which forwards a source to a sink rather than playing an application's sound.
    /// See ``DuckPolicy`` for the properties pipewire 0.3.65 sets.
    ///
    /// ```swift
    /// StreamSnapshot(index: 42, device: 36, ownerModule: "module-loopback").isLoopback          // true
    /// StreamSnapshot(index: 48, device: 36, properties: ["node.link-group": "loopback-16259-18"]).isLoopback   // true
    /// ```
    public var isLoopback: Bool {
        if let module = ownerModule, module == "module-loopback" || module == "libpipewire-module-loopback" {
            return true
        }
        if let group = properties["node.link-group"], group.hasPrefix("loopback-") { return true }
        if let node = properties["node.name"], node.hasPrefix("output.loopback-") || node.hasPrefix("input.loopback-") {
            return true
        }
        return false
    }
}
