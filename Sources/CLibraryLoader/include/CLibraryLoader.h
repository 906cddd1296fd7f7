/* A C library reached at run time (dlopen), never linked: opened once, when first used, with every
 * function the caller lists resolved; its functions are forwarded under their own names, hidden,
 * so an executable linked with --export-dynamic never offers them back to the library. CPulse and
 * CEspeakNG each list their functions and say which library and package they come from. */
#ifndef LECTOR_CLIBRARYLOADER_H
#define LECTOR_CLIBRARYLOADER_H

#include <stddef.h>

struct lector_library {
    const char *soname;         /* "libpulse.so.0" */
    const char *title;          /* "libpulse", for the message */
    const char *package;        /* "libpulse0": what the message tells to install */
    const char *needs;          /* "PulseAudio 15 or later": when a function is missing */
    const char *stand_in;       /* or NULL: a library of the program's, loaded first (library-loader.c: stand_in_path) */
    const char *const *names;   /* the functions, in the order of `slots` */
    void **slots;
    size_t count;
    int state;                  /* 0 untried, 1 open, -1 failed; written once, under a lock */
    char failure[512];
};

/* Opens `library` once (thread-safe): NULL when it is open, else why not, ending with the package
 * to install (the same text every time; it lives as long as the process). */
const char *lector_library_open(struct lector_library *library);

/* Reached only when a caller skipped lector_library_open and the library is missing: says so and
 * aborts, as a call into a library that is not there cannot go on. */
void lector_library_require(struct lector_library *library);

static inline void *lector_library_function(struct lector_library *library, size_t index) {
    if (__builtin_expect(__atomic_load_n(&library->state, __ATOMIC_ACQUIRE) != 1, 0)) lector_library_require(library);
    return library->slots[index];
}

/* One library per C file: LECTOR_LIBRARY_DEFINE(LIST, .soname = …, .title = …, .package = …,
 * .needs = …) defines its `struct lector_library` (`lector_library_instance`) and a forwarder for
 * each entry of LIST, R(ret, name, params, args) or V(name, params, args). The compiler checks each
 * forwarder against the library's header: a wrong parameter list is a conflicting-types error. */
#define LECTOR_LIBRARY_INDEX(ret, name, params, args) lector_index_##name,
#define LECTOR_LIBRARY_VINDEX(name, params, args) lector_index_##name,
#define LECTOR_LIBRARY_NAME(ret, name, params, args) #name,
#define LECTOR_LIBRARY_VNAME(name, params, args) #name,
#define LECTOR_LIBRARY_FORWARD(ret, name, params, args) \
    __attribute__((visibility("hidden"))) ret name params { \
        return ((__typeof__(&name))lector_library_function(&lector_library_instance, lector_index_##name)) args; }
#define LECTOR_LIBRARY_VFORWARD(name, params, args) \
    __attribute__((visibility("hidden"))) void name params { \
        ((__typeof__(&name))lector_library_function(&lector_library_instance, lector_index_##name)) args; }
#define LECTOR_LIBRARY_DEFINE(LIST, ...) \
    enum { LIST(LECTOR_LIBRARY_INDEX, LECTOR_LIBRARY_VINDEX) lector_library_count }; \
    static const char *const lector_library_names[] = { LIST(LECTOR_LIBRARY_NAME, LECTOR_LIBRARY_VNAME) }; \
    static void *lector_library_slots[lector_library_count]; \
    static struct lector_library lector_library_instance = { __VA_ARGS__, .names = lector_library_names, \
        .slots = lector_library_slots, .count = lector_library_count }; \
    LIST(LECTOR_LIBRARY_FORWARD, LECTOR_LIBRARY_VFORWARD)

#endif
