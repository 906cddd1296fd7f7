import CBusVtable
import Glibc
import CSystemd
import LectorCore
import LectorLoop

/// One interface at one object path, declared member by member as an sd-bus vtable is, with
/// one handler per member: parse, act, reply. Errors a handler throws reach the caller under
/// their own name (`MethodReply.named`).
///
/// Handlers get the target (held weakly: the object never keeps its owner alive) and the call:
///
/// ```swift
/// let player = BusObject(path: "/org/mpris/MediaPlayer2", interface: "org.mpris.MediaPlayer2.Player",
///                        target: narrator, members: [
///     .method("Seek", in: "x", ["Offset"]) { narrator, call in narrator.seek(by: try call.reader.readInt64()); return .done },
///     .property("PlaybackStatus", "s", .change) { narrator, reply in try reply.append(narrator.state.status.rawValue) },
///     .signal("Seeked", "x", ["Position"]),
/// ])
/// try bus.add(player)
/// ```
///
/// A property's value and its PropertiesChanged come from the same getter: sd-bus fetches the
/// values of a change signal through the vtable, so nothing can announce a value the getter
/// would not return.
@MainActor
public final class BusObject {
    public let path: String
    public let interface: String
    private let members: [ErasedMember]
    /// One pointer per member to its retained box; sd-bus hands `&slots[i]` to member i's handler.
    private var slots: UnsafeMutablePointer<UnsafeMutableRawPointer?>?
    private var vtable: UnsafeMutablePointer<sd_bus_vtable>?
    /// The C strings the vtable points at (sd-bus keeps the pointers, never copies).
    private var strings: [UnsafeMutablePointer<CChar>] = []
    private var registration: OpaquePointer?

    public init<Target: AnyObject>(path: String, interface: String, target: Target, members: [BusMember<Target>]) {
        self.path = path
        self.interface = interface
        self.members = members.map { $0.erased(target: target) }
    }

    isolated deinit { close() }

    /// Serves the members on `bus` until `close()`.
    func register(on bus: Bus) throws {
        precondition(vtable == nil, "\(interface) at \(path) is registered already")
        let slots = UnsafeMutablePointer<UnsafeMutableRawPointer?>.allocate(capacity: max(1, members.count))
        for (index, member) in members.enumerated() {
            slots[index] = Unmanaged.passRetained(MemberBox(member, bus: bus)).toOpaque()
        }
        self.slots = slots
        var entries: [lector_member] = []
        for (index, member) in members.enumerated() {
            let shape = member.shape
            entries.append(lector_member(kind: shape.kind, name: copy(shape.name), signature: copy(shape.signature),
                                         result: shape.result.map(copy), names: copy(names: shape.names),
                                         flags: shape.flags, slot: index))
        }
        guard let vtable = lector_vtable_new(entries, entries.count, Self.methodHandler, Self.getHandler, Self.setHandler) else {
            throw SystemError(errno: 12, "building the vtable of \(interface)")
        }
        self.vtable = vtable
        var slot: OpaquePointer?
        let r = sd_bus_add_object_vtable(bus.pointer, &slot, path, interface, vtable, UnsafeMutableRawPointer(slots))
        guard r >= 0, let slot else { throw SystemError(errno: -r, "registering \(interface) at \(path)") }
        registration = slot
    }

    /// Withdraws the object from the bus first (no handler runs after that), then frees the
    /// vtable, its strings and the handlers. Idempotent.
    public func close() {
        if let registration { sd_bus_slot_unref(registration) }
        registration = nil
        if let vtable { lector_vtable_free(vtable) }
        vtable = nil
        if let slots {
            for index in members.indices { slots[index].map { Unmanaged<MemberBox>.fromOpaque($0).release() } }
            slots.deallocate()
        }
        slots = nil
        strings.forEach { free($0) }
        strings = []
    }

    private func copy(_ text: String) -> UnsafePointer<CChar> {
        let pointer = strdup(text)!
        strings.append(pointer)
        return UnsafePointer(pointer)
    }

    /// "a\0b\0": each name ended by a NUL, as `SD_BUS_PARAM()` writes them.
    private func copy(names: [String]) -> UnsafePointer<CChar> {
        let bytes: [CChar] = names.flatMap { Array($0.utf8CString) } + [0]
        // malloc'ed like strdup's copies, so one free() fits all.
        let pointer = malloc(bytes.count)!.assumingMemoryBound(to: CChar.self)
        bytes.withUnsafeBufferPointer { pointer.initialize(from: $0.baseAddress!, count: bytes.count) }
        strings.append(pointer)
        return UnsafePointer(pointer)
    }

    // MARK: - the three handlers sd-bus calls; each finds its member's box through userdata

    private static func box(_ userdata: UnsafeMutableRawPointer?) -> MemberBox {
        let slot = userdata!.assumingMemoryBound(to: UnsafeMutableRawPointer?.self).pointee!
        return Unmanaged<MemberBox>.fromOpaque(slot).takeUnretainedValue()
    }

    private static let methodHandler: sd_bus_message_handler_t = { message, userdata, error in
        onLoopThread((message, userdata, error)) { message, userdata, error in
            box(userdata).call(message!, error)
        }
    }

    private static let getHandler: sd_bus_property_get_t = { _, _, _, _, reply, userdata, error in
        onLoopThread((reply, userdata, error)) { reply, userdata, error in
            box(userdata).get(reply!, error)
        }
    }

    private static let setHandler: sd_bus_property_set_t = { _, _, _, _, value, userdata, error in
        onLoopThread((value, userdata, error)) { value, userdata, error in
            box(userdata).set(value!, error)
        }
    }
}

/// A member of a `BusObject`: a method, a signal or a property, with its handler.
public struct BusMember<Target: AnyObject> {
    public enum Emits {
        /// Never changes (`const` in introspection).
        case constant
        /// PropertiesChanged carries the new value.
        case change
        /// PropertiesChanged names it; clients fetch the value (e.g. a long list).
        case invalidation
        /// Never announced: clients ask (MPRIS Position, which they extrapolate).
        case never
    }

    public typealias Method = @MainActor (Target, MethodCall) throws -> MethodResult
    public typealias Getter = @MainActor (Target, MessageWriter) throws -> Void
    public typealias Setter = @MainActor (Target, MessageReader) throws -> Void

    let shape: MemberShape
    let method: Method?
    let getter: Getter?
    let setter: Setter?

    /// Anyone on the session bus may call it (the session is the user's own).
    public static func method(_ name: String, in signature: String = "", _ inNames: [String] = [],
                              out result: String = "", _ outNames: [String] = [],
                              _ handler: @escaping Method) -> BusMember {
        BusMember(shape: MemberShape(name: name, kind: LECTOR_MEMBER_METHOD, signature: signature, result: result,
                                     names: inNames + outNames, flags: LECTOR_VTABLE_UNPRIVILEGED),
                  method: handler, getter: nil, setter: nil)
    }

    public static func signal(_ name: String, _ signature: String, _ names: [String]) -> BusMember {
        BusMember(shape: MemberShape(name: name, kind: LECTOR_MEMBER_SIGNAL, signature: signature, result: nil,
                                     names: names, flags: 0),
                  method: nil, getter: nil, setter: nil)
    }

    /// Writable (by anyone) when `set` is given.
    public static func property(_ name: String, _ type: String, _ emits: Emits,
                                get: @escaping Getter, set: Setter? = nil) -> BusMember {
        var flags: UInt64
        switch emits {
        case .constant: flags = LECTOR_PROPERTY_CONST
        case .change: flags = LECTOR_PROPERTY_EMITS_CHANGE
        case .invalidation: flags = LECTOR_PROPERTY_EMITS_INVALIDATION
        case .never: flags = 0
        }
        if set != nil { flags |= LECTOR_VTABLE_UNPRIVILEGED }
        return BusMember(shape: MemberShape(name: name, kind: set == nil ? LECTOR_MEMBER_PROPERTY : LECTOR_MEMBER_WRITABLE_PROPERTY,
                                            signature: type, result: nil, names: [], flags: flags),
                         method: nil, getter: get, setter: set)
    }

    @MainActor
    func erased(target: Target) -> ErasedMember {
        let held = WeakTarget(target)
        var boundMethod: (@MainActor (MethodCall) throws -> MethodResult)?
        var boundGetter: (@MainActor (MessageWriter) throws -> Void)?
        var boundSetter: (@MainActor (MessageReader) throws -> Void)?
        if let method {
            boundMethod = { call in try method(try held.get(), call) }
        }
        if let getter {
            boundGetter = { writer in try getter(try held.get(), writer) }
        }
        if let setter {
            boundSetter = { reader in try setter(try held.get(), reader) }
        }
        return ErasedMember(shape: shape, method: boundMethod, getter: boundGetter, setter: boundSetter)
    }
}

/// The target of an object's handlers, held weakly: a bus object never keeps its owner alive.
@MainActor
private final class WeakTarget<Target: AnyObject> {
    weak var target: Target?
    init(_ target: Target) { self.target = target }

    func get() throws -> Target {
        guard let target else { throw LectorError(.failed, "the daemon is shutting down") }
        return target
    }
}

/// What a vtable entry says of a member: kind, name, signatures, argument names, flags.
struct MemberShape {
    let name: String
    let kind: lector_member_kind
    let signature: String
    let result: String?
    let names: [String]
    let flags: UInt64
}

/// A member with its target bound (weakly).
struct ErasedMember {
    let shape: MemberShape
    let method: (@MainActor (MethodCall) throws -> MethodResult)?
    let getter: (@MainActor (MessageWriter) throws -> Void)?
    let setter: (@MainActor (MessageReader) throws -> Void)?
}

/// A method call as its handler sees it.
@MainActor
public struct MethodCall {
    let message: OpaquePointer
    /// The arguments, in order.
    public let reader: MessageReader
    /// The caller's unique bus name.
    public var sender: String { reader.sender }

    /// Whose held signals go out before a reply sent from inside the handler.
    private weak var bus: Bus?

    init(_ message: OpaquePointer, bus: Bus?) {
        self.message = message
        self.bus = bus
        reader = MessageReader(message, longestString: MessageReader.longestArgument)
    }

    /// Answer later (return `.answered`): the reply holds the call until it is sent.
    public func deferReply() -> DeferredReply { DeferredReply(message, bus: bus) }

    /// Answer now, before the handler goes on (return `.answered`): e.g. an id the caller must
    /// know before the signals about it. Signals the handler emitted before this go first.
    public func reply(_ build: (MessageWriter) throws -> Void) {
        bus?.sendHeld()
        _ = MethodReply.send(to: message, build)
    }
}

/// What a method handler answers.
public enum MethodResult {
    /// An empty reply.
    case done
    /// A reply with the values `build` appends (within the message budget).
    case values((MessageWriter) throws -> Void)
    /// The handler answered already (`MethodCall.reply`) or keeps a `DeferredReply`.
    case answered
}

/// A member's handler, retained by its object for as long as the vtable is registered.
@MainActor
private final class MemberBox {
    let member: ErasedMember
    /// Weak: the bus owns the object that owns this box.
    private weak var bus: Bus?
    init(_ member: ErasedMember, bus: Bus) {
        self.member = member
        self.bus = bus
    }

    func call(_ message: OpaquePointer, _ busError: UnsafeMutablePointer<sd_bus_error>?) -> Int32 {
        let call = MethodCall(message, bus: bus)
        let run = { Result { try self.member.method!(call) } }
        let result = bus?.answering(run) ?? run()
        do {
            switch try result.get() {
            case .done: return MethodReply.send(to: message)
            case .values(let build): return MethodReply.send(to: message, build)
            case .answered: return 1
            }
        } catch {
            return MethodReply.fail(error, into: busError)
        }
    }

    func get(_ reply: OpaquePointer, _ busError: UnsafeMutablePointer<sd_bus_error>?) -> Int32 {
        Self.answer(busError) { try member.getter!(MessageWriter(reply)) }
    }

    /// Held like a method's signals: a new Volume rewritten on the stream leaves first.
    func set(_ value: OpaquePointer, _ busError: UnsafeMutablePointer<sd_bus_error>?) -> Int32 {
        let set = { Self.answer(busError) { try self.member.setter!(MessageReader(value, longestString: MessageReader.longestArgument)) } }
        return bus?.answering(set) ?? set()
    }

    /// 1 when `body` succeeds, else its error under its own name.
    private static func answer(_ busError: UnsafeMutablePointer<sd_bus_error>?, _ body: () throws -> Void) -> Int32 {
        do {
            try body()
            return 1
        } catch {
            return MethodReply.fail(error, into: busError)
        }
    }
}
