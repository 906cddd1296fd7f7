#include "CONNXRuntime.h"

#include <dlfcn.h>
#include <stdio.h>

/* ONNX Runtime's entry point: a table of two functions (onnxruntime_c_api.h's OrtApiBase). */
typedef struct {
    const LectorOrtApi *(*GetApi)(uint32_t version);
    const char *(*GetVersionString)(void);
} LectorOrtApiBase;

/* Slot offsets, from onnxruntime_c_api.h's order (the prefix ends at slot 165). */
_Static_assert(offsetof(LectorOrtApi, DisableCpuMemArena) == 19 * sizeof(void *), "OrtApi slot 19");
_Static_assert(offsetof(LectorOrtApi, SetSessionGraphOptimizationLevel) == 23 * sizeof(void *), "OrtApi slot 23");
_Static_assert(offsetof(LectorOrtApi, GetTensorMutableData) == 51 * sizeof(void *), "OrtApi slot 51");
_Static_assert(offsetof(LectorOrtApi, CreateCpuMemoryInfo) == 69 * sizeof(void *), "OrtApi slot 69");
_Static_assert(offsetof(LectorOrtApi, ReleaseEnv) == 92 * sizeof(void *), "OrtApi slot 92");
_Static_assert(offsetof(LectorOrtApi, ReleaseRunOptions) == 97 * sizeof(void *), "OrtApi slot 97");
_Static_assert(offsetof(LectorOrtApi, ReleaseSessionOptions) == 100 * sizeof(void *), "OrtApi slot 100");
_Static_assert(offsetof(LectorOrtApi, AddRunConfigEntry) == 165 * sizeof(void *), "OrtApi slot 165");
_Static_assert(offsetof(LectorOrtApi, CreateRunOptions) == 39 * sizeof(void *), "OrtApi slot 39");
_Static_assert(offsetof(LectorOrtApi, RunOptionsSetTerminate) == 46 * sizeof(void *), "OrtApi slot 46");

const LectorOrtApi *lector_ort_open(const char *path, const char **version, char *error, size_t error_size) {
    /* RTLD_LOCAL: its symbols (protobuf, abseil) must not stand in for anyone else's. */
    void *handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
        const char *reason = dlerror();
        snprintf(error, error_size, "%s", reason ? reason : "dlopen failed");
        return NULL;
    }
    const LectorOrtApiBase *(*get_base)(void) =
        (const LectorOrtApiBase *(*)(void))dlsym(handle, "OrtGetApiBase");
    if (!get_base) {
        snprintf(error, error_size, "no OrtGetApiBase in %s: not ONNX Runtime", path);
        dlclose(handle);
        return NULL;
    }
    const LectorOrtApiBase *base = get_base();
    const char *library_version = base && base->GetVersionString ? base->GetVersionString() : "?";
    const LectorOrtApi *api = base && base->GetApi ? base->GetApi(LECTOR_ORT_API_VERSION) : NULL;
    if (!api) {
        snprintf(error, error_size, "ONNX Runtime %s does not offer API version %d (1.16 or later is needed)",
                 library_version, LECTOR_ORT_API_VERSION);
        dlclose(handle);
        return NULL;
    }
    *version = library_version;
    return api;
}
