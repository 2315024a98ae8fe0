/* SPDX-License-Identifier: MIT */
/*
 * test_prompts.c — the prompt policy and the options at open.
 *
 * In every run: the options' argument checks, KK_PROMPT_NEVER (a locked
 * collection is KK_ELOCKED at once, no dialog), and on KWallet an unlock
 * prompt that completes without a window. In dialog runs: on KeePassXC an
 * unlock prompt nobody answers (its dialog is offscreen): KK_ELOCKED after
 * the prompt timeout, the prompt dismissed; on gnome-keyring on a private
 * display (scripts/with-display.sh): the real unlock dialog,
 * answered with xdotool — the password unlocks, Escape cancels, and an
 * unanswered dialog is left up (gnome-keyring 42 crashes when a shown
 * unlock dialog is dismissed) while the daemon keeps serving.
 */
#define _POSIX_C_SOURCE 200809L

#include "kt_fork.h"
#include "kt_keychain.h"
#include "kt_secret_service.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/** Opens a Secret Service handle with `prompts` and `prompt_timeout_ms`. */
static kk_keychain *open_with_prompts(kk_prompt_policy prompts, unsigned prompt_timeout_ms)
{
    kk_secret_service_options options = KK_SECRET_SERVICE_OPTIONS_INIT;
    options.prompts = prompts;
    options.prompt_timeout_ms = prompt_timeout_ms;
    kk_keychain *kc = NULL;
    if (!CHECK_STATUS(kk_open_secret_service_with(&options, &kc), KK_OK)) return NULL;
    return kc;
}

/* ---- options --------------------------------------------------------------- */

TEST(options_are_checked)
{
    kk_secret_service_options options;
    CHECK_STATUS(kk_secret_service_options_init(NULL, KK_SECRET_SERVICE_OPTIONS_VERSION), KK_EINVAL);
    CHECK_STATUS(kk_secret_service_options_init(&options, 0), KK_EINVAL);
    CHECK_STATUS(kk_secret_service_options_init(&options, KK_SECRET_SERVICE_OPTIONS_VERSION + 1), KK_EINVAL);
    CHECK_STATUS(kk_secret_service_options_init(&options, KK_SECRET_SERVICE_OPTIONS_VERSION), KK_OK);
    kk_secret_service_options init = KK_SECRET_SERVICE_OPTIONS_INIT;
    CHECK_EQ(options.version, KK_SECRET_SERVICE_OPTIONS_VERSION);
    CHECK(options.collection == NULL);
    CHECK_EQ(options.timeout_ms, 0);
    CHECK_EQ(options.prompts, KK_PROMPT_AUTOMATIC);
    CHECK_EQ(options.prompt_timeout_ms, 0);
    CHECK_EQ(init.version, KK_SECRET_SERVICE_OPTIONS_VERSION);
    CHECK_EQ(init.prompts, KK_PROMPT_AUTOMATIC);
    CHECK_EQ(options.transfer, KK_TRANSFER_PREFER_ENCRYPTED);
    CHECK_EQ(init.transfer, KK_TRANSFER_PREFER_ENCRYPTED);

    kk_keychain *kc = (kk_keychain *)KT_SENTINEL;
    CHECK_STATUS(kk_open_secret_service_with(&options, NULL), KK_EINVAL);
    options.version = 0;
    CHECK_STATUS(kk_open_secret_service_with(&options, &kc), KK_EINVAL);
    CHECK(strstr(kk_error_message(), "version") != NULL);
    options = init;
    options.prompts = (kk_prompt_policy)7;
    CHECK_STATUS(kk_open_secret_service_with(&options, &kc), KK_EINVAL);
    options = init;
    options.transfer = (kk_transfer_policy)7;
    CHECK_STATUS(kk_open_secret_service_with(&options, &kc), KK_EINVAL);
    CHECK(strstr(kk_error_message(), "transfer") != NULL);
    options = init;
    options.collection = "";
    CHECK_STATUS(kk_open_secret_service_with(&options, &kc), KK_EINVAL);
    options.collection = "\xff";
    CHECK_STATUS(kk_open_secret_service_with(&options, &kc), KK_EINVAL);
    /* An alias becomes an object path's element: "-" cannot be in one. */
    options.collection = "my-alias";
    CHECK_STATUS(kk_open_secret_service_with(&options, &kc), KK_EINVAL);
    CHECK(strstr(kk_error_message(), "alias") != NULL);
    options.collection = "/org/freedesktop/secrets/collection/";
    CHECK_STATUS(kk_open_secret_service_with(&options, &kc), KK_EINVAL);
    CHECK(strstr(kk_error_message(), "object path") != NULL);
    CHECK(kc == (kk_keychain *)KT_SENTINEL); /* untouched on failure */

    kc = NULL;
    CHECK_STATUS(kk_open_secret_service_with(NULL, &kc), KK_OK); /* the defaults */
    CHECK(kc != NULL);
    kk_close(kc);
}

/** The options of 0.5 and 0.6 (version 1), as a program built against
 *  their header lays them out: no `transfer` field. */
typedef struct options_v1 {
    unsigned int version;
    const char *collection;
    unsigned int timeout_ms;
    kk_prompt_policy prompts;
    unsigned int prompt_timeout_ms;
} options_v1;

TEST(version_1_options_are_still_read_and_written_within_their_size)
{
    /* A version 1 struct followed by bytes the library must not touch. */
    struct { options_v1 options; unsigned char guard[32]; } v1;
    memset(&v1, 0xA5, sizeof v1);
    CHECK_STATUS(kk_secret_service_options_init((kk_secret_service_options *)&v1.options, 1), KK_OK);
    CHECK_EQ(v1.options.version, 1);
    CHECK(v1.options.collection == NULL);
    CHECK_EQ(v1.options.prompts, KK_PROMPT_AUTOMATIC);
    int untouched = 1;
    for (size_t i = 0; i < sizeof v1.guard; i++) untouched &= v1.guard[i] == 0xA5;
    CHECK(untouched);
    /* Read as far as version 1 goes: the guard bytes are not a transfer policy. */
    v1.options.prompts = KK_PROMPT_NEVER;
    kk_keychain *kc = NULL;
    CHECK_STATUS(kk_open_secret_service_with((const kk_secret_service_options *)&v1.options, &kc), KK_OK);
    kk_close(kc);
}

TEST(transfer_encrypted_is_checked)
{
    int encrypted = -1;
    CHECK_STATUS(kk_transfer_encrypted(NULL, &encrypted), KK_EINVAL);
    kk_keychain *memory = NULL;
    REQUIRE(CHECK_STATUS(kk_open_memory(&memory), KK_OK));
    CHECK_STATUS(kk_transfer_encrypted(memory, &encrypted), KK_EINVAL);
    CHECK(strstr(kk_error_message(), "not a Secret Service handle") != NULL);
    CHECK_EQ(encrypted, -1);
    kk_close(memory);
    kk_keychain *kernel = NULL;
    REQUIRE(CHECK_STATUS(kk_open_kernel_keyring_in(KK_KERNEL_SESSION, &kernel), KK_OK));
    CHECK_STATUS(kk_transfer_encrypted(kernel, &encrypted), KK_EINVAL);
    CHECK(strstr(kk_error_message(), "not a Secret Service handle") != NULL);
    CHECK_EQ(encrypted, -1);
    kk_close(kernel);
    kk_keychain *kc = NULL;
    REQUIRE(CHECK_STATUS(kk_open_secret_service(&kc), KK_OK));
    CHECK_STATUS(kk_transfer_encrypted(kc, NULL), KK_EINVAL);
    kk_close(kc);
}

TEST_ON(KT_SECRET_SERVICE, every_server_here_transfers_encrypted)
{
    kk_secret_service_options options = KK_SECRET_SERVICE_OPTIONS_INIT;
    options.transfer = KK_TRANSFER_REQUIRE_ENCRYPTED;
    kk_keychain *kc = NULL;
    REQUIRE(CHECK_STATUS(kk_open_secret_service_with(&options, &kc), KK_OK));
    int encrypted = -1;
    CHECK_STATUS(kk_transfer_encrypted(kc, &encrypted), KK_OK);
    CHECK_EQ(encrypted, 1);
    const char *svc = kt_service();
    CHECK_STATUS(kk_set(kc, svc, "acct", "v", 1), KK_OK);
    CHECK_VALUE(kc, svc, "acct", "v", 1);
    CHECK_STATUS(kk_remove(kc, svc, "acct"), KK_OK);
    kk_close(kc);
}

TEST_ON(KT_SECRET_SERVICE, session_collection_holds_new_items_apart)
{
    kk_secret_service_options options = KK_SECRET_SERVICE_OPTIONS_INIT;
    options.collection = "session";
    kk_keychain *kc = NULL;
    REQUIRE(CHECK_STATUS(kk_open_secret_service_with(&options, &kc), KK_OK));
    const char *svc = kt_service();
    kk_status stored = kk_set(kc, svc, "acct", "in session", 10);
    if (strcmp(kt_server(), "kwallet") == 0 || strstr(kt_server(), "keepassxc") != NULL) {
        /* KWallet and KeePassXC have no "session" alias: a clear failure. */
        CHECK_STATUS(stored, KK_EUNKNOWN);
        CHECK(strstr(kk_error_message(), "session") != NULL);
        kk_close(kc);
        return;
    }
    CHECK_STATUS(stored, KK_OK);
    /* Not in the default collection: readable while that one is locked,
     * unless it hides its items (oo7): it might hold the key too. */
    if (kt_lock_checked()) {
        if (kt_server_hides_locked_items()) {
            char *value = KT_SENTINEL;
            CHECK_STATUS(kk_get(kc, svc, "acct", &value, NULL), KK_ELOCKED);
        } else {
            CHECK_VALUE(kc, svc, "acct", "in session", 10);
        }
    }
    kt_unlock_checked();
    CHECK_STATUS(kk_remove(kc, svc, "acct"), KK_OK);
    kk_close(kc);
}

/* ---- a stored item in a locked collection --------------------------------------- */

/** A handle with a prompt policy, the item ("acct", "v") of the test's
 *  service stored through it, and the default collection locked. */
typedef struct locked_item {
    kk_keychain *kc;
    const char *svc;
} locked_item;

/** Opens `t` with `prompts` and `prompt_timeout_ms`; 1 when the item is
 *  stored and the collection locked (close_locked_item() either way). */
static int open_locked_item(locked_item *t, kk_prompt_policy prompts, unsigned prompt_timeout_ms)
{
    t->svc = kt_service();
    t->kc = open_with_prompts(prompts, prompt_timeout_ms);
    return t->kc != NULL && CHECK_STATUS(kk_set(t->kc, t->svc, "acct", "v", 1), KK_OK) && kt_lock_checked();
}

/** Unlocks the collection, checks the item is still there, removes it and
 *  closes the handle. */
static void close_locked_item(locked_item *t)
{
    if (t->kc == NULL) return;
    if (kt_unlock_checked()) {
        CHECK_VALUE(t->kc, t->svc, "acct", "v", 1);
        CHECK_STATUS(kk_remove(t->kc, t->svc, "acct"), KK_OK);
    }
    kk_close(t->kc);
}

/** Checks that kk_get of the item returns `want` after waiting between
 *  `at_least` and `below` seconds, with a message holding `says`. */
static void check_get(locked_item *t, kk_status want, double at_least, double below, const char *says)
{
    double start = kt_now();
    char *value = KT_SENTINEL;
    CHECK_STATUS(kk_get(t->kc, t->svc, "acct", &value, NULL), want);
    CHECK(value == NULL);
    double waited = kt_now() - start;
    kt_check(waited >= at_least && waited < below, __FILE__, __LINE__, "waited %.2f s, expected [%.1f, %.1f) s",
             waited, at_least, below);
    CHECK(strstr(kk_error_message(), says) != NULL);
}

/* ---- policies without a display ------------------------------------------------ */

TEST_ON(KT_SECRET_SERVICE, never_policy_refuses_at_once)
{
    locked_item t;
    if (open_locked_item(&t, KK_PROMPT_NEVER, 60000)) {
        /* well within the 60 s prompt timeout: no prompt was waited for */
        check_get(&t, KK_ELOCKED, 0, 30, "locked");
        CHECK_STATUS(kk_set(t.kc, t.svc, "new", "v", 1), KK_ELOCKED);
        CHECK_STATUS(kk_remove(t.kc, t.svc, "acct"), KK_ELOCKED);
    }
    close_locked_item(&t);
}

TEST_ONLY_ON_SERVER(KT_SECRET_SERVICE, "kwallet", allowed_policy_unlocks_through_kwallets_prompt)
{
    /* KWallet's unlock prompt opens the test wallet (empty password)
     * without a window: the policy lets the read go through. */
    locked_item t;
    kk_keychain *never = open_with_prompts(KK_PROMPT_NEVER, 0);
    if (open_locked_item(&t, KK_PROMPT_ALLOWED, 0) && CHECK(never != NULL)) {
        char *value = KT_SENTINEL;
        CHECK_STATUS(kk_get(never, t.svc, "acct", &value, NULL), KK_ELOCKED);
        CHECK_VALUE(t.kc, t.svc, "acct", "v", 1);
        int locked = 1;
        CHECK(kt_ss_is_locked(&locked) == 0 && !locked);
    }
    kk_close(never);
    close_locked_item(&t);
}

TEST_DIALOGS_ON_SERVER(KT_SECRET_SERVICE, "keepassxc", never_policy_does_not_wait_on_a_search_dialog)
{
    /* The dialog run starts KeePassXC with UnlockBeforeSearch on (its
     * default), where searching a locked database waits on its unlock
     * dialog: the handle knows the database is locked and never searches
     * (each search would wait the 5 s request timeout). */
    locked_item t;
    if (open_locked_item(&t, KK_PROMPT_NEVER, 0)) {
        check_get(&t, KK_ELOCKED, 0, 4.5, "hides its items");
        CHECK_STATUS(kk_exists(t.kc, t.svc, "other"), KK_ELOCKED);
        char **accounts = NULL;
        CHECK_STATUS(kk_list(t.kc, t.svc, &accounts, NULL), KK_ELOCKED);
    }
    close_locked_item(&t);
}

TEST_DIALOGS_ON_SERVER(KT_SECRET_SERVICE, "keepassxc", unanswered_unlock_prompt_is_dismissed_and_locked)
{
    locked_item t;
    if (open_locked_item(&t, KK_PROMPT_ALLOWED, 1500)) {
        check_get(&t, KK_ELOCKED, 1.4, 4, "unlock prompt");
        check_get(&t, KK_ELOCKED, 1.4, 4, "unlock prompt"); /* the first was dismissed: no queue */
    }
    close_locked_item(&t);
}

/* ---- gnome-keyring's unlock dialog, on a private display ------------------------ */

/** Whether gnome-keyring's unlock dialog (gcr-prompter) is on the display. */
static int dialog_visible(void)
{
    return system("xdotool search --onlyvisible --class gcr-prompter >/dev/null 2>&1") == 0;
}

/** Answers the unlock dialog once it shows, from a child process: "password"
 *  types the keyring's password and Return, "escape" presses Escape. */
static pid_t answer_dialog(const char *how)
{
    const char *command = strcmp(how, "password") == 0
        ? "timeout 20 xdotool search --sync --onlyvisible --class gcr-prompter windowfocus --sync "
          "type --delay 20 \"$KEYCHAINKIT_TEST_KEYRING_PASSWORD\" && "
          "xdotool search --onlyvisible --class gcr-prompter windowfocus --sync key Return"
        : "w=$(timeout 20 xdotool search --sync --onlyvisible --class gcr-prompter | head -n 1) && "
          "[ -n \"$w\" ] && { xdotool windowfocus --sync \"$w\" key Escape 2>/dev/null; true; }";
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        execl("/bin/sh", "sh", "-c", command, (char *)NULL);
        _exit(127);
    }
    return pid;
}

/** Waits for the answering child, then until the dialog's window is gone
 *  (at most 10 s), so that the next answer cannot find the closing one; 1
 *  when both happened. */
static int answered(pid_t pid)
{
    int status = 0;
    if (pid <= 0 || waitpid(pid, &status, 0) != pid) return 0;
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) return 0;
    for (int waited_ms = 0; waited_ms < 10000; waited_ms += 50) {
        if (!dialog_visible()) return 1;
        kt_sleep_ms(50);
    }
    return 0;
}

TEST_DIALOGS_ON_SERVER(KT_SECRET_SERVICE, "gnome-keyring", answered_unlock_dialog_unlocks)
{
    locked_item t;
    if (open_locked_item(&t, KK_PROMPT_ALLOWED, 30000)) {
        pid_t answerer = answer_dialog("password");
        CHECK_VALUE(t.kc, t.svc, "acct", "v", 1); /* waits for the user, then reads */
        CHECK(answered(answerer));
        int locked = 1;
        CHECK(kt_ss_is_locked(&locked) == 0 && !locked);
    }
    if (t.kc != NULL && kt_lock_checked()) {
        pid_t answerer = answer_dialog("password");
        CHECK_STATUS(kk_set(t.kc, t.svc, "new", "w", 1), KK_OK); /* a create unlocks too */
        CHECK(answered(answerer));
        CHECK_VALUE(t.kc, t.svc, "new", "w", 1);
        CHECK_STATUS(kk_remove(t.kc, t.svc, "new"), KK_OK);
    }
    close_locked_item(&t);
}

TEST_DIALOGS_ON_SERVER(KT_SECRET_SERVICE, "gnome-keyring", automatic_policy_prompts_in_a_graphical_session)
{
    locked_item t; /* DISPLAY is set: automatic means allowed */
    if (open_locked_item(&t, KK_PROMPT_AUTOMATIC, 30000)) {
        pid_t answerer = answer_dialog("password");
        CHECK_VALUE(t.kc, t.svc, "acct", "v", 1);
        CHECK(answered(answerer));
    }
    close_locked_item(&t);
}

TEST_DIALOGS_ON_SERVER(KT_SECRET_SERVICE, "gnome-keyring", dismissed_unlock_dialog_is_canceled)
{
    locked_item t;
    if (open_locked_item(&t, KK_PROMPT_ALLOWED, 30000)) {
        pid_t answerer = answer_dialog("escape");
        check_get(&t, KK_ECANCELED, 0, 30, "dismissed");
        CHECK(answered(answerer));
        int locked = 0;
        CHECK(kt_ss_is_locked(&locked) == 0 && locked);
    }
    close_locked_item(&t);
}

TEST_DIALOGS_ON_SERVER(KT_SECRET_SERVICE, "gnome-keyring", unanswered_unlock_dialog_stays_up)
{
    locked_item t;
    if (open_locked_item(&t, KK_PROMPT_ALLOWED, 1500)) {
        check_get(&t, KK_ELOCKED, 1.4, 5, "unlock prompt");
        /* Not dismissed (that crashes gnome-keyring 42.1): the dialog is
         * still up, and the daemon still serves. */
        CHECK(dialog_visible());
        int locked = 0;
        CHECK(kt_ss_is_locked(&locked) == 0 && locked);
        /* The user answers later: the keyring unlocks, the handle reads. */
        CHECK(answered(answer_dialog("password")));
        CHECK(kt_ss_is_locked(&locked) == 0);
        CHECK_VALUE(t.kc, t.svc, "acct", "v", 1);
    }
    close_locked_item(&t);
}
