/* libpulse on sd-event: a pa_mainloop_api whose events are sd-event sources, so libpulse runs on
 * the same thread and loop as sd-bus. Free with lector_pulse_api_free after the context is gone.
 * Only declared here (no library headers), so the libraries' names stay CPulse's and CSystemd's. */
#pragma once

struct pa_mainloop_api;
struct sd_event;

struct pa_mainloop_api *lector_pulse_api_new(struct sd_event *event);
void lector_pulse_api_free(struct pa_mainloop_api *api);
/* Sends libpulse's waiting requests now (runs its enabled defer events once); returns how many
 * ran, 0 and nothing done inside a callback this loop dispatched. Only from outside libpulse. */
int lector_pulse_api_flush(struct pa_mainloop_api *api);
