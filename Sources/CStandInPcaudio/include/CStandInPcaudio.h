/* The functions of pcaudio that espeak-ng binds, as the stand-in defines them
 * (pcaudio-stand-in.c says why). Nothing in Lector calls them. */
#ifndef LECTOR_CSTANDINPCAUDIO_H
#define LECTOR_CSTANDINPCAUDIO_H
#include <stddef.h>
#include <stdint.h>
struct audio_object;
struct audio_object *create_audio_device_object(const char *device, const char *application, const char *description);
int audio_object_open(struct audio_object *object, int format, uint32_t rate, uint8_t channels);
void audio_object_close(struct audio_object *object);
void audio_object_destroy(struct audio_object *object);
int audio_object_write(struct audio_object *object, const void *data, size_t bytes);
int audio_object_drain(struct audio_object *object);
int audio_object_flush(struct audio_object *object);
const char *audio_object_strerror(struct audio_object *object, int error);
#endif
