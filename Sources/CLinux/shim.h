/* Linux headers Swift's Glibc module leaves out. */
#include <sys/eventfd.h> /* the synthesis thread and the main queue wake the loop through eventfds */
#include <malloc.h>      /* mallopt: the daemon caps malloc arenas; malloc_trim */
#include <sys/prctl.h>   /* PR_SET_NAME: the speech thread's name in /proc and top -H */

/* prctl is variadic, which Swift cannot call: the calling thread's name (15 bytes at most). */
static inline int lector_name_this_thread(const char *name) {
    return prctl(PR_SET_NAME, (unsigned long) name, 0, 0, 0);
}
