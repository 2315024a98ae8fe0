/* SPDX-License-Identifier: MIT */
/* sd-bus, the D-Bus client of libsystemd (basu and elogind ship the same
 * API), as Swift sees it. Swift calls its non-variadic functions only
 * (sd_bus_message_append_basic, sd_bus_message_open_container, ...). */
#ifndef KEYCHAINKIT_CSDBUS_SHIM_H
#define KEYCHAINKIT_CSDBUS_SHIM_H

#include <systemd/sd-bus.h>

#endif
