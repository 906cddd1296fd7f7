/* The functions of libsndfile that libpulsecommon binds, as the stand-in defines them
 * (sndfile-stand-in.c says why). Nothing in Lector calls them. */
#ifndef LECTOR_CSTANDINSNDFILE_H
#define LECTOR_CSTANDINSNDFILE_H
#include <stdint.h>
typedef int64_t lector_sf_count;   /* sf_count_t */
int sf_command(void *file, int command, void *data, int size);
const char *sf_error_number(int number);
const char *sf_get_string(void *file, int type);
lector_sf_count sf_readf_float(void *file, float *frames, lector_sf_count count);
lector_sf_count sf_readf_int(void *file, int *frames, lector_sf_count count);
lector_sf_count sf_readf_short(void *file, short *frames, lector_sf_count count);
lector_sf_count sf_writef_float(void *file, const float *frames, lector_sf_count count);
lector_sf_count sf_writef_int(void *file, const int *frames, lector_sf_count count);
lector_sf_count sf_writef_short(void *file, const short *frames, lector_sf_count count);
#endif
