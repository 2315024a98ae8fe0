/* SPDX-License-Identifier: MIT */
/* Many secrets at once, in a keyring of over a thousand items, against
 * libsecret's simple API, interleaved round by round (the order rotates):
 *
 *   100 cold reads   the same 100 accounts of one service, read
 *                    - by kk_get_many on a new handle each round (connected
 *                      beforehand, outside the timed region), one batch (one
 *                      search of the service, its items' attributes asked
 *                      together, one GetSecrets);
 *                    - by 100 kk_get on a handle that knows nothing of them
 *                      (a new handle each round, connected beforehand,
 *                      outside the timed region): a search and a GetSecret
 *                      each;
 *                    - by 100 secret_password_lookup_sync.
 *                    Every value is checked.
 *   100 of 1,000     100 accounts spread over the service of LISTED items,
 *                    read by kk_get_many on a new handle (connected, as
 *                    above) and on one that read them before, and by 100
 *                    secret_password_lookup_sync: a batch must cost the
 *                    request, not the service.
 *   listing          the accounts of a service of LISTED items: kk_list
 *                    against secret_password_search_sync (SECRET_SEARCH_ALL,
 *                    no secrets) and each item's username attribute; both
 *                    counted.
 *
 * The keyring holds LISTED + 100 items (created once, outside the timed
 * regions, in the default collection; removed at the end).
 * Usage: bench_batch ROUNDS LISTED */
#include "bench_common.h"

#define SECRET_API_SUBJECT_TO_CHANGE 1
#include <keychainkit.h>
#include <libsecret/secret.h>
#include <string.h>

enum { BATCH = 100 };

static const SecretSchema schema = {
    "io.github.keychainkit.Password", SECRET_SCHEMA_DONT_MATCH_NAME,
    {{"service", SECRET_SCHEMA_ATTRIBUTE_STRING}, {"username", SECRET_SCHEMA_ATTRIBUTE_STRING}, {NULL, 0}},
    0, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
};

static char batch_service[64], listed_service[64];
static char names[BATCH][32];
static const char *accounts[BATCH];
static char values[BATCH][48];
static kk_keychain *kc;
static int listed;

static kk_keychain *cold; /* a new handle each round, connected, knowing none of the accounts */

/* kk_get_many of `names` of `service` through `handle`, each value checked
 * (`want` NULL: each name's own value). */
static void get_many_checked(kk_keychain *handle, const char *service, const char *const *names, const char *want) {
    char *got[BATCH];
    kk_status each[BATCH];
    BENCH_REQUIRE(kk_get_many(handle, service, names, BATCH, got, NULL, each) == KK_OK, "kk_get_many");
    for (int i = 0; i < BATCH; i++) {
        BENCH_REQUIRE(each[i] == KK_OK && strcmp(got[i], want ? want : values[i]) == 0, "kk_get_many value");
        kk_secret_free(got[i]);
    }
}

static void kk_get_many_all(int round) {
    (void)round;
    get_many_checked(cold, batch_service, accounts, NULL);
}

static void kk_get_each(int round) {
    (void)round;
    for (int i = 0; i < BATCH; i++) {
        char *got = NULL;
        BENCH_REQUIRE(kk_get(cold, batch_service, accounts[i], &got, NULL) == KK_OK, "kk_get");
        BENCH_REQUIRE(strcmp(got, values[i]) == 0, "kk_get value");
        kk_secret_free(got);
    }
}

/* secret_password_lookup_sync of each of `names` of `service`, each value
 * checked as in get_many_checked. */
static void lookups_checked(const char *service, const char *const *names, const char *want) {
    for (int i = 0; i < BATCH; i++) {
        GError *error = NULL;
        gchar *got = secret_password_lookup_sync(&schema, NULL, &error, "service", service, "username", names[i], NULL);
        BENCH_REQUIRE(error == NULL && got != NULL && strcmp(got, want ? want : values[i]) == 0,
                      "secret_password_lookup_sync");
        secret_password_free(got);
    }
}

static void ls_lookup_each(int round) {
    (void)round;
    lookups_checked(batch_service, accounts, NULL);
}

static char spread[BATCH][32]; /* BATCH accounts spread over the listed service */
static const char *spread_accounts[BATCH];

static void kk_get_many_spread(int round) {
    (void)round;
    get_many_checked(cold, listed_service, spread_accounts, "listed-value");
}

/* The same batch on the handle that read it before: the items' locations
 * it remembers, kept current by the service's change signals. */
static void kk_get_many_spread_warm(int round) {
    (void)round;
    get_many_checked(kc, listed_service, spread_accounts, "listed-value");
}

static void ls_lookup_spread(int round) {
    (void)round;
    lookups_checked(listed_service, spread_accounts, "listed-value");
}

static void kk_list_all(int round) {
    (void)round;
    char **found = NULL;
    size_t n = 0;
    BENCH_REQUIRE(kk_list(kc, listed_service, &found, &n) == KK_OK && (int)n == listed, "kk_list");
    kk_list_free(found);
}

static void ls_search_all(int round) {
    (void)round;
    GError *error = NULL;
    GList *items = secret_password_search_sync(&schema, SECRET_SEARCH_ALL, NULL, &error, "service", listed_service, NULL);
    BENCH_REQUIRE(error == NULL, "secret_password_search_sync");
    int n = 0;
    for (GList *l = items; l != NULL; l = l->next) {
        GHashTable *attributes = secret_retrievable_get_attributes(l->data);
        if (g_hash_table_lookup(attributes, "username") != NULL) n++;
        g_hash_table_unref(attributes);
    }
    g_list_free_full(items, g_object_unref);
    BENCH_REQUIRE(n == listed, "secret_password_search_sync found every item");
}

typedef struct {
    void (*op)(int round);
    void (*before)(void); /* untimed, before each run of op */
    void (*after)(void);
    bench_samples samples;
} side;

static void open_cold(void) {
    BENCH_REQUIRE(kk_open_secret_service(&cold) == KK_OK, "kk_open_secret_service");
    /* Connected (a session opened) on a key of another service. */
    BENCH_REQUIRE(kk_exists(cold, listed_service, "connect") == KK_ENOTFOUND, "kk_exists");
}

static void close_cold(void) {
    kk_close(cold);
    cold = NULL;
}

static void phase(int rounds, side *sides, size_t count) {
    for (int round = 0; round < rounds; round++) {
        for (size_t k = 0; k < count; k++) {
            side *s = &sides[((size_t)round + k) % count];
            if (s->before) s->before();
            uint64_t t0 = bench_now_ns();
            s->op(round);
            bench_add(&s->samples, bench_now_ns() - t0);
            if (s->after) s->after();
        }
    }
    for (size_t k = 0; k < count; k++) bench_report(&sides[k].samples);
}

int main(int argc, char **argv) {
    int rounds = argc > 1 ? atoi(argv[1]) : 20;
    listed = argc > 2 ? atoi(argv[2]) : 1000;
    BENCH_REQUIRE(rounds > 0 && listed > 0, "ROUNDS and LISTED arguments");
    snprintf(batch_service, sizeof batch_service, "kkbench.batch.%d", (int)getpid());
    snprintf(listed_service, sizeof listed_service, "kkbench.listed.%d", (int)getpid());
    BENCH_REQUIRE(kk_open_secret_service(&kc) == KK_OK, "kk_open_secret_service");

    for (int i = 0; i < BATCH; i++) {
        snprintf(names[i], sizeof names[i], "account-%03d", i);
        snprintf(values[i], sizeof values[i], "value of account %d", i);
        accounts[i] = names[i];
        BENCH_REQUIRE(kk_set(kc, batch_service, names[i], values[i], strlen(values[i])) == KK_OK, "kk_set");
    }
    for (int i = 0; i < listed; i++) {
        char name[32];
        snprintf(name, sizeof name, "listed-%05d", i);
        BENCH_REQUIRE(kk_set(kc, listed_service, name, "listed-value", 12) == KK_OK, "kk_set listed");
    }
    for (int i = 0; i < BATCH; i++) {
        snprintf(spread[i], sizeof spread[i], "listed-%05d", i * listed / BATCH);
        spread_accounts[i] = spread[i];
    }
    ls_lookup_each(0); /* libsecret's service connection and session, warmed */

    side reads[] = {
        {kk_get_many_all, open_cold, close_cold, bench_samples_new("batch", "kk_get_many, 100 accounts", (size_t)rounds)},
        {kk_get_each, open_cold, close_cold, bench_samples_new("batch", "kk_get x100, cold", (size_t)rounds)},
        {ls_lookup_each, NULL, NULL, bench_samples_new("batch", "libsecret lookup x100", (size_t)rounds)},
    };
    phase(rounds, reads, 3);

    side part[] = {
        {kk_get_many_spread, open_cold, close_cold,
         bench_samples_new("batch", "kk_get_many, 100 of a service of many", (size_t)rounds)},
        {kk_get_many_spread_warm, NULL, NULL,
         bench_samples_new("batch", "kk_get_many, 100 of a service of many, warm handle", (size_t)rounds)},
        {ls_lookup_spread, NULL, NULL, bench_samples_new("batch", "libsecret lookup x100, service of many", (size_t)rounds)},
    };
    kk_get_many_spread_warm(0); /* the warm handle has read them once */
    phase(rounds, part, 3);

    side listing[] = {
        {kk_list_all, NULL, NULL, bench_samples_new("batch", "kk_list, many accounts", (size_t)rounds)},
        {ls_search_all, NULL, NULL, bench_samples_new("batch", "libsecret search, many accounts", (size_t)rounds)},
    };
    phase(rounds, listing, 2);

    for (int i = 0; i < BATCH; i++) kk_remove(kc, batch_service, names[i]);
    for (int i = 0; i < listed; i++) {
        char name[32];
        snprintf(name, sizeof name, "listed-%05d", i);
        kk_remove(kc, listed_service, name);
    }
    kk_close(kc);
    return 0;
}
