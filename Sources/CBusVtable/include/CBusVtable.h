/* sd_bus_vtable has bitfields and unions Swift cannot build: this builds one from a plain list of
 * members. Every member's sd-bus userdata is the object's userdata plus `slot` pointers, so the
 * three shared handlers find that member's own Swift handler (LectorBus.BusObject). */
#pragma once
#include <stddef.h>
#include <stdint.h>
#include <systemd/sd-bus.h>

typedef enum lector_member_kind {
    LECTOR_MEMBER_METHOD,
    LECTOR_MEMBER_SIGNAL,
    LECTOR_MEMBER_PROPERTY,
    LECTOR_MEMBER_WRITABLE_PROPERTY,
} lector_member_kind;

typedef struct lector_member {
    lector_member_kind kind;
    const char *name;
    /* A method's input, a signal's arguments, a property's type. */
    const char *signature;
    /* A method's output; NULL otherwise. */
    const char *result;
    /* Argument names, each ended by a NUL (inputs, then outputs), as SD_BUS_PARAM() writes them. */
    const char *names;
    uint64_t flags;
    size_t slot;
} lector_member;

/* sd-bus's flags, as plain numbers Swift imports (vtable.c checks they are sd-bus's). */
#define LECTOR_VTABLE_UNPRIVILEGED 4ULL
#define LECTOR_PROPERTY_CONST 16ULL
#define LECTOR_PROPERTY_EMITS_CHANGE 32ULL
#define LECTOR_PROPERTY_EMITS_INVALIDATION 64ULL

/* A vtable (START, the members, END) to pass to sd_bus_add_object_vtable; it must outlive the
 * object's slot. NULL when out of memory. */
sd_bus_vtable *lector_vtable_new(const lector_member *members, size_t count, sd_bus_message_handler_t method,
                                 sd_bus_property_get_t get, sd_bus_property_set_t set);
void lector_vtable_free(sd_bus_vtable *vtable);
