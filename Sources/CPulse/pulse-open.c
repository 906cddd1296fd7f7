/* Every libpulse function Lector calls, forwarded to libpulse.so.0 opened at run time
 * (CLibraryLoader: once, when first used; forwarders under the library's own names, hidden). */
#include "CPulse.h"

#include "CLibraryLoader.h"

#define LECTOR_PULSE_FUNCTIONS(R, V) \
    R(pa_channel_map *, pa_channel_map_init_auto, (pa_channel_map *m, unsigned n, pa_channel_map_def_t d), (m, n, d)) \
    R(int, pa_context_connect, (pa_context *c, const char *s, pa_context_flags_t f, const pa_spawn_api *a), (c, s, f, a)) \
    V(pa_context_disconnect, (pa_context *c), (c)) \
    R(pa_operation *, pa_context_drain, (pa_context *c, pa_context_notify_cb_t cb, void *u), (c, cb, u)) \
    R(int, pa_context_errno, (const pa_context *c), (c)) \
    R(pa_operation *, pa_context_load_module, (pa_context *c, const char *n, const char *a, pa_context_index_cb_t cb, void *u), (c, n, a, cb, u)) \
    R(pa_operation *, pa_context_set_default_sink, (pa_context *c, const char *n, pa_context_success_cb_t cb, void *u), (c, n, cb, u)) \
    R(pa_operation *, pa_context_unload_module, (pa_context *c, uint32_t i, pa_context_success_cb_t cb, void *u), (c, i, cb, u)) \
    R(pa_operation *, pa_context_get_module_info, (pa_context *c, uint32_t i, pa_module_info_cb_t cb, void *u), (c, i, cb, u)) \
    R(pa_operation *, pa_context_get_module_info_list, (pa_context *c, pa_module_info_cb_t cb, void *u), (c, cb, u)) \
    R(const char *, pa_context_get_server, (const pa_context *c), (c)) \
    R(pa_operation *, pa_context_get_server_info, (pa_context *c, pa_server_info_cb_t cb, void *u), (c, cb, u)) \
    R(pa_operation *, pa_context_get_sink_info_by_index, (pa_context *c, uint32_t i, pa_sink_info_cb_t cb, void *u), (c, i, cb, u)) \
    R(pa_operation *, pa_context_get_sink_info_list, (pa_context *c, pa_sink_info_cb_t cb, void *u), (c, cb, u)) \
    R(pa_operation *, pa_context_get_sink_input_info, (pa_context *c, uint32_t i, pa_sink_input_info_cb_t cb, void *u), (c, i, cb, u)) \
    R(pa_operation *, pa_context_get_sink_input_info_list, (pa_context *c, pa_sink_input_info_cb_t cb, void *u), (c, cb, u)) \
    R(pa_operation *, pa_context_get_source_output_info, (pa_context *c, uint32_t i, pa_source_output_info_cb_t cb, void *u), (c, i, cb, u)) \
    R(pa_operation *, pa_context_get_source_output_info_list, (pa_context *c, pa_source_output_info_cb_t cb, void *u), (c, cb, u)) \
    R(pa_context_state_t, pa_context_get_state, (const pa_context *c), (c)) \
    R(pa_context *, pa_context_new, (pa_mainloop_api *m, const char *n), (m, n)) \
    R(pa_context *, pa_context_new_with_proplist, (pa_mainloop_api *m, const char *n, const pa_proplist *p), (m, n, p)) \
    R(pa_operation *, pa_context_set_sink_input_volume, (pa_context *c, uint32_t i, const pa_cvolume *v, pa_context_success_cb_t cb, void *u), (c, i, v, cb, u)) \
    R(pa_operation *, pa_context_set_sink_mute_by_index, (pa_context *c, uint32_t i, int m, pa_context_success_cb_t cb, void *u), (c, i, m, cb, u)) \
    R(pa_operation *, pa_context_set_sink_volume_by_index, (pa_context *c, uint32_t i, const pa_cvolume *v, pa_context_success_cb_t cb, void *u), (c, i, v, cb, u)) \
    V(pa_context_set_state_callback, (pa_context *c, pa_context_notify_cb_t cb, void *u), (c, cb, u)) \
    V(pa_context_set_subscribe_callback, (pa_context *c, pa_context_subscribe_cb_t cb, void *u), (c, cb, u)) \
    R(pa_operation *, pa_context_subscribe, (pa_context *c, pa_subscription_mask_t m, pa_context_success_cb_t cb, void *u), (c, m, cb, u)) \
    V(pa_context_unref, (pa_context *c), (c)) \
    R(pa_operation *, pa_ext_stream_restore_read, (pa_context *c, pa_ext_stream_restore_read_cb_t cb, void *u), (c, cb, u)) \
    R(pa_operation *, pa_ext_stream_restore_write, (pa_context *c, pa_update_mode_t m, const pa_ext_stream_restore_info d[], unsigned n, int a, pa_context_success_cb_t cb, void *u), (c, m, d, n, a, cb, u)) \
    R(int, pa_mainloop_dispatch, (pa_mainloop *m), (m)) \
    V(pa_mainloop_free, (pa_mainloop *m), (m)) \
    R(pa_mainloop_api *, pa_mainloop_get_api, (pa_mainloop *m), (m)) \
    R(pa_mainloop *, pa_mainloop_new, (void), ()) \
    R(int, pa_mainloop_poll, (pa_mainloop *m), (m)) \
    R(int, pa_mainloop_prepare, (pa_mainloop *m, int t), (m, t)) \
    R(pa_operation_state_t, pa_operation_get_state, (const pa_operation *o), (o)) \
    V(pa_operation_unref, (pa_operation *o), (o)) \
    V(pa_proplist_free, (pa_proplist *p), (p)) \
    R(const char *, pa_proplist_gets, (const pa_proplist *p, const char *k), (p, k)) \
    R(const char *, pa_proplist_iterate, (const pa_proplist *p, void **s), (p, s)) \
    R(pa_proplist *, pa_proplist_new, (void), ()) \
    R(int, pa_proplist_sets, (pa_proplist *p, const char *k, const char *v), (p, k, v)) \
    R(int, pa_stream_connect_playback, (pa_stream *s, const char *d, const pa_buffer_attr *a, pa_stream_flags_t f, const pa_cvolume *v, pa_stream *y), (s, d, a, f, v, y)) \
    R(pa_operation *, pa_stream_cork, (pa_stream *s, int b, pa_stream_success_cb_t cb, void *u), (s, b, cb, u)) \
    R(int, pa_stream_disconnect, (pa_stream *s), (s)) \
    R(pa_operation *, pa_stream_flush, (pa_stream *s, pa_stream_success_cb_t cb, void *u), (s, cb, u)) \
    R(const pa_buffer_attr *, pa_stream_get_buffer_attr, (pa_stream *s), (s)) \
    R(uint32_t, pa_stream_get_index, (const pa_stream *s), (s)) \
    R(pa_stream_state_t, pa_stream_get_state, (const pa_stream *s), (s)) \
    R(const pa_timing_info *, pa_stream_get_timing_info, (pa_stream *s), (s)) \
    R(pa_stream *, pa_stream_new_with_proplist, (pa_context *c, const char *n, const pa_sample_spec *s, const pa_channel_map *m, pa_proplist *p), (c, n, s, m, p)) \
    R(pa_operation *, pa_stream_set_buffer_attr, (pa_stream *s, const pa_buffer_attr *a, pa_stream_success_cb_t cb, void *u), (s, a, cb, u)) \
    V(pa_stream_set_event_callback, (pa_stream *s, pa_stream_event_cb_t cb, void *u), (s, cb, u)) \
    V(pa_stream_set_state_callback, (pa_stream *s, pa_stream_notify_cb_t cb, void *u), (s, cb, u)) \
    V(pa_stream_set_write_callback, (pa_stream *s, pa_stream_request_cb_t cb, void *u), (s, cb, u)) \
    V(pa_stream_unref, (pa_stream *s), (s)) \
    R(pa_operation *, pa_stream_update_timing_info, (pa_stream *s, pa_stream_success_cb_t cb, void *u), (s, cb, u)) \
    R(size_t, pa_stream_writable_size, (const pa_stream *s), (s)) \
    R(int, pa_stream_write, (pa_stream *s, const void *d, size_t n, pa_free_cb_t f, int64_t o, pa_seek_mode_t m), (s, d, n, f, o, m)) \
    R(const char *, pa_strerror, (int e), (e))

LECTOR_LIBRARY_DEFINE(LECTOR_PULSE_FUNCTIONS, .soname = "libpulse.so.0", .title = "libpulse", .package = "libpulse0",
                      .needs = "PulseAudio 15 or later",
                      .stand_in = "liblector-sndfile-stand-in.so")

const char *lector_pulse_open(void) { return lector_library_open(&lector_library_instance); }
