import Glibc

/// A failed system or library call, with its errno text: `sd_bus_open_user: No such file or directory`.
public struct SystemError: Error, CustomStringConvertible {
    public let errno: Int32
    public let call: String

    public init(errno: Int32, _ call: String) {
        self.errno = errno
        self.call = call
    }

    public var description: String { "\(call): \(String(cString: strerror(errno)))" }
}
