import CPulse

/// A `pa_proplist` built from a dictionary, freed when this goes away.
struct Proplist {
    let pointer: OpaquePointer

    init(_ properties: [String: String]) {
        pointer = pa_proplist_new()
        for (key, value) in properties { pa_proplist_sets(pointer, key, value) }
        storage = Storage(pointer)
    }

    private let storage: Storage

    private final class Storage {
        let pointer: OpaquePointer
        init(_ pointer: OpaquePointer) { self.pointer = pointer }
        deinit { pa_proplist_free(pointer) }
    }
}
