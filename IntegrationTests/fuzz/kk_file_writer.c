/* SPDX-License-Identifier: MIT */
/*
 * kk_file_writer.c — writes a keyring file through the library's C ABI
 * (kk_open_file with KK_MASTER_SECRET), for the fuzz seeds of
 * kk_fuzz_file.c (gen_corpus_file.sh) and for the GLib cross-check of our
 * GVariant encoding (glib_check.py).
 *
 *   kk_file_writer PATH MASTER OP...
 *
 *   set SERVICE ACCOUNT VALUE     kk_set, then kk_get must read VALUE back
 *   remove SERVICE ACCOUNT        kk_remove
 *   login SERVER ACCOUNT PROTOCOL PORT VALUE
 *                                 kk_server_login_set ("-": no protocol)
 *   expect STATUS                 kk_open_file must return STATUS (a number,
 *                                 e.g. -10); the first op, before any other
 *
 * VALUE is text as given; "x:HEX" the bytes of HEX; "n:COUNT" COUNT bytes
 * of the pattern 0x00 0x01 ... 0xFF 0x00 ... Exits 0 when every call did
 * what it should, 1 otherwise (with the library's message on stderr).
 */
#include <keychainkit.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void die(const char *what, kk_status st)
{
    fprintf(stderr, "kk_file_writer: %s: status %d: %s\n", what, (int)st, kk_error_message());
    exit(1);
}

/** Decodes VALUE into a new buffer (see the usage); *len its length. */
static unsigned char *value_of(const char *spec, size_t *len)
{
    unsigned char *buf;
    if (strncmp(spec, "x:", 2) == 0) {
        const char *hex = spec + 2;
        size_t n = strlen(hex) / 2;
        buf = malloc(n + 1);
        if (buf == NULL) exit(2);
        for (size_t i = 0; i < n; i++) {
            unsigned byte;
            if (sscanf(hex + 2 * i, "%2x", &byte) != 1) {
                fprintf(stderr, "kk_file_writer: bad hex value %s\n", spec);
                exit(2);
            }
            buf[i] = (unsigned char)byte;
        }
        *len = n;
    } else if (strncmp(spec, "n:", 2) == 0) {
        size_t n = strtoul(spec + 2, NULL, 10);
        buf = malloc(n + 1);
        if (buf == NULL) exit(2);
        for (size_t i = 0; i < n; i++) buf[i] = (unsigned char)i;
        *len = n;
    } else {
        *len = strlen(spec);
        buf = malloc(*len + 1);
        if (buf == NULL) exit(2);
        memcpy(buf, spec, *len);
    }
    return buf;
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: kk_file_writer PATH MASTER OP...\n");
        return 2;
    }
    int arg = 3;
    kk_status want_open = KK_OK;
    if (argc > 4 && strcmp(argv[3], "expect") == 0) {
        want_open = (kk_status)atoi(argv[4]);
        arg = 5;
    }
    kk_file_options options = KK_FILE_OPTIONS_INIT;
    options.path = argv[1];
    options.master_source = KK_MASTER_SECRET;
    options.master = (const unsigned char *)argv[2];
    options.master_len = strlen(argv[2]);
    kk_keychain *kc = NULL;
    kk_status st = kk_open_file(&options, &kc);
    if (st != want_open) die("kk_open_file", st);
    if (st != KK_OK) return 0;

    while (arg < argc) {
        const char *op = argv[arg];
        if (strcmp(op, "set") == 0 && arg + 3 < argc) {
            size_t len;
            unsigned char *value = value_of(argv[arg + 3], &len);
            if ((st = kk_set(kc, argv[arg + 1], argv[arg + 2], value, len)) != KK_OK) die("kk_set", st);
            char *back = NULL;
            size_t back_len = 0;
            if ((st = kk_get(kc, argv[arg + 1], argv[arg + 2], &back, &back_len)) != KK_OK) die("kk_get", st);
            if (back_len != len || memcmp(back, value, len) != 0) {
                fprintf(stderr, "kk_file_writer: %s/%s read back other bytes\n", argv[arg + 1], argv[arg + 2]);
                return 1;
            }
            kk_secret_free(back);
            free(value);
            arg += 4;
        } else if (strcmp(op, "remove") == 0 && arg + 2 < argc) {
            if ((st = kk_remove(kc, argv[arg + 1], argv[arg + 2])) != KK_OK) die("kk_remove", st);
            arg += 3;
        } else if (strcmp(op, "login") == 0 && arg + 5 < argc) {
            kk_server_login login = KK_SERVER_LOGIN_INIT;
            login.server = argv[arg + 1];
            login.account = argv[arg + 2];
            login.protocol = strcmp(argv[arg + 3], "-") == 0 ? NULL : argv[arg + 3];
            login.port = (unsigned)atoi(argv[arg + 4]);
            size_t len;
            unsigned char *value = value_of(argv[arg + 5], &len);
            if ((st = kk_server_login_set(kc, &login, value, len)) != KK_OK) die("kk_server_login_set", st);
            free(value);
            arg += 6;
        } else {
            fprintf(stderr, "kk_file_writer: bad operation at '%s'\n", op);
            return 2;
        }
    }
    kk_close(kc);
    return 0;
}
