#include "CLibraryLoader.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static int open_locked(struct lector_library *library) {
    /* RTLD_LOCAL: nothing else binds to it by accident; never closed (as if linked). */
    void *handle = dlopen(library->soname, RTLD_NOW | RTLD_LOCAL);
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
