/* SPDX-License-Identifier: MIT */
/* kk_* against libsecret's simple API (secret_password_*_sync), in one run,
 * against the same Secret Service, interleaved round by round (the order
 * rotates) so that machine drift hits every side. Each operation has a
 * phase of its own: reads are measured while nobody writes, writes while
 * both sides write (each write announces a change, which invalidates what
 * KeychainKit remembers of item locations).
 *
 * Phases:
 *   present        the same present item, read again and again
 *   absent         the same absent key, which KeychainKit has already seen
 *                  absent: its cached absence, confirmed by one round trip
 *                  to the bus daemon (the freshness barrier); alongside, one
 *                  bare round trip (GetId to org.freedesktop.DBus) made with
 *                  sd-bus directly, so the barrier's own cost is visible
 *   absent, never seen   a distinct key each round that neither side has
 *                  seen: a search each time
 *   replace        writes over the present item; alongside, the sending of
 *                  one signal like the announcement KeychainKit makes after
 *                  an update in place (its added cost)
 *   new            a distinct new account each round, on each side (checked
 *                  afterwards, outside the timed region, that every one of
 *                  them exists)
 *   remove         removes the accounts of the "new" phase (checked
 *                  afterwards that none is left)
 *   sessions       what the service spends opening a transfer session (a
 *                  new process's first operation): the encrypted one
 *                  (its side of the Diffie-Hellman exchange, our public
 *                  key fixed) against a plain one, each closed at once
 *                  (the Close, a short call, counted on both sides)
 * Usage: bench_secret_service ROUNDS */
#include "bench_common.h"

#define SECRET_API_SUBJECT_TO_CHANGE 1
#include <keychainkit.h>
#include <libsecret/secret.h>
#include <string.h>
#include <systemd/sd-bus.h>

/* libsecret addressing the same items as KeychainKit: service + username,
 * without matching xdg:schema. */
static const SecretSchema schema = {
    "io.github.keychainkit.Password", SECRET_SCHEMA_DONT_MATCH_NAME,
    {{"service", SECRET_SCHEMA_ATTRIBUTE_STRING}, {"username", SECRET_SCHEMA_ATTRIBUTE_STRING}, {NULL, 0}},
    0, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
};

static char service[64];
static kk_keychain *kc;
static sd_bus *bus;  /* the bare sd-bus connection, for the round trip alone */

/* The account of a round: "PREFIX-ROUND". */
static const char *account(const char *prefix, int round) {
    static char buffer[64];
    snprintf(buffer, sizeof buffer, "%s-%d", prefix, round);
    return buffer;
}

static void kk_get_expect(const char *acct, kk_status want) {
    char *value = NULL;
    kk_status st = kk_get(kc, service, acct, &value, NULL);
    BENCH_REQUIRE(st == want, "kk_get");
    BENCH_REQUIRE(want != KK_OK || strcmp(value, "benchmark-value") == 0, "kk_get value");
    kk_secret_free(value);
}

static void ls_get_expect(const char *acct, int want_present) {
    GError *error = NULL;
    gchar *value = secret_password_lookup_sync(&schema, NULL, &error, "service", service, "username", acct, NULL);
    BENCH_REQUIRE(error == NULL && (value != NULL) == want_present, "secret_password_lookup_sync");
    BENCH_REQUIRE(!want_present || strcmp(value, "benchmark-value") == 0, "secret_password_lookup_sync value");
    secret_password_free(value);
}

static void kk_set_account(const char *acct) {
    BENCH_REQUIRE(kk_set(kc, service, acct, "benchmark-value", 15) == KK_OK, "kk_set");
}

static void ls_set_account(const char *acct) {
    GError *error = NULL;
    gboolean ok = secret_password_store_sync(&schema, SECRET_COLLECTION_DEFAULT, "bench", "benchmark-value",
                                             NULL, &error, "service", service, "username", acct, NULL);
    BENCH_REQUIRE(ok && error == NULL, "secret_password_store_sync");
}

static void bus_round_trip(void) {
    sd_bus_error error = SD_BUS_ERROR_NULL;
    sd_bus_message *reply = NULL;
    int r = sd_bus_call_method(bus, "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus",
                               "GetId", &error, &reply, "");
    BENCH_REQUIRE(r >= 0, "sd_bus_call_method GetId");
    const char *id = NULL;
    BENCH_REQUIRE(sd_bus_message_read(reply, "s", &id) >= 0 && id != NULL && id[0] != '\0', "GetId reply");
    sd_bus_message_unref(reply);
    sd_bus_error_free(&error);
}

/* OpenSession of `algorithm` with `input` (its public key for the DH
 * algorithm), then Close of the session: what the service spends on a new
 * connection's transfer session. */
static void open_session(const char *algorithm, const char *signature, const void *input, size_t length) {
    sd_bus_message *call = NULL, *reply = NULL;
    sd_bus_error error = SD_BUS_ERROR_NULL;
    BENCH_REQUIRE(sd_bus_message_new_method_call(bus, &call, "org.freedesktop.secrets", "/org/freedesktop/secrets",
                                                 "org.freedesktop.Secret.Service", "OpenSession") >= 0, "OpenSession call");
    BENCH_REQUIRE(sd_bus_message_append(call, "s", algorithm) >= 0 && sd_bus_message_open_container(call, 'v', signature) >= 0,
                  "OpenSession arguments");
    if (signature[0] == 'a') BENCH_REQUIRE(sd_bus_message_append_array(call, 'y', input, length) >= 0, "public key");
    else BENCH_REQUIRE(sd_bus_message_append(call, "s", (const char *)input) >= 0, "plain input");
    BENCH_REQUIRE(sd_bus_message_close_container(call) >= 0, "OpenSession arguments");
    BENCH_REQUIRE(sd_bus_call(bus, call, 0, &error, &reply) >= 0, "OpenSession");
    const char *path = NULL;
    BENCH_REQUIRE(sd_bus_message_skip(reply, "v") >= 0 && sd_bus_message_read(reply, "o", &path) >= 0, "OpenSession reply");
    BENCH_REQUIRE(sd_bus_call_method(bus, "org.freedesktop.secrets", path, "org.freedesktop.Secret.Session", "Close",
                                     NULL, NULL, "") >= 0, "Session.Close");
    sd_bus_message_unref(reply);
    sd_bus_message_unref(call);
    sd_bus_error_free(&error);
}

/* The measured operations; each takes the round number. */
static void session_dh(int round) {
    (void)round;
    unsigned char generator[128] = {0}; /* 2, the group's generator: a valid public key */
    generator[127] = 2;
    open_session("dh-ietf1024-sha256-aes128-cbc-pkcs7", "ay", generator, sizeof generator);
}
static void session_plain(int round) { (void)round; open_session("plain", "s", "", 0); }
static void kk_get_present(int round) { (void)round; kk_get_expect("present", KK_OK); }
static void ls_get_present(int round) { (void)round; ls_get_expect("present", 1); }
static void kk_get_absent(int round) { (void)round; kk_get_expect("absent", KK_ENOTFOUND); }
static void ls_get_absent(int round) { (void)round; ls_get_expect("absent", 0); }
static void bare_round_trip(int round) { (void)round; bus_round_trip(); }
/* What KeychainKit adds to an in-place update: its SecretChanged announcement. */
static void signal_send(int round) {
    (void)round;
    BENCH_REQUIRE(sd_bus_emit_signal(bus, "/io/github/keychainkit", "io.github.keychainkit.Changes", "SecretChanged",
                                     "o", "/org/freedesktop/secrets/collection/login/1") >= 0, "sd_bus_emit_signal");
}
static void kk_get_never_seen(int round) { kk_get_expect(account("never-kk", round), KK_ENOTFOUND); }
static void ls_get_never_seen(int round) { ls_get_expect(account("never-ls", round), 0); }
static void kk_set_replace(int round) { (void)round; kk_set_account("present"); }
static void ls_set_replace(int round) { (void)round; ls_set_account("present"); }
static void kk_set_new(int round) { kk_set_account(account("new-kk", round)); }
static void ls_set_new(int round) { ls_set_account(account("new-ls", round)); }
static void kk_remove_new(int round) {
    BENCH_REQUIRE(kk_remove(kc, service, account("new-kk", round)) == KK_OK, "kk_remove");
}
static void ls_remove_new(int round) {
    GError *error = NULL;
    gboolean removed = secret_password_clear_sync(&schema, NULL, &error, "service", service,
                                                  "username", account("new-ls", round), NULL);
    BENCH_REQUIRE(removed && error == NULL, "secret_password_clear_sync");
}

typedef struct {
    void (*op)(int round);
    bench_samples samples;
} side;

static side make_side(const char *name, void (*op)(int), int rounds) {
    return (side){op, bench_samples_new("secret-service", name, (size_t)rounds)};
}

/* One phase: every round runs each side once, timed, starting with a
 * different side each round (rotation), then prints and frees the samples. */
static void phase(int rounds, side *sides, size_t count) {
    for (int round = 0; round < rounds; round++) {
        for (size_t k = 0; k < count; k++) {
            side *s = &sides[((size_t)round + k) % count];
            uint64_t t0 = bench_now_ns();
            s->op(round);
            bench_add(&s->samples, bench_now_ns() - t0);
        }
    }
    for (size_t k = 0; k < count; k++) bench_report(&sides[k].samples);
}

/* How many accounts of the service start with `prefix`-. */
static int count_accounts(const char *prefix) {
    char **accounts = NULL;
    size_t n = 0;
    BENCH_REQUIRE(kk_list(kc, service, &accounts, &n) == KK_OK, "kk_list");
    size_t length = strlen(prefix);
    int found = 0;
    for (size_t i = 0; i < n; i++) {
        if (strncmp(accounts[i], prefix, length) == 0 && accounts[i][length] == '-') found++;
    }
    kk_list_free(accounts);
    return found;
}

int main(int argc, char **argv) {
    int rounds = argc > 1 ? atoi(argv[1]) : 200;
    BENCH_REQUIRE(rounds > 0, "ROUNDS argument");
    snprintf(service, sizeof service, "kkbench.%d", (int)getpid());
    BENCH_REQUIRE(kk_open_secret_service(&kc) == KK_OK, "kk_open_secret_service");
    BENCH_REQUIRE(sd_bus_open_user(&bus) >= 0, "sd_bus_open_user");

    /* Warm up: connections, sessions, the present item, and the absent key,
     * which KeychainKit now remembers as absent. */
    kk_set_account("present");
    ls_get_expect("present", 1);
    kk_get_expect("present", KK_OK);
    ls_get_expect("absent", 0);
    kk_get_expect("absent", KK_ENOTFOUND);
    bus_round_trip();

    side present[] = {
        make_side("kk_get present", kk_get_present, rounds),
        make_side("libsecret lookup present", ls_get_present, rounds),
    };
    phase(rounds, present, 2);

    side absent[] = {
        make_side("kk_get absent", kk_get_absent, rounds),
        make_side("libsecret lookup absent", ls_get_absent, rounds),
        make_side("sd-bus GetId round trip", bare_round_trip, rounds),
    };
    phase(rounds, absent, 3);

    side never_seen[] = {
        make_side("kk_get absent, never seen", kk_get_never_seen, rounds),
        make_side("libsecret lookup absent, never seen", ls_get_never_seen, rounds),
    };
    phase(rounds, never_seen, 2);

    /* Every process's first operation opens a transfer session: the
     * service's share of it (Close included, on both sides). */
    side sessions[] = {
        make_side("OpenSession, dh-ietf1024 (service side)", session_dh, rounds),
        make_side("OpenSession, plain", session_plain, rounds),
    };
    phase(rounds, sessions, 2);

    side replace[] = {
        make_side("kk_set replace", kk_set_replace, rounds),
        make_side("libsecret store replace", ls_set_replace, rounds),
        make_side("sd-bus signal send", signal_send, rounds),
    };
    phase(rounds, replace, 3);

    side created[] = {
        make_side("kk_set new", kk_set_new, rounds),
        make_side("libsecret store new", ls_set_new, rounds),
    };
    phase(rounds, created, 2);
    BENCH_REQUIRE(count_accounts("new-kk") == rounds, "kk_set new created an item each round");
    BENCH_REQUIRE(count_accounts("new-ls") == rounds, "libsecret store new created an item each round");

    side removed[] = {
        make_side("kk_remove", kk_remove_new, rounds),
        make_side("libsecret clear", ls_remove_new, rounds),
    };
    phase(rounds, removed, 2);
    BENCH_REQUIRE(count_accounts("new-kk") == 0 && count_accounts("new-ls") == 0, "every new item removed");

    kk_remove(kc, service, "present");
    kk_close(kc);
    sd_bus_flush_close_unref(bus);
    return 0;
}
