/* espeak-ng's API, reached at run time (dlopen), never linked: a program's start-up (lector-tools', the daemon's) does not pay
 * for libespeak-ng and what it pulls in (pcaudio, libpulse, ALSA: about 2 ms with libpulse)
 * unless a command speaks, and a missing library is an error a program reports. */
#ifndef LECTOR_CESPEAKNG_H
#define LECTOR_CESPEAKNG_H

#include <espeak-ng/espeak_ng.h>
#include <espeak-ng/speak_lib.h>
#include <stddef.h>

/* Opens libespeak-ng.so.1 once (thread-safe) and resolves every function Lector calls: NULL, or why
 * not, ending with the package to install. The functions above may be called only after NULL. */
const char *lector_espeak_open(void);

#endif
