/// One value of an `a{sv}` options dictionary, as read off the bus.
///
/// Only the types options may use are kept; anything else is remembered by its signature so the
/// error can say what was sent, e.g. `option "rate" must be a number (d), got a string (s)`.
public enum OptionValue: Equatable, Sendable {
    case string(String)
    case double(Double)
    case integer(Int64)
    case boolean(Bool)
    case other(signature: String)

    /// The D-Bus signature of the value, for error messages.
    public var signature: String {
        switch self {
        case .string: return "s"
        case .double: return "d"
        case .integer: return "x"
        case .boolean: return "b"
        case .other(let signature): return signature
        }
    }
}
