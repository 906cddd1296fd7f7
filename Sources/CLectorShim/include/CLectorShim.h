#pragma once
#include <systemd/sd-bus.h>
#include <systemd/sd-event.h>
#include <pulse/pulseaudio.h>
