/* SPDX-License-Identifier: MIT */
/*
 * test_error_messages.c — a secret never appears in kk_error_message()
 * (header: "never contains a secret"; DESIGN: secrets never go into
 * labels, attributes, logs or error messages).
 *
 * Each failing call is made with a marker as the value (or after storing
 * one), then the message is checked: it must be non-empty (so there is
 * something to inspect: an empty message would pass vacuously) and must
 * not contain any marker.
 */
#define _POSIX_C_SOURCE 200809L

#include "kt_keychain.h"
#include "kt_secret_service.h"
#include "markers.h"

#include <stdlib.h>
#include <string.h>

/** Checks the status of a failing call, then this thread's message. */
#define CHECK_FAILS_CLEAN(expr, want, marker)                                        \
    do {                                                                             \
        CHECK_STATUS((expr), (want));                                                \
        const char *m_ = kk_error_message();                                         \
        if (CHECK(m_ != NULL && m_[0] != '\0'))                                      \
            kt_check(strstr(m_, (marker)) == NULL, __FILE__, __LINE__,               \
                     "the secret is in kk_error_message(): \"%s\"", m_);            \
    } while (0)

TEST(no_secret_in_messages_of_rejected_sets)
{
    char m[128];
    hy_marker(m, sizeof m, "rejected");
    size_t n = strlen(m);
    kk_keychain *kc = kt_open();
    REQUIRE(kc != NULL);
    const char *svc = kt_service();
    CHECK_FAILS_CLEAN(kk_set(NULL, svc, "acct", m, n), KK_EINVAL, m);
    CHECK_FAILS_CLEAN(kk_set(kc, svc, NULL, m, n), KK_EINVAL, m);
    CHECK_FAILS_CLEAN(kk_set(kc, "", "acct", m, n), KK_EINVAL, m);
    CHECK_FAILS_CLEAN(kk_set(kc, svc, "bad\xFFutf8", m, n), KK_EINVAL, m);
    CHECK_FAILS_CLEAN(kk_set(kc, "\xC3", "acct", m, n), KK_EINVAL, m);

    /* Too large: a real buffer of KK_MAX_VALUE_SIZE + 1 bytes, the marker
     * at both ends. */
    size_t big = KK_MAX_VALUE_SIZE + 1;
    char *value = malloc(big);
    REQUIRE(value != NULL);
    memset(value, 'x', big);
    memcpy(value, m, n);
    memcpy(value + big - n, m, n);
    CHECK_FAILS_CLEAN(kk_set(kc, svc, "acct", value, big), KK_EINVAL, m);
    free(value);

    /* Nothing was stored by any of them. */
    CHECK_ABSENT(kc, svc, "acct");
    kk_close(kc);
}

TEST(no_secret_in_messages_of_failing_reads)
{
    char m[128];
    hy_marker(m, sizeof m, "stored");
    kk_keychain *kc = kt_open();
    REQUIRE(kc != NULL);
    const char *svc = kt_service();
    REQUIRE(CHECK_STATUS(kk_set(kc, svc, "present", m, strlen(m)), KK_OK));
    char *value = NULL;
    CHECK_FAILS_CLEAN(kk_get(kc, svc, "absent", &value, NULL), KK_ENOTFOUND, m);
    CHECK_FAILS_CLEAN(kk_get(kc, svc, "present", NULL, NULL), KK_EINVAL, m);
    CHECK_FAILS_CLEAN(kk_get(kc, "", "present", &value, NULL), KK_EINVAL, m);
    CHECK_FAILS_CLEAN(kk_unobserve(kc, 0), KK_EINVAL, m);
    CHECK_STATUS(kk_remove(kc, svc, "present"), KK_OK);
    kk_close(kc);
}

TEST_ON(KT_SECRET_SERVICE, no_secret_in_messages_when_locked)
{
    char m[128], m2[128];
    hy_marker(m, sizeof m, "before-lock");
    hy_marker(m2, sizeof m2, "while-locked");
    kk_keychain *kc = kt_open();
    REQUIRE(kc != NULL);
    const char *svc = kt_service();
    REQUIRE(CHECK_STATUS(kk_set(kc, svc, "acct", m, strlen(m)), KK_OK));
    int locked = 0;
    REQUIRE(CHECK(kt_ss_lock() == 0) && CHECK(kt_ss_is_locked(&locked) == 0) && CHECK(locked));
    char *value = NULL;
    CHECK_FAILS_CLEAN(kk_set(kc, svc, "acct", m2, strlen(m2)), KK_ELOCKED, m2);
    CHECK(strstr(kk_error_message(), m) == NULL);
    CHECK_FAILS_CLEAN(kk_get(kc, svc, "acct", &value, NULL), KK_ELOCKED, m);
    CHECK(strstr(kk_error_message(), m2) == NULL);
    CHECK_FAILS_CLEAN(kk_remove(kc, svc, "acct"), KK_ELOCKED, m);
    CHECK(kt_ss_unlock() == 0);
    CHECK_STATUS(kk_remove(kc, svc, "acct"), KK_OK);
    kk_close(kc);
}

TEST_ON(KT_SECRET_SERVICE, no_secret_in_messages_when_unavailable)
{
    char m[128];
    hy_marker(m, sizeof m, "unavailable");
    const char *saved = getenv("DBUS_SESSION_BUS_ADDRESS");
    char *restore = saved ? strdup(saved) : NULL;
    /* The library reads the address when a handle first connects. */
    REQUIRE(setenv("DBUS_SESSION_BUS_ADDRESS", "unix:path=/nonexistent", 1) == 0);
    kk_keychain *kc = NULL;
    if (CHECK_STATUS(kk_open_secret_service(&kc), KK_OK)) {
        CHECK_FAILS_CLEAN(kk_set(kc, kt_service(), "acct", m, strlen(m)), KK_EUNAVAILABLE, m);
        kk_close(kc);
    }
    if (restore) setenv("DBUS_SESSION_BUS_ADDRESS", restore, 1);
    else unsetenv("DBUS_SESSION_BUS_ADDRESS");
    free(restore);
}
