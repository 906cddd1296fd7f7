/* The main dispatch queue, driven by the sd-event loop: watch the handle (an eventfd: read it
 * first), then drain. `Task { @MainActor in }` and DispatchQueue.main then run on the loop. */
#pragma once

int lector_main_queue_handle(void);
void lector_main_queue_drain(void);
