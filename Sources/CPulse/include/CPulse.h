/* libpulse's API, reached at run time (dlopen), never linked: a program's start-up (lector-tools', the daemon's) does not pay
 * for libpulse and what it pulls in (sndfile, codecs, X11: about 2 ms) unless a command uses it,
 * and a missing library is an error a program reports, not one the loader refuses to start on. */
#ifndef LECTOR_CPULSE_H
#define LECTOR_CPULSE_H

#include <pulse/pulseaudio.h>
#include <pulse/ext-stream-restore.h>
#include <stddef.h>

/* Opens libpulse.so.0 once (thread-safe) and resolves every function Lector calls: NULL, or why
 * not, ending with the package to install. The functions above may be called only after NULL. */
const char *lector_pulse_open(void);

#endif
