/* SPDX-License-Identifier: MIT */
/*
 * test_freshness.c — reads are causally fresh on the Secret Service: a
 * kk_get that starts after another process's (or handle's) write was
 * acknowledged sees it, whatever the reading handle remembers from earlier
 * reads (an absence, an item's path).
 *
 * Two processes, B (the test, reading) and A (a forked child with a handle
 * of its own, writing), in lockstep over pipes, for ROUNDS rounds:
 *
 *   B: kk_get(k)  -> absent (and remembered as such)
 *   A: kk_set(k, "round R set")         then tells B
 *   B: kk_get(k)  -> "round R set"      (a remembered absence is stale)
 *   A: kk_set(k, "round R update")      then tells B
 *   B: kk_get(k)  -> "round R update"
 *   A: kk_remove(k)                     then tells B
 *   B: kk_get(k)  -> absent             (a remembered item is stale)
 *
 * Every read B makes after A's acknowledgement that is not exactly what A
 * last wrote is a stale read; the test passes only with none. Each round
 * writes distinct values, so an old present value counts too.
 */
#define _POSIX_C_SOURCE 200809L

#include "kt_fork.h"
#include "kt_keychain.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define ROUNDS 300

/** How long either side waits for the other's message. */
#define STEP_TIMEOUT_MS 10000

/** Seconds the writer child may run in all: a bound for a hung writer,
 *  not a timing (each side already waits at most STEP_TIMEOUT_MS for the
 *  other). On KeePassXC, whose saves the writes wait out, the 300 rounds
 *  took 66 s in CI and over 90 s on a loaded machine. */
#define WRITER_ALARM 600

enum { CMD_SET = 'S', CMD_UPDATE = 'U', CMD_REMOVE = 'R', CMD_QUIT = 'Q' };
enum { REPLY_OK = 'k', REPLY_FAILED = 'f' };

/** A message to the writer: what to do, in which round. One write() of
 *  fewer than PIPE_BUF bytes: atomic. */
typedef struct command {
    char what;
    int32_t round;
} command;

static void round_value(char *out, size_t size, const char *step, int round)
{
    snprintf(out, size, "round %d %s", round, step);
}

/** The writer, A: a handle of its own, opened in the child. */
static _Noreturn void writer(int commands, int replies, const char *svc, const char *account)
{
    kk_keychain *a = kt_open();
    if (!KT_CHILD(CHECK(a != NULL))) kt_child_exit();
    command c = {0};
    char value[64];
    while (kt_read_all(commands, &c, sizeof c, STEP_TIMEOUT_MS) && c.what != CMD_QUIT) {
        kk_status st;
        if (c.what == CMD_SET || c.what == CMD_UPDATE) {
            round_value(value, sizeof value, c.what == CMD_SET ? "set" : "update", c.round);
            st = kk_set(a, svc, account, value, strlen(value));
        } else {
            st = kk_remove(a, svc, account);
        }
        KT_CHILD(CHECK_STATUS(st, KK_OK));
        char reply = st == KK_OK ? REPLY_OK : REPLY_FAILED;
        if (!kt_write_all(replies, &reply, 1)) break;
    }
    if (!KT_CHILD(CHECK(c.what == CMD_QUIT))) printf("    writer: no command from the reader\n");
    kk_close(a);
    kt_child_exit();
}

typedef struct tally {
    int reads;        /* reads checked */
    int stale;        /* reads that missed the write before them */
    int errors;       /* reads that failed (neither a value nor absent) */
    int printed;
} tally;

/** B's read of step `step` of `round`: `want` is the value A wrote last,
 *  NULL when A removed the item (or has not written it yet). */
static void expect(tally *t, kk_keychain *b, const char *svc, const char *account, int round,
                   const char *step, const char *want)
{
    char *value = NULL;
    size_t len = 0;
    kk_status st = kk_get(b, svc, account, &value, &len);
    t->reads++;
    int fresh;
    if (st == KK_OK)
        fresh = want != NULL && len == strlen(want) && memcmp(value, want, len) == 0;
    else if (st == KK_ENOTFOUND)
        fresh = want == NULL;
    else {
        if (t->errors++ < 3)
            printf("    round %d %s: kk_get returned %s: %s\n", round, step, kt_status_name(st),
                   kk_error_message());
        kk_secret_free(value);
        return;
    }
    if (!fresh) {
        t->stale++;
        if (t->printed++ < 5)
            printf("    round %d %s: stale read: got %s%.*s%s, expected %s%s%s\n", round, step,
                   st == KK_OK ? "\"" : "absent", st == KK_OK ? (int)len : 0,
                   st == KK_OK ? value : "", st == KK_OK ? "\"" : "", want ? "\"" : "absent",
                   want ? want : "", want ? "\"" : "");
    }
    kk_secret_free(value);
}

/** Asks the writer to do `what` for `round` and waits for its answer;
 *  returns 1 when it wrote. */
static int ask(int commands, int replies, char what, int round)
{
    command c = {what, round};
    char reply = 0;
    if (!kt_write_all(commands, &c, sizeof c) || !kt_read_all(replies, &reply, 1, STEP_TIMEOUT_MS)) {
        return kt_check(0, __FILE__, __LINE__, "round %d: no answer from the writer to '%c' within %d ms",
                        round, what, STEP_TIMEOUT_MS);
    }
    return CHECK(reply == REPLY_OK);
}

TEST_ON(KT_SECRET_SERVICE, reads_see_another_process_writes_at_once)
{
    kk_keychain *b = kt_open();
    REQUIRE(b != NULL);
    const char *svc = kt_service();
    const char *account = "k";
    /* Read before the writer exists: B remembers the absence. */
    REQUIRE(CHECK_GOT(b, svc, account, NULL));

    int to_a[2], to_b[2];
    REQUIRE(CHECK(pipe(to_a) == 0));
    REQUIRE(CHECK(pipe(to_b) == 0));
    pid_t pid = kt_fork_with_alarm(WRITER_ALARM);
    REQUIRE(CHECK(pid >= 0));
    if (pid == 0) {
        close(to_a[1]);
        close(to_b[0]);
        writer(to_a[0], to_b[1], svc, account);
    }
    close(to_a[0]);
    close(to_b[1]);
    int commands = to_a[1], replies = to_b[0];

    tally t = {0};
    char value[64];
    int rounds = 0;
    double start = kt_now();
    for (int r = 0; r < ROUNDS; r++) {
        expect(&t, b, svc, account, r, "before set", NULL);
        if (!ask(commands, replies, CMD_SET, r)) break;
        round_value(value, sizeof value, "set", r);
        expect(&t, b, svc, account, r, "after set", value);
        if (!ask(commands, replies, CMD_UPDATE, r)) break;
        round_value(value, sizeof value, "update", r);
        expect(&t, b, svc, account, r, "after update", value);
        if (!ask(commands, replies, CMD_REMOVE, r)) break;
        expect(&t, b, svc, account, r, "after remove", NULL);
        rounds++;
    }
    double elapsed = kt_now() - start;
    command quit = {CMD_QUIT, 0};
    kt_write_all(commands, &quit, sizeof quit);
    close(commands);
    /* A writer that stopped answering is not waited for long. */
    kt_check_child_at(__FILE__, __LINE__, pid, "the writer", rounds == ROUNDS ? WRITER_ALARM + 10 : 5);
    close(replies);

    printf("    %d rounds, %d reads across processes: %d stale, %d failed (%.2f s, %.1f ms a round)\n",
           rounds, t.reads, t.stale, t.errors, elapsed, rounds ? 1000.0 * elapsed / rounds : 0.0);
    CHECK_EQ(rounds, ROUNDS);
    CHECK_EQ(t.stale, 0);
    CHECK_EQ(t.errors, 0);
    kk_remove(b, svc, account);
    kk_close(b);
}

/* The same lockstep with two handles of one process: each has its own
 * connection and its own memory of where items are. */
TEST_ON(KT_SECRET_SERVICE, reads_see_another_handles_writes_at_once)
{
    kk_keychain *a = kt_open(), *b = kt_open();
    REQUIRE(a != NULL && b != NULL);
    const char *svc = kt_service();
    const char *account = "k";
    tally t = {0};
    char value[64];
    int rounds = 0;
    double start = kt_now();
    for (int r = 0; r < ROUNDS; r++) {
        expect(&t, b, svc, account, r, "before set", NULL);
        round_value(value, sizeof value, "set", r);
        if (!CHECK_STATUS(kk_set(a, svc, account, value, strlen(value)), KK_OK)) break;
        expect(&t, b, svc, account, r, "after set", value);
        round_value(value, sizeof value, "update", r);
        if (!CHECK_STATUS(kk_set(a, svc, account, value, strlen(value)), KK_OK)) break;
        expect(&t, b, svc, account, r, "after update", value);
        if (!CHECK_STATUS(kk_remove(a, svc, account), KK_OK)) break;
        expect(&t, b, svc, account, r, "after remove", NULL);
        rounds++;
    }
    double elapsed = kt_now() - start;
    printf("    %d rounds, %d reads across handles: %d stale, %d failed (%.2f s, %.1f ms a round)\n",
           rounds, t.reads, t.stale, t.errors, elapsed, rounds ? 1000.0 * elapsed / rounds : 0.0);
    CHECK_EQ(rounds, ROUNDS);
    CHECK_EQ(t.stale, 0);
    CHECK_EQ(t.errors, 0);
    kk_remove(a, svc, account);
    kk_close(a);
    kk_close(b);
}
