/* The main dispatch queue on sd-event. libdispatch on Linux exports these for Foundation's
 * RunLoop (CoreFoundation drives the main queue the same way): an eventfd that becomes readable
 * when work is queued, and the call that runs it. */
#include "CMainQueue.h"

extern int _dispatch_get_main_queue_handle_4CF(void);
extern void _dispatch_main_queue_callback_4CF(void *msg);

int lector_main_queue_handle(void) { return _dispatch_get_main_queue_handle_4CF(); }
void lector_main_queue_drain(void) { _dispatch_main_queue_callback_4CF(0); }
