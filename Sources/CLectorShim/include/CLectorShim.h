/* The C edge of Lector: only what Swift cannot express (sd_bus_vtable's bitfields and unions,
 * a pa_mainloop_api implementation). Everything else calls libsystemd/libpulse directly from Swift. */
#pragma once
#include <systemd/sd-bus.h>
#include <systemd/sd-event.h>
#include <pulse/pulseaudio.h>
#include <malloc.h>       /* mallopt: the daemon caps malloc arenas */
#include <sys/eventfd.h> /* the synthesis thread wakes the event loop through an eventfd */

/* A pa_mainloop_api whose events are sd-event sources on `event`: libpulse then runs on the
 * same thread and loop as sd-bus. Free with lector_pulse_api_free after the context is gone. */
pa_mainloop_api *lector_pulse_api_new(sd_event *event);
void lector_pulse_api_free(pa_mainloop_api *api);

/* The main dispatch queue, driven by the sd-event loop: watch the handle (an eventfd: read it
 * first), then drain. `Task { @MainActor in }` and DispatchQueue.main then run on the loop. */
int lector_main_queue_handle(void);
void lector_main_queue_drain(void);

/* io.github.lector.Lector1: the handlers Swift implements. The vtable is built once with the
 * real SD_BUS_* macros and lives for the whole process (sd-bus keeps the pointer). */
typedef struct lector_lector1_handlers {
    sd_bus_message_handler_t speak;
    sd_bus_message_handler_t cancel;
    sd_bus_message_handler_t stop;
    sd_bus_message_handler_t get_queue;
    sd_bus_message_handler_t reload;
    sd_bus_property_get_t get_voices;
    sd_bus_property_get_t get_version;
    sd_bus_property_get_t get_read_notifications;
    sd_bus_property_set_t set_read_notifications;
} lector_lector1_handlers;

const sd_bus_vtable *lector_lector1_vtable(const lector_lector1_handlers *handlers);

/* MPRIS 2.2 (org.mpris.MediaPlayer2, .Player, .TrackList) and Lector's own narration interface
 * io.github.lector.Narrator1. Every entry of these vtables calls the same three handlers;
 * Swift dispatches on sd_bus_message_get_member / the property name. */
typedef struct lector_dispatch_handlers {
    sd_bus_message_handler_t method;
    sd_bus_property_get_t get;
    sd_bus_property_set_t set;
} lector_dispatch_handlers;

const sd_bus_vtable *lector_mpris_root_vtable(const lector_dispatch_handlers *handlers);
const sd_bus_vtable *lector_mpris_player_vtable(const lector_dispatch_handlers *handlers);
const sd_bus_vtable *lector_mpris_tracklist_vtable(const lector_dispatch_handlers *handlers);
const sd_bus_vtable *lector_narrator1_vtable(const lector_dispatch_handlers *handlers);
