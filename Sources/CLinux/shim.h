/* Linux headers Swift's Glibc module leaves out. */
#include <sys/eventfd.h> /* the synthesis thread and the main queue wake the loop through eventfds */
#include <malloc.h>      /* mallopt: the daemon caps malloc arenas; malloc_trim */
