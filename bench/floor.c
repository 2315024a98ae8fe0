/* SPDX-License-Identifier: MIT */
/*
 * floor.c — the floor of reading one secret from the Secret Service in a
 * whole process: what every correct client must do, and nothing else.
 *
 *     kk_floor SERVICE ACCOUNT
 *
 * Connects to the session bus (sd-bus), asks one call first and awaits it
 * (Peer.Ping: gnome-keyring aborts on an OpenSession at a connection's
 * start, see IntegrationTests/c/test_new_connections.c), opens the
 * encrypted transfer session (dh-ietf1024-sha256-aes128-cbc-pkcs7, with
 * the library's own DH and AES code, Sources/CKeychainKitCrypto), searches
 * the attributes `service` and `username`, reads the first unlocked item's
 * secret and prints it. No locale, no argument parsing beyond two names, no
 * fall-back: exit 0 when printed, 1 when absent, 3 when only locked items
 * match, 2 on any failure. make bench (bench_python.py) times `keychainkit
 * get` and the helpers against it as whole processes.
 */
#define _POSIX_C_SOURCE 200809L

#include "keychainkit_crypto.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <systemd/sd-bus.h>
#include <unistd.h>

#define SERVICE_NAME "org.freedesktop.secrets"
#define SERVICE_PATH "/org/freedesktop/secrets"
#define SERVICE_INTERFACE "org.freedesktop.Secret.Service"

static int failed(const char *what, int r)
{
    fprintf(stderr, "kk_floor: %s failed (%d)\n", what, r);
    return 2;
}

/** What open_session returns when the shared secret is one servers encode
 *  differently (1 in 256; see keychainkit_dh_derive_key): open another. */
#define AMBIGUOUS 4

/** OpenSession with DH: the session path into *session, the AES key into key. */
static int open_session(sd_bus *bus, char **session, uint8_t *key)
{
    keychainkit_dh_keypair *pair = keychainkit_dh_keypair_new();
    uint8_t public_key[KEYCHAINKIT_DH_BYTES];
    if (pair == NULL || keychainkit_dh_public_key(pair, public_key) != KEYCHAINKIT_DH_BYTES)
        return failed("a DH key pair", -1);
    sd_bus_message *call = NULL, *reply = NULL;
    sd_bus_error error = SD_BUS_ERROR_NULL;
    const void *peer = NULL;
    size_t peer_length = 0;
    const char *path = NULL;
    int r = sd_bus_message_new_method_call(bus, &call, SERVICE_NAME, SERVICE_PATH, SERVICE_INTERFACE, "OpenSession");
    if (r >= 0) r = sd_bus_message_append(call, "s", "dh-ietf1024-sha256-aes128-cbc-pkcs7");
    if (r >= 0) r = sd_bus_message_open_container(call, 'v', "ay");
    if (r >= 0) r = sd_bus_message_append_array(call, 'y', public_key, sizeof public_key);
    if (r >= 0) r = sd_bus_message_close_container(call);
    if (r >= 0) r = sd_bus_call(bus, call, 0, &error, &reply);
    if (r >= 0) r = sd_bus_message_enter_container(reply, 'v', "ay");
    if (r >= 0) r = sd_bus_message_read_array(reply, 'y', &peer, &peer_length);
    if (r >= 0) r = sd_bus_message_exit_container(reply);
    if (r >= 0) r = sd_bus_message_read(reply, "o", &path);
    int derived = r >= 0 ? keychainkit_dh_derive_key(pair, peer, peer_length, key) : -1;
    if (r >= 0 && derived != 0) r = derived == KEYCHAINKIT_DH_AMBIGUOUS ? AMBIGUOUS : -1;
    if (r >= 0) *session = strdup(path);
    keychainkit_dh_keypair_free(pair);
    sd_bus_message_unref(call);
    sd_bus_message_unref(reply);
    sd_bus_error_free(&error);
    if (r == AMBIGUOUS) return AMBIGUOUS;
    return r >= 0 && *session != NULL ? 0 : failed("OpenSession", r);
}

/** SearchItems {service, username}: the first unlocked path into *item
 *  (NULL when none), whether a locked item matched into *locked. */
static int search(sd_bus *bus, const char *service, const char *account, char **item, int *locked)
{
    sd_bus_message *reply = NULL;
    sd_bus_error error = SD_BUS_ERROR_NULL;
    const char *path = NULL;
    int r = sd_bus_call_method(bus, SERVICE_NAME, SERVICE_PATH, SERVICE_INTERFACE, "SearchItems", &error, &reply,
                               "a{ss}", 2, "service", service, "username", account);
    if (r >= 0) r = sd_bus_message_enter_container(reply, 'a', "o");
    if (r >= 0) r = sd_bus_message_read(reply, "o", &path);
    if (r > 0) *item = strdup(path);
    if (r == 0) { /* no unlocked item: is there a locked one? */
        r = sd_bus_message_exit_container(reply);
        if (r >= 0) r = sd_bus_message_enter_container(reply, 'a', "o");
        if (r >= 0) r = sd_bus_message_read(reply, "o", &path);
        if (r >= 0) *locked = r > 0;
    }
    sd_bus_message_unref(reply);
    sd_bus_error_free(&error);
    return r >= 0 ? 0 : failed("SearchItems", r);
}

/** Item.GetSecret: decrypts and prints the secret. */
static int print_secret(sd_bus *bus, const char *item, const char *session, const uint8_t *key)
{
    sd_bus_message *reply = NULL;
    sd_bus_error error = SD_BUS_ERROR_NULL;
    const void *iv = NULL, *ciphertext = NULL;
    size_t iv_length = 0, length = 0;
    int r = sd_bus_call_method(bus, SERVICE_NAME, item, "org.freedesktop.Secret.Item", "GetSecret", &error, &reply,
                               "o", session);
    if (r >= 0) r = sd_bus_message_enter_container(reply, 'r', "oayays");
    if (r >= 0) r = sd_bus_message_skip(reply, "o");
    if (r >= 0) r = sd_bus_message_read_array(reply, 'y', &iv, &iv_length);
    if (r >= 0) r = sd_bus_message_read_array(reply, 'y', &ciphertext, &length);
    uint8_t *plain = r >= 0 ? malloc(length + KEYCHAINKIT_AES_BLOCK_BYTES) : NULL;
    long plain_length = plain != NULL ? keychainkit_aes_decrypt(key, iv, iv_length, ciphertext, length, plain) : -1;
    if (plain_length >= 0) {
        fwrite(plain, 1, (size_t)plain_length, stdout);
        putchar('\n');
        keychainkit_wipe(plain, (size_t)plain_length);
    }
    free(plain);
    sd_bus_message_unref(reply);
    sd_bus_error_free(&error);
    return plain_length >= 0 ? 0 : failed("GetSecret", r < 0 ? r : -1);
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: kk_floor SERVICE ACCOUNT\n");
        return 2;
    }
    sd_bus *bus = NULL;
    int r = sd_bus_open_user(&bus);
    if (r < 0) return failed("connecting to the session bus", r);
    r = sd_bus_call_method(bus, SERVICE_NAME, SERVICE_PATH, "org.freedesktop.DBus.Peer", "Ping", NULL, NULL, "");
    if (r < 0) return failed("Ping", r);
    char *session = NULL, *item = NULL;
    uint8_t key[KEYCHAINKIT_AES_KEY_BYTES];
    int locked = 0;
    int status = AMBIGUOUS;
    for (int attempt = 0; attempt < 4 && status == AMBIGUOUS; attempt++) status = open_session(bus, &session, key);
    if (status == AMBIGUOUS) status = failed("OpenSession (four ambiguous key exchanges)", -1);
    if (status == 0) status = search(bus, argv[1], argv[2], &item, &locked);
    if (status == 0) status = item != NULL ? print_secret(bus, item, session, key) : locked ? 3 : 1;
    keychainkit_wipe(key, sizeof key);
    free(session);
    free(item);
    sd_bus_flush_close_unref(bus);
    return fflush(stdout) == 0 ? status : 2;
}
