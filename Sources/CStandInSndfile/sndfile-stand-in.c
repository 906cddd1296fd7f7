/* Stands in for libsndfile.so.1 in lectord (CLibraryLoader loads it before libpulse): libpulse's
 * common library links libsndfile for the sample-file helpers of paplay and the server, which a
 * client never calls, and libsndfile pulls in FLAC, Vorbis, Opus, MPEG and LAME, about 0.8 MB of
 * an idle daemon. These are the nine functions libpulsecommon 16 binds (at load, BIND_NOW), under
 * libsndfile's version; each fails as libsndfile does for a file it cannot read. A libpulse that
 * needs more fails to load with this, and the loader loads it again with the real libsndfile. */
#include "CStandInSndfile.h"

int sf_command(void *file, int command, void *data, int size) { (void)file; (void)command; (void)data; (void)size; return 0; }
const char *sf_error_number(int number) { (void)number; return "libsndfile is not loaded in lectord"; }
const char *sf_get_string(void *file, int type) { (void)file; (void)type; return 0; }
lector_sf_count sf_readf_float(void *file, float *frames, lector_sf_count count) { (void)file; (void)frames; (void)count; return 0; }
lector_sf_count sf_readf_int(void *file, int *frames, lector_sf_count count) { (void)file; (void)frames; (void)count; return 0; }
lector_sf_count sf_readf_short(void *file, short *frames, lector_sf_count count) { (void)file; (void)frames; (void)count; return 0; }
lector_sf_count sf_writef_float(void *file, const float *frames, lector_sf_count count) { (void)file; (void)frames; (void)count; return 0; }
lector_sf_count sf_writef_int(void *file, const int *frames, lector_sf_count count) { (void)file; (void)frames; (void)count; return 0; }
lector_sf_count sf_writef_short(void *file, const short *frames, lector_sf_count count) { (void)file; (void)frames; (void)count; return 0; }
