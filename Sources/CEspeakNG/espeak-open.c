/* Every espeak-ng function Lector calls, forwarded to the library opened at run time, under
 * espeak-ng's own names (hidden, so never offered back to the library). The compiler checks each
 * line against espeak-ng's headers: a wrong parameter list is a conflicting-types error. */
#include "CEspeakNG.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define LECTOR_ESPEAK_FUNCTIONS(R, V) \
    R(const char *, espeak_Info, (const char **p), (p)) \
    R(int, espeak_Initialize, (espeak_AUDIO_OUTPUT o, int b, const char *p, int f), (o, b, p, f)) \
    R(const espeak_VOICE **, espeak_ListVoices, (espeak_VOICE *v), (v)) \
    R(espeak_ERROR, espeak_SetParameter, (espeak_PARAMETER p, int v, int r), (p, v, r)) \
    V(espeak_SetPhonemeTrace, (int m, FILE *s), (m, s)) \
    V(espeak_SetSynthCallback, (t_espeak_callback *c), (c)) \
    R(espeak_ERROR, espeak_SetVoiceByName, (const char *n), (n)) \
    R(espeak_ERROR, espeak_Synth, (const void *t, size_t s, unsigned int p, espeak_POSITION_TYPE y, unsigned int e, unsigned int f, unsigned int *i, void *u), (t, s, p, y, e, f, i, u)) \
    R(const char *, espeak_TextToPhonemes, (const void **t, int tm, int pm), (t, tm, pm)) \
    R(int, espeak_ng_GetSampleRate, (void), ()) \
    R(espeak_ng_STATUS, espeak_ng_Terminate, (void), ())

#define LECTOR_POINTER(ret, name, params, args) static __typeof__(&name) p_##name;
#define LECTOR_VPOINTER(name, params, args) static __typeof__(&name) p_##name;
LECTOR_ESPEAK_FUNCTIONS(LECTOR_POINTER, LECTOR_VPOINTER)

static pthread_once_t once = PTHREAD_ONCE_INIT;
static int opened = -1;
static char failure[512];

static void open_once(void) {
    void *handle = dlopen("libespeak-ng.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
        const char *reason = dlerror();
        snprintf(failure, sizeof failure, "%s", reason ? reason : "libespeak-ng.so.1: dlopen failed");
        return;
    }
#define LECTOR_RESOLVE(name) \
    if (!(p_##name = (__typeof__(p_##name))dlsym(handle, #name))) { \
        snprintf(failure, sizeof failure, "libespeak-ng.so.1 has no %s (espeak-ng 1.51 or later is needed)", #name); \
        return; \
    }
#define LECTOR_RRESOLVE(ret, name, params, args) LECTOR_RESOLVE(name)
#define LECTOR_VRESOLVE(name, params, args) LECTOR_RESOLVE(name)
    LECTOR_ESPEAK_FUNCTIONS(LECTOR_RRESOLVE, LECTOR_VRESOLVE)
    opened = 0;
}

int lector_espeak_open(char *error, size_t error_size) {
    pthread_once(&once, open_once);
    if (opened == 0) return 0;
    if (error && error_size) snprintf(error, error_size, "%s", failure);
    return -1;
}

static void require(void) {
    if (lector_espeak_open(NULL, 0) == 0) return;
    fprintf(stderr, "lector: libespeak-ng is needed here and cannot be loaded: %s\n", failure);
    abort();
}

#define LECTOR_FORWARD(ret, name, params, args) \
    __attribute__((visibility("hidden"))) ret name params { if (__builtin_expect(!p_##name, 0)) require(); return p_##name args; }
#define LECTOR_VFORWARD(name, params, args) \
    __attribute__((visibility("hidden"))) void name params { if (__builtin_expect(!p_##name, 0)) require(); p_##name args; }
LECTOR_ESPEAK_FUNCTIONS(LECTOR_FORWARD, LECTOR_VFORWARD)
