/* kk_* against libsecret's simple API (secret_password_*_sync), in one run,
 * against the same Secret Service, interleaved round by round (the order
 * alternates) so that machine drift hits both sides. Each operation has a
 * phase of its own: reads are measured while nobody writes, writes while
 * both sides write (each write announces a change, which invalidates what
 * KeychainKit remembers of item locations).
 * Usage: bench_secret_service ROUNDS */
#include "bench_common.h"

#define SECRET_API_SUBJECT_TO_CHANGE 1
#include <keychainkit.h>
#include <libsecret/secret.h>
#include <string.h>

/* libsecret addressing the same items as KeychainKit: service + username,
 * without matching xdg:schema. */
static const SecretSchema schema = {
    "io.github.keychainkit.Password", SECRET_SCHEMA_DONT_MATCH_NAME,
    {{"service", SECRET_SCHEMA_ATTRIBUTE_STRING}, {"username", SECRET_SCHEMA_ATTRIBUTE_STRING}, {NULL, 0}},
    0, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
};

static char service[64];
static kk_keychain *kc;

static void kk_get_op(const char *account, kk_status want) {
    char *value = NULL;
    kk_status st = kk_get(kc, service, account, &value, NULL);
    BENCH_REQUIRE(st == want, "kk_get");
    kk_secret_free(value);
}

static void ls_get_op(const char *account, int want_present) {
    GError *error = NULL;
    gchar *value = secret_password_lookup_sync(&schema, NULL, &error, "service", service, "username", account, NULL);
    BENCH_REQUIRE(error == NULL && (value != NULL) == want_present, "secret_password_lookup_sync");
    secret_password_free(value);
}

static void kk_set_op(const char *account) {
    BENCH_REQUIRE(kk_set(kc, service, account, "benchmark-value", 15) == KK_OK, "kk_set");
}

static void ls_set_op(const char *account) {
    GError *error = NULL;
    gboolean ok = secret_password_store_sync(&schema, SECRET_COLLECTION_DEFAULT, "bench", "benchmark-value",
                                             NULL, &error, "service", service, "username", account, NULL);
    BENCH_REQUIRE(ok && error == NULL, "secret_password_store_sync");
}

static void kk_remove_op(const char *account) {
    BENCH_REQUIRE(kk_remove(kc, service, account) == KK_OK, "kk_remove");
}

static void ls_remove_op(const char *account) {
    GError *error = NULL;
    secret_password_clear_sync(&schema, NULL, &error, "service", service, "username", account, NULL);
    BENCH_REQUIRE(error == NULL, "secret_password_clear_sync");
}

/* Times one call of op(account[, arg]) into samples. */
#define TIME(samples, call) do { uint64_t t0 = bench_now_ns(); call; bench_add(&(samples), bench_now_ns() - t0); } while (0)

int main(int argc, char **argv) {
    int rounds = argc > 1 ? atoi(argv[1]) : 200;
    BENCH_REQUIRE(rounds > 0, "ROUNDS argument");
    snprintf(service, sizeof service, "kkbench.%d", (int)getpid());
    BENCH_REQUIRE(kk_open_secret_service(&kc) == KK_OK, "kk_open_secret_service");

    /* Warm both up: connections, sessions, the present item. */
    kk_set_op("present");
    ls_get_op("present", 1);
    kk_get_op("present", KK_OK);

    bench_samples kget = bench_samples_new("secret-service", "kk_get present", rounds);
    bench_samples lget = bench_samples_new("secret-service", "libsecret lookup present", rounds);
    bench_samples kabs = bench_samples_new("secret-service", "kk_get absent", rounds);
    bench_samples labs = bench_samples_new("secret-service", "libsecret lookup absent", rounds);
    bench_samples kset = bench_samples_new("secret-service", "kk_set replace", rounds);
    bench_samples lset = bench_samples_new("secret-service", "libsecret store replace", rounds);
    bench_samples knew = bench_samples_new("secret-service", "kk_set new", rounds);
    bench_samples lnew = bench_samples_new("secret-service", "libsecret store new", rounds);
    bench_samples krm = bench_samples_new("secret-service", "kk_remove", rounds);
    bench_samples lrm = bench_samples_new("secret-service", "libsecret clear", rounds);

    /* One phase per operation, so that a phase of reads is not interrupted
     * by writes; within a phase the two sides alternate round by round. */
    char kacct[64], lacct[64];
#define PHASE(kk_call, ls_call) \
    for (int round = 0; round < rounds; round++) { \
        snprintf(kacct, sizeof kacct, "new-kk-%d", round); \
        snprintf(lacct, sizeof lacct, "new-ls-%d", round); \
        if (round % 2 == 0) { kk_call; ls_call; } else { ls_call; kk_call; } \
    }
    PHASE(TIME(kget, kk_get_op("present", KK_OK)), TIME(lget, ls_get_op("present", 1)))
    PHASE(TIME(kabs, kk_get_op("absent", KK_ENOTFOUND)), TIME(labs, ls_get_op("absent", 0)))
    PHASE(TIME(kset, kk_set_op("present")), TIME(lset, ls_set_op("present")))
    PHASE(TIME(knew, kk_set_op(kacct)), TIME(lnew, ls_set_op(lacct)))
    PHASE(TIME(krm, kk_remove_op(kacct)), TIME(lrm, ls_remove_op(lacct)))
    bench_report(&kget); bench_report(&lget);
    bench_report(&kabs); bench_report(&labs);
    bench_report(&kset); bench_report(&lset);
    bench_report(&knew); bench_report(&lnew);
    bench_report(&krm); bench_report(&lrm);

    kk_remove(kc, service, "present");
    kk_close(kc);
    return 0;
}
