/// Where Lector lives on the session bus.
public enum BusNames {
    public static let service = "io.github.lector.Lector1"
    public static let objectPath = "/io/github/lector/Lector1"
    public static let interface = "io.github.lector.Lector1"
    public static let version = "0.1.0"
}
