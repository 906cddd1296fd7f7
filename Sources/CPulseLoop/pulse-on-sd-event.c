/* pa_mainloop_api implemented on sd-event, so libpulse and sd-bus share one loop and one thread.
 * libpulse hands foreign loops wall-clock times (pa_context_rttime_new converts), hence CLOCK_REALTIME.
 * Once the loop has finished, sd-event refuses new sources; libpulse aborts when an event cannot be
 * made, so then an event without a source is returned: it never fires, and the process is exiting. */
#include "CPulseLoop.h"
#include <systemd/sd-event.h>
#include <pulse/pulseaudio.h>
#include <stdlib.h>
#include <sys/time.h>
#include <time.h>

struct pa_io_event {
    pa_mainloop_api *api;
    sd_event_source *source;
    pa_io_event_cb_t callback;
    pa_io_event_destroy_cb_t destroy;
    void *userdata;
};

struct pa_time_event {
    pa_mainloop_api *api;
    sd_event_source *source;
    pa_time_event_cb_t callback;
    pa_time_event_destroy_cb_t destroy;
    void *userdata;
};

struct pa_defer_event {
    pa_mainloop_api *api;
    sd_event_source *source;
    pa_defer_event_cb_t callback;
    pa_defer_event_destroy_cb_t destroy;
    void *userdata;
    int ran;
    pa_defer_event *prev, *next;
};

/* The api handed to libpulse is the first member, so a pa_mainloop_api * is a struct loop *.
 * `depth` counts libpulse callbacks on the stack; `defers` lists every defer event, for
 * lector_pulse_api_flush. */
struct loop {
    pa_mainloop_api api;
    sd_event *event;
    int depth;
    int flushing; /* a defer event made while set waits for the loop */
    pa_defer_event *defers;
};

static struct loop *loop_from(pa_mainloop_api *a) { return (struct loop *)a; }

static uint32_t to_epoll(pa_io_event_flags_t f) {
    return (f & PA_IO_EVENT_INPUT ? EPOLLIN : 0) | (f & PA_IO_EVENT_OUTPUT ? EPOLLOUT : 0) |
           (f & PA_IO_EVENT_HANGUP ? EPOLLHUP : 0) | (f & PA_IO_EVENT_ERROR ? EPOLLERR : 0);
}

static pa_io_event_flags_t from_epoll(uint32_t e) {
    return (e & EPOLLIN ? PA_IO_EVENT_INPUT : 0) | (e & EPOLLOUT ? PA_IO_EVENT_OUTPUT : 0) |
           (e & EPOLLHUP ? PA_IO_EVENT_HANGUP : 0) | (e & EPOLLERR ? PA_IO_EVENT_ERROR : 0);
}

static sd_event *loop_of(pa_mainloop_api *a) { return loop_from(a)->event; }

/* io */
static int io_dispatch(sd_event_source *s, int fd, uint32_t revents, void *userdata) {
    pa_io_event *e = userdata;
    struct loop *l = loop_from(e->api);
    l->depth++;
    e->callback(e->api, e, fd, from_epoll(revents), e->userdata);
    l->depth--;
    return 0;
}

static pa_io_event *io_new(pa_mainloop_api *a, int fd, pa_io_event_flags_t events,
                           pa_io_event_cb_t cb, void *userdata) {
    pa_io_event *e = calloc(1, sizeof *e);
    if (!e) return NULL;
    *e = (pa_io_event){ .api = a, .callback = cb, .userdata = userdata };
    if (sd_event_add_io(loop_of(a), &e->source, fd, to_epoll(events), io_dispatch, e) < 0) e->source = NULL;
    if (e->source) sd_event_source_set_enabled(e->source, events ? SD_EVENT_ON : SD_EVENT_OFF);
    return e;
}

static void io_enable(pa_io_event *e, pa_io_event_flags_t events) {
    if (!e->source) return;
    if (events) sd_event_source_set_io_events(e->source, to_epoll(events));
    sd_event_source_set_enabled(e->source, events ? SD_EVENT_ON : SD_EVENT_OFF);
}

static void io_free(pa_io_event *e) {
    sd_event_source_disable_unref(e->source);
    if (e->destroy) e->destroy(e->api, e, e->userdata);
    free(e);
}

static void io_set_destroy(pa_io_event *e, pa_io_event_destroy_cb_t cb) { e->destroy = cb; }

/* time */
static uint64_t timeval_usec(const struct timeval *tv) {
    return (uint64_t)tv->tv_sec * 1000000ULL + (uint64_t)tv->tv_usec;
}

static int time_dispatch(sd_event_source *s, uint64_t usec, void *userdata) {
    pa_time_event *e = userdata;
    struct timeval now;
    gettimeofday(&now, NULL);
    /* One-shot like pa_mainloop: the callback may restart it. */
    sd_event_source_set_enabled(e->source, SD_EVENT_OFF);
    struct loop *l = loop_from(e->api);
    l->depth++;
    e->callback(e->api, e, &now, e->userdata);
    l->depth--;
    return 0;
}

static void time_restart(pa_time_event *e, const struct timeval *tv) {
    if (!e->source) return;
    if (!tv) {
        sd_event_source_set_enabled(e->source, SD_EVENT_OFF);
        return;
    }
    sd_event_source_set_time(e->source, timeval_usec(tv));
    sd_event_source_set_enabled(e->source, SD_EVENT_ONESHOT);
}

static pa_time_event *time_new(pa_mainloop_api *a, const struct timeval *tv,
                               pa_time_event_cb_t cb, void *userdata) {
    pa_time_event *e = calloc(1, sizeof *e);
    if (!e) return NULL;
    *e = (pa_time_event){ .api = a, .callback = cb, .userdata = userdata };
    if (sd_event_add_time(loop_of(a), &e->source, CLOCK_REALTIME, tv ? timeval_usec(tv) : 0, 0,
                          time_dispatch, e) < 0)
        e->source = NULL;
    time_restart(e, tv);
    return e;
}

static void time_free(pa_time_event *e) {
    sd_event_source_disable_unref(e->source);
    if (e->destroy) e->destroy(e->api, e, e->userdata);
    free(e);
}

static void time_set_destroy(pa_time_event *e, pa_time_event_destroy_cb_t cb) { e->destroy = cb; }

/* defer */
static int defer_dispatch(sd_event_source *s, void *userdata) {
    pa_defer_event *e = userdata;
    struct loop *l = loop_from(e->api);
    l->depth++;
    e->callback(e->api, e, e->userdata);
    l->depth--;
    return 0;
}

static pa_defer_event *defer_new(pa_mainloop_api *a, pa_defer_event_cb_t cb, void *userdata) {
    pa_defer_event *e = calloc(1, sizeof *e);
    if (!e) return NULL;
    struct loop *l = loop_from(a);
    /* One made during a flush waits for the loop, so a flush always ends. */
    *e = (pa_defer_event){ .api = a, .callback = cb, .userdata = userdata, .ran = l->flushing,
                           .next = l->defers };
    if (l->defers) l->defers->prev = e;
    l->defers = e;
    if (sd_event_add_defer(loop_of(a), &e->source, defer_dispatch, e) < 0) e->source = NULL;
    if (e->source) sd_event_source_set_enabled(e->source, SD_EVENT_ON);
    return e;
}

static void defer_enable(pa_defer_event *e, int b) {
    if (e->source) sd_event_source_set_enabled(e->source, b ? SD_EVENT_ON : SD_EVENT_OFF);
}

static void defer_free(pa_defer_event *e) {
    struct loop *l = loop_from(e->api);
    if (e->prev) e->prev->next = e->next; else l->defers = e->next;
    if (e->next) e->next->prev = e->prev;
    sd_event_source_disable_unref(e->source);
    if (e->destroy) e->destroy(e->api, e, e->userdata);
    free(e);
}

static void defer_set_destroy(pa_defer_event *e, pa_defer_event_destroy_cb_t cb) { e->destroy = cb; }

static void quit(pa_mainloop_api *a, int retval) { sd_event_exit(loop_of(a), retval); }

/* Runs each existing defer event that is enabled when reached, at most once, as the loop's next
 * turn would; one made during the flush waits for the loop. libpulse's requests wait in its
 * connection's defer event; a request made from outside libpulse (a bus handler corking a
 * stream) leaves now instead of after whatever else that turn sends. Refused (0) inside a
 * callback this loop dispatched: there the defer runs next turn anyway, and libpulse is not
 * reentrant. A callback libpulse makes inside a call from outside (pa_context_disconnect
 * reporting the state) is not counted: callers flush only from outside libpulse. Returns how
 * many ran. A callback may free any defer event, so the list is walked again from its head
 * after each one; `ran` marks those done. */
int lector_pulse_api_flush(pa_mainloop_api *a) {
    struct loop *l = loop_from(a);
    if (l->depth > 0) return 0; /* also inside this flush: each callback runs at depth 1 */
    for (pa_defer_event *e = l->defers; e; e = e->next) e->ran = 0;
    l->flushing = 1;
    int count = 0;
    for (;;) {
        pa_defer_event *e = l->defers;
        int state = SD_EVENT_OFF;
        while (e && (e->ran || !e->source || sd_event_source_get_enabled(e->source, &state) < 0 || state == SD_EVENT_OFF))
            e = e->next;
        if (!e) break;
        e->ran = 1;
        l->depth++;
        e->callback(e->api, e, e->userdata);
        l->depth--;
        count++;
    }
    l->flushing = 0;
    return count;
}

pa_mainloop_api *lector_pulse_api_new(sd_event *event) {
    struct loop *l = calloc(1, sizeof *l);
    if (!l) return NULL;
    l->event = sd_event_ref(event);
    pa_mainloop_api *a = &l->api;
    *a = (pa_mainloop_api){
        .userdata = l,
        .io_new = io_new, .io_enable = io_enable, .io_free = io_free, .io_set_destroy = io_set_destroy,
        .time_new = time_new, .time_restart = time_restart, .time_free = time_free,
        .time_set_destroy = time_set_destroy,
        .defer_new = defer_new, .defer_enable = defer_enable, .defer_free = defer_free,
        .defer_set_destroy = defer_set_destroy,
        .quit = quit,
    };
    return a;
}

void lector_pulse_api_free(pa_mainloop_api *a) {
    if (!a) return;
    struct loop *l = loop_from(a);
    sd_event_unref(l->event);
    free(l);
}
