/// Lector's settings from `$XDG_CONFIG_HOME/lector/config.toml` (being written; see issue 6).
public struct Configuration: Equatable, Sendable {
    public init() {}
}
