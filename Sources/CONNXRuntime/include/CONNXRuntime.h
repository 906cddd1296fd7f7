/* ONNX Runtime's C API, reached at run time (dlopen), never linked: a daemon that never uses a
 * neural voice must not load it. Debian 12 has no onnxruntime headers, so this declares only the
 * stable prefix of the OrtApi function table Lector calls (slots 0..100 from API version 1:
 * the table only grows, so the prefix holds for every later library; AddRunConfigEntry is the one
 * later slot). Slot numbers are in the
 * comments; unused slots are padding. Enums are passed as int (C enums are int-sized). */
#pragma once
#include <stddef.h>
#include <stdint.h>

typedef struct OrtEnv OrtEnv;
typedef struct OrtStatus OrtStatus;
typedef struct OrtMemoryInfo OrtMemoryInfo;
typedef struct OrtSession OrtSession;
typedef struct OrtValue OrtValue;
typedef struct OrtRunOptions OrtRunOptions;
typedef struct OrtTensorTypeAndShapeInfo OrtTensorTypeAndShapeInfo;
typedef struct OrtSessionOptions OrtSessionOptions;
typedef struct OrtAllocator OrtAllocator;

/* The values Lector uses from ONNX Runtime's enums. */
enum {
    LECTOR_ORT_LOGGING_LEVEL_ERROR = 3,
    LECTOR_ORT_TENSOR_FLOAT = 1,
    LECTOR_ORT_TENSOR_INT64 = 7,
    LECTOR_ORT_ENABLE_ALL = 99,
    LECTOR_ORT_ARENA_ALLOCATOR = 1,
    LECTOR_ORT_MEM_TYPE_DEFAULT = 0,
};

typedef struct LectorOrtApi {
    void *slots0_1[1];                                                                  /* 0 */
    int (*GetErrorCode)(const OrtStatus *status);                                       /* 1 */
    const char *(*GetErrorMessage)(const OrtStatus *status);                            /* 2 */
    OrtStatus *(*CreateEnv)(int logging_level, const char *log_id, OrtEnv **out);       /* 3 */
    void *slots4_7[4];
    OrtStatus *(*CreateSessionFromArray)(const OrtEnv *env, const void *model, size_t model_length,
                                         const OrtSessionOptions *options, OrtSession **out); /* 8 */
    OrtStatus *(*Run)(OrtSession *session, const OrtRunOptions *run_options,
                      const char *const *input_names, const OrtValue *const *inputs, size_t input_count,
                      const char *const *output_names, size_t output_count, OrtValue **outputs); /* 9 */
    OrtStatus *(*CreateSessionOptions)(OrtSessionOptions **out);                        /* 10 */
    void *slots11_18[8];
    OrtStatus *(*DisableCpuMemArena)(OrtSessionOptions *options);                       /* 19 */
    void *slots20_22[3];
    OrtStatus *(*SetSessionGraphOptimizationLevel)(OrtSessionOptions *options, int level); /* 23 */
    OrtStatus *(*SetIntraOpNumThreads)(OrtSessionOptions *options, int threads);        /* 24 */
    OrtStatus *(*SetInterOpNumThreads)(OrtSessionOptions *options, int threads);        /* 25 */
    void *slots26_29[4];
    OrtStatus *(*SessionGetInputCount)(const OrtSession *session, size_t *out);         /* 30 */
    OrtStatus *(*SessionGetOutputCount)(const OrtSession *session, size_t *out);        /* 31 */
    void *slots32_35[4];
    OrtStatus *(*SessionGetInputName)(const OrtSession *session, size_t index,
                                      OrtAllocator *allocator, char **out);             /* 36 */
    OrtStatus *(*SessionGetOutputName)(const OrtSession *session, size_t index,
                                       OrtAllocator *allocator, char **out);            /* 37 */
    void *slots38[1];
    OrtStatus *(*CreateRunOptions)(OrtRunOptions **out);                                /* 39 */
    void *slots40_45[6];
    OrtStatus *(*RunOptionsSetTerminate)(OrtRunOptions *options);                       /* 46 */
    void *slots47_48[2];
    OrtStatus *(*CreateTensorWithDataAsOrtValue)(const OrtMemoryInfo *info, void *data, size_t data_length,
                                                 const int64_t *shape, size_t shape_length,
                                                 int element_type, OrtValue **out);     /* 49 */
    void *slots50[1];
    OrtStatus *(*GetTensorMutableData)(OrtValue *value, void **out);                    /* 51 */
    void *slots52_59[8];
    OrtStatus *(*GetTensorElementType)(const OrtTensorTypeAndShapeInfo *info, int *out); /* 60 */
    void *slots61_63[3];
    OrtStatus *(*GetTensorShapeElementCount)(const OrtTensorTypeAndShapeInfo *info, size_t *out); /* 64 */
    OrtStatus *(*GetTensorTypeAndShape)(const OrtValue *value, OrtTensorTypeAndShapeInfo **out); /* 65 */
    void *slots66_68[3];
    OrtStatus *(*CreateCpuMemoryInfo)(int allocator_type, int mem_type, OrtMemoryInfo **out); /* 69 */
    void *slots70_75[6];
    OrtStatus *(*AllocatorFree)(OrtAllocator *allocator, void *pointer);                /* 76 */
    void *slots77[1];
    OrtStatus *(*GetAllocatorWithDefaultOptions)(OrtAllocator **out);                   /* 78 */
    void *slots79_91[13];
    void (*ReleaseEnv)(OrtEnv *);                                                       /* 92 */
    void (*ReleaseStatus)(OrtStatus *);                                                 /* 93 */
    void (*ReleaseMemoryInfo)(OrtMemoryInfo *);                                         /* 94 */
    void (*ReleaseSession)(OrtSession *);                                               /* 95 */
    void (*ReleaseValue)(OrtValue *);                                                   /* 96 */
    void (*ReleaseRunOptions)(OrtRunOptions *);                                         /* 97 */
    void *slots98[1];
    void (*ReleaseTensorTypeAndShapeInfo)(OrtTensorTypeAndShapeInfo *);                 /* 99 */
    void (*ReleaseSessionOptions)(OrtSessionOptions *);                                 /* 100 */
    void *slots101_164[64];
    /* Run options by key ("memory.enable_memory_arena_shrinkage"); older than API version 11. */
    OrtStatus *(*AddRunConfigEntry)(OrtRunOptions *options, const char *key, const char *value); /* 165 */
} LectorOrtApi;

/* The API version asked for: old enough for Debian 13's 1.21 (and the PyPI wheel's 1.32). */
#define LECTOR_ORT_API_VERSION 16

/* dlopen `path` (a file, or a soname the loader searches), find OrtGetApiBase and ask for
 * LECTOR_ORT_API_VERSION. On success returns the table and sets *version (the library's own
 * version string); the library stays loaded for the life of the process (ONNX Runtime is not
 * safe to unload). On failure returns NULL with the reason in `error`. */
const LectorOrtApi *lector_ort_open(const char *path, const char **version, char *error, size_t error_size);
