/* MPRIS 2.2 vtables, declared with the real SD_BUS_* macros (the spec's XML, transcribed).
 * Position is not EMITS_CHANGE: the spec says clients extrapolate it and Seeked marks jumps. */
#include "CLectorShim.h"

#define COPY(storage, v) do { \
        _Static_assert(sizeof v <= sizeof storage, "vtable storage too small"); \
        for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) storage[i] = v[i]; \
    } while (0)

#define CHANGE SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE
#define CONST SD_BUS_VTABLE_PROPERTY_CONST
#define ANYONE SD_BUS_VTABLE_UNPRIVILEGED

const sd_bus_vtable *lector_mpris_root_vtable(const lector_dispatch_handlers *h) {
    static sd_bus_vtable storage[16];
    const sd_bus_vtable v[] = {
        SD_BUS_VTABLE_START(0),
        SD_BUS_METHOD("Raise", "", "", h->method, ANYONE),
        SD_BUS_METHOD("Quit", "", "", h->method, ANYONE),
        SD_BUS_PROPERTY("CanQuit", "b", h->get, 0, CONST),
        SD_BUS_PROPERTY("CanRaise", "b", h->get, 0, CONST),
        SD_BUS_PROPERTY("HasTrackList", "b", h->get, 0, CONST),
        SD_BUS_PROPERTY("Identity", "s", h->get, 0, CONST),
        SD_BUS_PROPERTY("DesktopEntry", "s", h->get, 0, CONST),
        SD_BUS_PROPERTY("SupportedUriSchemes", "as", h->get, 0, CONST),
        SD_BUS_PROPERTY("SupportedMimeTypes", "as", h->get, 0, CONST),
        SD_BUS_VTABLE_END,
    };
    COPY(storage, v);
    return storage;
}

const sd_bus_vtable *lector_mpris_player_vtable(const lector_dispatch_handlers *h) {
    static sd_bus_vtable storage[40];
    const sd_bus_vtable v[] = {
        SD_BUS_VTABLE_START(0),
        SD_BUS_METHOD("Next", "", "", h->method, ANYONE),
        SD_BUS_METHOD("Previous", "", "", h->method, ANYONE),
        SD_BUS_METHOD("Pause", "", "", h->method, ANYONE),
        SD_BUS_METHOD("PlayPause", "", "", h->method, ANYONE),
        SD_BUS_METHOD("Stop", "", "", h->method, ANYONE),
        SD_BUS_METHOD("Play", "", "", h->method, ANYONE),
        SD_BUS_METHOD_WITH_NAMES("Seek", "x", SD_BUS_PARAM(Offset), "", , h->method, ANYONE),
        SD_BUS_METHOD_WITH_NAMES("SetPosition", "ox", SD_BUS_PARAM(TrackId) SD_BUS_PARAM(Position),
                                 "", , h->method, ANYONE),
        SD_BUS_METHOD_WITH_NAMES("OpenUri", "s", SD_BUS_PARAM(Uri), "", , h->method, ANYONE),
        SD_BUS_SIGNAL_WITH_NAMES("Seeked", "x", SD_BUS_PARAM(Position), 0),
        SD_BUS_PROPERTY("PlaybackStatus", "s", h->get, 0, CHANGE),
        SD_BUS_WRITABLE_PROPERTY("LoopStatus", "s", h->get, h->set, 0, CHANGE | ANYONE),
        SD_BUS_WRITABLE_PROPERTY("Rate", "d", h->get, h->set, 0, CHANGE | ANYONE),
        SD_BUS_WRITABLE_PROPERTY("Shuffle", "b", h->get, h->set, 0, CHANGE | ANYONE),
        SD_BUS_PROPERTY("Metadata", "a{sv}", h->get, 0, CHANGE),
        SD_BUS_WRITABLE_PROPERTY("Volume", "d", h->get, h->set, 0, CHANGE | ANYONE),
        SD_BUS_PROPERTY("Position", "x", h->get, 0, 0),
        SD_BUS_PROPERTY("MinimumRate", "d", h->get, 0, CONST),
        SD_BUS_PROPERTY("MaximumRate", "d", h->get, 0, CONST),
        SD_BUS_PROPERTY("CanGoNext", "b", h->get, 0, CHANGE),
        SD_BUS_PROPERTY("CanGoPrevious", "b", h->get, 0, CHANGE),
        SD_BUS_PROPERTY("CanPlay", "b", h->get, 0, CHANGE),
        SD_BUS_PROPERTY("CanPause", "b", h->get, 0, CHANGE),
        SD_BUS_PROPERTY("CanSeek", "b", h->get, 0, CHANGE),
        SD_BUS_PROPERTY("CanControl", "b", h->get, 0, CONST),
        SD_BUS_VTABLE_END,
    };
    COPY(storage, v);
    return storage;
}

const sd_bus_vtable *lector_mpris_tracklist_vtable(const lector_dispatch_handlers *h) {
    static sd_bus_vtable storage[16];
    const sd_bus_vtable v[] = {
        SD_BUS_VTABLE_START(0),
        SD_BUS_METHOD_WITH_NAMES("GetTracksMetadata", "ao", SD_BUS_PARAM(TrackIds),
                                 "aa{sv}", SD_BUS_PARAM(Metadata), h->method, ANYONE),
        SD_BUS_METHOD_WITH_NAMES("AddTrack", "sob", SD_BUS_PARAM(Uri) SD_BUS_PARAM(AfterTrack)
                                 SD_BUS_PARAM(SetAsCurrent), "", , h->method, ANYONE),
        SD_BUS_METHOD_WITH_NAMES("RemoveTrack", "o", SD_BUS_PARAM(TrackId), "", , h->method, ANYONE),
        SD_BUS_METHOD_WITH_NAMES("GoTo", "o", SD_BUS_PARAM(TrackId), "", , h->method, ANYONE),
        SD_BUS_SIGNAL_WITH_NAMES("TrackListReplaced", "aoo", SD_BUS_PARAM(Tracks) SD_BUS_PARAM(CurrentTrack), 0),
        SD_BUS_SIGNAL_WITH_NAMES("TrackAdded", "a{sv}o", SD_BUS_PARAM(Metadata) SD_BUS_PARAM(AfterTrack), 0),
        SD_BUS_SIGNAL_WITH_NAMES("TrackRemoved", "o", SD_BUS_PARAM(TrackId), 0),
        SD_BUS_SIGNAL_WITH_NAMES("TrackMetadataChanged", "oa{sv}", SD_BUS_PARAM(TrackId) SD_BUS_PARAM(Metadata), 0),
        SD_BUS_PROPERTY("Tracks", "ao", h->get, 0, SD_BUS_VTABLE_PROPERTY_EMITS_INVALIDATION),
        SD_BUS_PROPERTY("CanEditTracks", "b", h->get, 0, CONST),
        SD_BUS_VTABLE_END,
    };
    COPY(storage, v);
    return storage;
}

const sd_bus_vtable *lector_narrator1_vtable(const lector_dispatch_handlers *h) {
    static sd_bus_vtable storage[16];
    const sd_bus_vtable v[] = {
        SD_BUS_VTABLE_START(0),
        SD_BUS_METHOD_WITH_NAMES("Open", "sa{sv}", SD_BUS_PARAM(uri) SD_BUS_PARAM(options),
                                 "", , h->method, ANYONE),
        SD_BUS_METHOD_WITH_NAMES("GetChapterText", "u", SD_BUS_PARAM(chapter),
                                 "os", SD_BUS_PARAM(trackid) SD_BUS_PARAM(text), h->method, ANYONE),
        SD_BUS_SIGNAL_WITH_NAMES("SpeakingRange", "ouu",
                                 SD_BUS_PARAM(trackid) SD_BUS_PARAM(start) SD_BUS_PARAM(length), 0),
        SD_BUS_PROPERTY("Book", "a{sv}", h->get, 0, CHANGE),
        SD_BUS_PROPERTY("PausedBecause", "s", h->get, 0, CHANGE),
        SD_BUS_VTABLE_END,
    };
    COPY(storage, v);
    return storage;
}
