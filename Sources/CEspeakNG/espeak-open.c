/* Every libespeak-ng function Lector calls, forwarded to libespeak-ng.so.1 opened at run time
 * (CLibraryLoader: once, when first used; forwarders under the library's own names, hidden). */
#include "CEspeakNG.h"

#include "CLibraryLoader.h"

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

LECTOR_LIBRARY_DEFINE(LECTOR_ESPEAK_FUNCTIONS, .soname = "libespeak-ng.so.1", .title = "libespeak-ng", .package = "libespeak-ng1",
                      .needs = "espeak-ng 1.51 or later",
                      .stand_in = "liblector-pcaudio-stand-in.so")

const char *lector_espeak_open(void) { return lector_library_open(&lector_library_instance); }
