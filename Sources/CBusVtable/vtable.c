#include "CBusVtable.h"
#include <stdlib.h>

_Static_assert(LECTOR_VTABLE_UNPRIVILEGED == SD_BUS_VTABLE_UNPRIVILEGED, "flag");
_Static_assert(LECTOR_PROPERTY_CONST == SD_BUS_VTABLE_PROPERTY_CONST, "flag");
_Static_assert(LECTOR_PROPERTY_EMITS_CHANGE == SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE, "flag");
_Static_assert(LECTOR_PROPERTY_EMITS_INVALIDATION == SD_BUS_VTABLE_PROPERTY_EMITS_INVALIDATION, "flag");

sd_bus_vtable *lector_vtable_new(const lector_member *members, size_t count, sd_bus_message_handler_t method,
                                 sd_bus_property_get_t get, sd_bus_property_set_t set) {
    /* Zeroed: sd-bus reads the unused parts of the union too. */
    sd_bus_vtable *v = calloc(count + 2, sizeof *v);
    if (!v) return NULL;
    v[0] = (sd_bus_vtable) SD_BUS_VTABLE_START(0);
    for (size_t i = 0; i < count; i++) {
        const lector_member *m = &members[i];
        sd_bus_vtable *e = &v[i + 1];
        size_t offset = m->slot * sizeof(void *);
        e->flags = m->flags;
        switch (m->kind) {
        case LECTOR_MEMBER_METHOD:
            e->type = _SD_BUS_VTABLE_METHOD;
            e->x.method.member = m->name;
            e->x.method.signature = m->signature;
            e->x.method.result = m->result ? m->result : "";
            e->x.method.handler = method;
            e->x.method.offset = offset;
            e->x.method.names = m->names;
            break;
        case LECTOR_MEMBER_SIGNAL:
            e->type = _SD_BUS_VTABLE_SIGNAL;
            e->x.signal.member = m->name;
            e->x.signal.signature = m->signature;
            e->x.signal.names = m->names;
            break;
        case LECTOR_MEMBER_PROPERTY:
        case LECTOR_MEMBER_WRITABLE_PROPERTY:
            e->type = m->kind == LECTOR_MEMBER_PROPERTY ? _SD_BUS_VTABLE_PROPERTY : _SD_BUS_VTABLE_WRITABLE_PROPERTY;
            e->x.property.member = m->name;
            e->x.property.signature = m->signature;
            e->x.property.get = get;
            e->x.property.set = m->kind == LECTOR_MEMBER_PROPERTY ? NULL : set;
            e->x.property.offset = offset;
            break;
        }
    }
    v[count + 1] = (sd_bus_vtable) SD_BUS_VTABLE_END;
    return v;
}

void lector_vtable_free(sd_bus_vtable *vtable) { free(vtable); }
