/* Stands in for libpcaudio.so.0 in lectord (CLibraryLoader loads it before espeak-ng): espeak-ng
 * links pcaudio to play sound itself, which Lector never asks of it (it synthesizes into buffers,
 * AUDIO_OUTPUT_SYNCHRONOUS), and pcaudio pulls in ALSA, about 0.3 MB of an idle daemon. These are
 * the eight functions espeak-ng 1.51 binds; there is no device, as pcaudio says when it finds none. */
#include "CStandInPcaudio.h"

#include <errno.h>

struct audio_object *create_audio_device_object(const char *device, const char *application, const char *description) {
    (void)device; (void)application; (void)description;
    return 0;
}
int audio_object_open(struct audio_object *object, int format, uint32_t rate, uint8_t channels) {
    (void)object; (void)format; (void)rate; (void)channels;
    return ENODEV;
}
void audio_object_close(struct audio_object *object) { (void)object; }
void audio_object_destroy(struct audio_object *object) { (void)object; }
int audio_object_write(struct audio_object *object, const void *data, size_t bytes) { (void)object; (void)data; (void)bytes; return ENODEV; }
int audio_object_drain(struct audio_object *object) { (void)object; return ENODEV; }
int audio_object_flush(struct audio_object *object) { (void)object; return ENODEV; }
const char *audio_object_strerror(struct audio_object *object, int error) { (void)object; (void)error; return "lectord plays no sound through espeak-ng"; }
