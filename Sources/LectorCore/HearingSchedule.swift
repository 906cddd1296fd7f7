/// Things to announce when the listener *hears* a given frame, not when it was synthesized.
///
/// The audio path writes frames to the sound server well ahead of the speaker; each event is
/// filed under the stream frame it belongs to, and released once playback has reached it:
///
/// ```swift
/// var schedule = HearingSchedule<String>()
/// schedule.add("word 2", at: 8_000)
/// schedule.due(heard: 7_999)   // []
/// schedule.due(heard: 8_000)   // ["word 2"]
/// ```
public struct HearingSchedule<Event> {
    private var entries: [(frame: Int64, event: Event)] = []
    private var head = 0

    public init() {}

    public var isEmpty: Bool { head == entries.count }

    /// The frame of the earliest pending event.
    public var nextFrame: Int64? { isEmpty ? nil : entries[head].frame }

    /// Events arrive in frame order from one synthesizer; an out-of-order one is placed where it belongs.
    public mutating func add(_ event: Event, at frame: Int64) {
        if let last = entries.last, last.frame > frame, head < entries.count {
            let index = entries[head...].firstIndex(where: { $0.frame > frame }) ?? entries.count
            entries.insert((frame, event), at: index)
        } else {
            entries.append((frame, event))
        }
    }

    /// Removes and returns, in order, every event at or before `heard`.
    public mutating func due(heard: Int64) -> [Event] {
        var result: [Event] = []
        while head < entries.count, entries[head].frame <= heard {
            result.append(entries[head].event)
            head += 1
        }
        compact()
        return result
    }

    /// Drops pending events for which `shouldDrop` is true (e.g. a cancelled speech's words).
    public mutating func removeAll(where shouldDrop: (Event) -> Bool) {
        entries = entries[head...].filter { !shouldDrop($0.event) }
        head = 0
    }

    /// Drops pending events at or after `frame` (audio from there on was discarded).
    public mutating func removeAll(fromFrame frame: Int64) {
        entries = entries[head...].filter { $0.frame < frame }
        head = 0
    }

    private mutating func compact() {
        if head > 64, head * 2 > entries.count {
            entries.removeFirst(head)
            head = 0
        }
    }
}
