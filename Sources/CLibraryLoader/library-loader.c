#include "CLibraryLoader.h"

#include <dlfcn.h>
#include <libgen.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

/* Where the stand-in `file` is: beside the program (a build tree), else in ../../lib/lector from it
 * (/usr/libexec/lector/lectord: /usr/lib/lector); LECTOR_STAND_INS=DIR looks in DIR only, and
 * LECTOR_STAND_INS=0 loads none (the real libraries, for comparison). Writes `path`; 0 if found. */
static int stand_in_path(const char *file, char *path, size_t size) {
    const char *chosen = getenv("LECTOR_STAND_INS");
    if (chosen && strcmp(chosen, "0") == 0) return -1;
    if (chosen && *chosen) {
        snprintf(path, size, "%s/%s", chosen, file);
        return access(path, R_OK);
    }
    char program[PATH_MAX];
    ssize_t length = readlink("/proc/self/exe", program, sizeof program - 1);
    if (length <= 0) return -1;
    program[length] = 0;
    const char *directory = dirname(program);
    snprintf(path, size, "%s/%s", directory, file);
    if (access(path, R_OK) == 0) return 0;
    snprintf(path, size, "%s/../../lib/lector/%s", directory, file);
    return access(path, R_OK);
}

/* The stand-in first: the loader then takes it for the library of its soname that `library`
 * needs (glibc matches a needed name against the sonames of what is loaded). Should `library`
 * need more of that one than the stand-in has, dlopen fails; without it, the real one is loaded. */
static void *open_with_stand_in(struct lector_library *library) {
    char path[PATH_MAX];
    void *stand_in = NULL;
    if (library->stand_in && stand_in_path(library->stand_in, path, sizeof path) == 0)
        stand_in = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    /* RTLD_LOCAL: nothing else binds to it by accident; never closed (as if linked). */
    void *handle = dlopen(library->soname, RTLD_NOW | RTLD_LOCAL);
    if (!handle && stand_in) {
        dlclose(stand_in);
        handle = dlopen(library->soname, RTLD_NOW | RTLD_LOCAL);
    }
    return handle;
}

static int open_locked(struct lector_library *library) {
    void *handle = open_with_stand_in(library);
    if (!handle) {
        const char *reason = dlerror();
        snprintf(library->failure, sizeof library->failure, "%s cannot be loaded (%s). Fix: apt install %s",
                 library->title, reason ? reason : "dlopen failed", library->package);
        return -1;
    }
    for (size_t i = 0; i < library->count; i++) {
        if (!(library->slots[i] = dlsym(handle, library->names[i]))) {
            snprintf(library->failure, sizeof library->failure, "%s cannot be loaded (%s has no %s: %s is needed). "
                     "Fix: apt install %s", library->title, library->soname, library->names[i], library->needs,
                     library->package);
            return -1;
        }
    }
    return 1;
}

const char *lector_library_open(struct lector_library *library) {
    int state = __atomic_load_n(&library->state, __ATOMIC_ACQUIRE);
    if (state == 0) {
        pthread_mutex_lock(&lock);
        state = library->state;
        if (state == 0) {
            state = open_locked(library);
            __atomic_store_n(&library->state, state, __ATOMIC_RELEASE);
        }
        pthread_mutex_unlock(&lock);
    }
    return state == 1 ? NULL : library->failure;
}

void lector_library_require(struct lector_library *library) {
    const char *failure = lector_library_open(library);
    if (!failure) return;
    fprintf(stderr, "lector: %s\n", failure);
    abort();
}
