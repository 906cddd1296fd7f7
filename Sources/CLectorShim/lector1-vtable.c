/* Declarative vtable for io.github.lector.Lector1, as systemd's own services write theirs. */
#include "CLectorShim.h"

static sd_bus_vtable vtable[16];

const sd_bus_vtable *lector_lector1_vtable(const lector_lector1_handlers *h) {
    const sd_bus_vtable v[] = {
        SD_BUS_VTABLE_START(0),
        SD_BUS_METHOD_WITH_NAMES("Speak", "sa{sv}", SD_BUS_PARAM(text) SD_BUS_PARAM(options),
                                 "t", SD_BUS_PARAM(id), h->speak, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_NAMES("Cancel", "t", SD_BUS_PARAM(id), "", , h->cancel,
                                 SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD("Stop", "", "", h->stop, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD("Reload", "", "", h->reload, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_NAMES("GetQueue", "", "", "a(tsss)", SD_BUS_PARAM(speeches), h->get_queue,
                                 SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_SIGNAL_WITH_NAMES("SpeechStarted", "t", SD_BUS_PARAM(id), 0),
        SD_BUS_SIGNAL_WITH_NAMES("SpeechFinished", "ts", SD_BUS_PARAM(id) SD_BUS_PARAM(reason), 0),
        SD_BUS_SIGNAL_WITH_NAMES("SpeakingRange", "tuu",
                                 SD_BUS_PARAM(id) SD_BUS_PARAM(start) SD_BUS_PARAM(length), 0),
        SD_BUS_PROPERTY("Voices", "a(sss)", h->get_voices, 0, SD_BUS_VTABLE_PROPERTY_CONST),
        SD_BUS_PROPERTY("Version", "s", h->get_version, 0, SD_BUS_VTABLE_PROPERTY_CONST),
        SD_BUS_WRITABLE_PROPERTY("ReadNotifications", "b", h->get_read_notifications, h->set_read_notifications, 0,
                                 SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE | SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_VTABLE_END,
    };
    _Static_assert(sizeof v <= sizeof vtable, "vtable storage too small");
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) vtable[i] = v[i];
    return vtable;
}
