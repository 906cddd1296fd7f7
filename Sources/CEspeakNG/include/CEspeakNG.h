/* espeak-ng's API, reached at run time (dlopen), never linked: the CLI's start-up does not pay
 * for libespeak-ng and what it pulls in (pcaudio, libpulse, ALSA: about 2 ms with libpulse)
 * unless a command speaks, and a missing library is an error a program reports. */
#ifndef LECTOR_CESPEAKNG_H
#define LECTOR_CESPEAKNG_H

#include <espeak-ng/espeak_ng.h>
#include <espeak-ng/speak_lib.h>
#include <stddef.h>

/* Opens libespeak-ng.so.1 once (thread-safe) and resolves every function Lector calls. Returns 0,
 * or -1 with the reason in `error`. The functions above may be called only after it returned 0. */
int lector_espeak_open(char *error, size_t error_size);

#endif
