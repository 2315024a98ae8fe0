/* SPDX-License-Identifier: MIT */
/* GIO for the tests' administration of the private keyring
 * (Support/SecretServiceAdmin.swift). The library itself speaks sd-bus. */
#ifndef KEYCHAINKIT_TESTS_CGIO_SHIM_H
#define KEYCHAINKIT_TESTS_CGIO_SHIM_H

#include <gio/gio.h>

#endif
