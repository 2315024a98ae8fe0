/* SPDX-License-Identifier: MIT */
/*
 * server_floor.c — the floor of a Secret Service server for a lookup: the
 * least any server does to answer libsecret's and secret-tool's lookups,
 * and nothing else. bench_server.c measures keychainkitd and gnome-keyring
 * against it with the same clients, in the same run (make bench).
 *
 *     kk_server_floor
 *
 * One thread, sd-bus, on the session bus as org.freedesktop.secrets. It
 * answers OpenSession (plain, or dh-ietf1024-sha256-aes128-cbc-pkcs7 with
 * the library's own DH and AES code, Sources/CKeychainKitCrypto), the
 * Service's GetAll (one collection), SearchItems and GetSecrets; every
 * other call is UnknownMethod. It stores nothing: the item of account
 * "uN" is number N, and its secret is "value-N" (bench_server.c's items),
 * so that the clients' results are checked as against a real server. No
 * index, no file, no lock, no check of the caller: what a lookup costs a
 * server that does only the protocol.
 */
#define _POSIX_C_SOURCE 200809L

#include "keychainkit_crypto.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <systemd/sd-bus.h>

#define ROOT "/org/freedesktop/secrets"
#define COLLECTION ROOT "/collection/login"
#define SESSION ROOT "/session/1"

/** The session's AES key made ready once, as a server keeps it, when the
 *  last OpenSession was DH (one client); NULL: plain. */
static keychainkit_aes_cipher *cipher;

/** OpenSession: plain, or DH (the reply carries our public key). */
static int open_session(sd_bus_message *call, sd_bus_message *reply)
{
    const char *algorithm = NULL;
    int r = sd_bus_message_read(call, "s", &algorithm);
    if (r < 0) return r;
    keychainkit_aes_cipher_free(cipher);
    cipher = NULL;
    if (strcmp(algorithm, "plain") == 0)
        return sd_bus_message_append(reply, "vo", "s", "", SESSION);
    const void *peer = NULL;
    size_t peer_length = 0;
    uint8_t public_key[KEYCHAINKIT_DH_BYTES], key[KEYCHAINKIT_AES_KEY_BYTES];
    keychainkit_dh_keypair *pair = keychainkit_dh_keypair_new();
    r = sd_bus_message_enter_container(call, 'v', "ay");
    if (r >= 0) r = sd_bus_message_read_array(call, 'y', &peer, &peer_length);
    if (r >= 0 && (pair == NULL || keychainkit_dh_public_key(pair, public_key) != sizeof public_key ||
                   keychainkit_dh_derive_server_key(pair, peer, peer_length, key) != 0))
        r = -EINVAL;
    keychainkit_dh_keypair_free(pair);
    if (r >= 0 && (cipher = keychainkit_aes_cipher_new(key)) == NULL) r = -ENOMEM;
    keychainkit_wipe(key, sizeof key);
    if (r >= 0) r = sd_bus_message_open_container(reply, 'v', "ay");
    if (r >= 0) r = sd_bus_message_append_array(reply, 'y', public_key, sizeof public_key);
    if (r >= 0) r = sd_bus_message_close_container(reply);
    if (r >= 0) r = sd_bus_message_append(reply, "o", SESSION);
    return r;
}

/** SearchItems {…, username: uN, …}: item N, unlocked; no other item. */
static int search_items(sd_bus_message *call, sd_bus_message *reply)
{
    long number = -1;
    const char *name = NULL, *value = NULL;
    int r = sd_bus_message_enter_container(call, 'a', "{ss}");
    while (r >= 0 && (r = sd_bus_message_read(call, "{ss}", &name, &value)) > 0)
        if (strcmp(name, "username") == 0 && value[0] == 'u') number = strtol(value + 1, NULL, 10);
    if (r < 0) return r;
    char path[64];
    snprintf(path, sizeof path, COLLECTION "/%ld", number);
    r = number >= 0 ? sd_bus_message_append(reply, "ao", 1, path) : sd_bus_message_append(reply, "ao", 0);
    if (r >= 0) r = sd_bus_message_append(reply, "ao", 0);
    return r;
}

/** GetSecrets: "value-N" for each item N asked for, under the session. */
static int get_secrets(sd_bus_message *call, sd_bus_message *reply)
{
    const char *path = NULL;
    int r = sd_bus_message_enter_container(call, 'a', "o");
    if (r >= 0) r = sd_bus_message_open_container(reply, 'a', "{o(oayays)}");
    while (r >= 0 && (r = sd_bus_message_read(call, "o", &path)) > 0) {
        const char *number = strrchr(path, '/');
        char secret[48];
        int length = snprintf(secret, sizeof secret, "value-%s", number != NULL ? number + 1 : "");
        uint8_t iv[KEYCHAINKIT_AES_BLOCK_BYTES], sealed[64];
        long sealed_length = cipher != NULL
            ? keychainkit_aes_cipher_encrypt(cipher, (const uint8_t *)secret, (size_t)length, iv, sealed) : 0;
        if (sealed_length < 0) return -EIO;
        r = sd_bus_message_open_container(reply, 'e', "o(oayays)");
        if (r >= 0) r = sd_bus_message_append(reply, "o", path);
        if (r >= 0) r = sd_bus_message_open_container(reply, 'r', "oayays");
        if (r >= 0) r = sd_bus_message_append(reply, "o", SESSION);
        if (r >= 0) r = sd_bus_message_append_array(reply, 'y', iv, cipher != NULL ? sizeof iv : 0);
        if (r >= 0) r = cipher != NULL ? sd_bus_message_append_array(reply, 'y', sealed, (size_t)sealed_length)
                                  : sd_bus_message_append_array(reply, 'y', secret, (size_t)length);
        if (r >= 0) r = sd_bus_message_append(reply, "s", "text/plain");
        if (r >= 0) r = sd_bus_message_close_container(reply);
        if (r >= 0) r = sd_bus_message_close_container(reply);
    }
    if (r >= 0) r = sd_bus_message_close_container(reply);
    return r;
}

/** Every call to an object under ROOT. */
static int answer(sd_bus_message *call, void *userdata, sd_bus_error *error)
{
    (void)userdata, (void)error;
    const char *member = sd_bus_message_get_member(call);
    int (*fill)(sd_bus_message *, sd_bus_message *) = NULL;
    if (member == NULL) return 0;
    if (strcmp(member, "OpenSession") == 0) fill = open_session;
    else if (strcmp(member, "SearchItems") == 0) fill = search_items;
    else if (strcmp(member, "GetSecrets") == 0) fill = get_secrets;
    else if (strcmp(member, "GetAll") != 0)
        return sd_bus_reply_method_errorf(call, SD_BUS_ERROR_UNKNOWN_METHOD, "%s is not served here", member);
    sd_bus_message *reply = NULL;
    int r = sd_bus_message_new_method_return(call, &reply);
    if (r >= 0) r = fill != NULL ? fill(call, reply) : sd_bus_message_append(reply, "a{sv}", 1, "Collections", "ao", 1, COLLECTION);
    if (r >= 0) r = sd_bus_send(NULL, reply, NULL);
    sd_bus_message_unref(reply);
    if (r < 0) return sd_bus_reply_method_errorf(call, SD_BUS_ERROR_INVALID_ARGS, "cannot answer %s (%d)", member, r);
    return 1;
}

int main(void)
{
    sd_bus *bus = NULL;
    int r = sd_bus_open_user(&bus);
    if (r >= 0) r = sd_bus_add_fallback(bus, NULL, ROOT, answer, NULL);
    if (r >= 0) r = sd_bus_request_name(bus, "org.freedesktop.secrets", 0);
    if (r < 0) {
        fprintf(stderr, "kk_server_floor: cannot serve org.freedesktop.secrets (%d)\n", r);
        return 2;
    }
    while ((r = sd_bus_process(bus, NULL)) >= 0)
        if (r == 0 && sd_bus_wait(bus, UINT64_MAX) < 0) break;
    return 0;
}
