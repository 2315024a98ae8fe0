/* SPDX-License-Identifier: MIT */
/*
 * test_freshness_backlog.c — a remembered absence is not trusted while the
 * bus daemon still holds, for the reader, a change signal it has not
 * received: the read's round trip to the bus daemon (the freshness barrier)
 * comes back only after everything queued before it.
 *
 * test_freshness.c cannot tell whether that barrier is there: gnome-keyring's
 * ItemCreated already sits in the reader's socket by the time the writer's
 * acknowledgement reaches the reader. Here the reader's connection is kept
 * behind a backlog the bus daemon holds in its own memory (far more than a
 * socket buffers), so the signal of a write is still queued in the daemon
 * when the reader learns of the write. Without the barrier the reader
 * handles what its socket has, finds no change, and answers "absent" from
 * memory: a stale read.
 *
 * Two processes, B (the test, one handle, reading) and F (a forked child
 * with a GIO connection and a handle of its own), in lockstep over pipes.
 * F finds B's connection (the one connection on the bus whose process is
 * B), then, for ROUNDS rounds:
 *
 *   B: kk_get(k) twice -> absent (remembered, nothing left to handle)
 *   F: sends FLOOD_MESSAGES method calls of FLOOD_MESSAGE_BYTES each to B's
 *      connection, no reply expected (nothing the library counts as a
 *      change); a round trip of its own to the bus daemon (so all of them
 *      are queued for B); kk_set(k, "round R"); then tells B
 *   B: kk_get(k) -> "round R"            (the remembered absence is stale)
 *      (after a stale read, B reads until it sees the value, to start the
 *      next round with nothing queued)
 *   F: kk_remove(k), then tells B
 *   B: kk_get(k) -> absent
 *
 * Every read B makes after F's acknowledgement that is not what F last
 * wrote is stale; the test passes only with none. B makes no call while F
 * floods it, so nothing reads B's socket then: the daemon has to queue.
 */
#define _POSIX_C_SOURCE 200809L

#include "kt_fork.h"
#include "kt_keychain.h"

#include <gio/gio.h>

#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define ROUNDS 12

/** The backlog queued for B before each write: 24 MiB, far beyond what
 *  B's socket holds (a Unix stream socket buffers up to the sender's send
 *  buffer, ~200 KiB here; sd-bus asks for 8 MiB of receive buffer), so the
 *  bus daemon keeps most of it in its own memory. The size of each message
 *  was measured: without the barrier, 64 KiB messages made every round
 *  stale, also with the runner built with ASan (whose allocator slows B's
 *  reading of each message); 512 KiB and 2 MiB ones let B's reading keep
 *  up with the daemon's refilling of the socket through the whole backlog
 *  in up to 10 of 12 rounds under ASan (the read then comes out fresh). */
#define FLOOD_MESSAGES 384
#define FLOOD_MESSAGE_BYTES (64 * 1024)

/** How long either side waits for the other's message. */
#define STEP_TIMEOUT_MS 15000

/** How long B keeps reading, after a stale read, until it sees the write. */
#define CATCH_UP_SECONDS 10

/** Seconds F may run in all. */
#define FLOODER_ALARM 100

enum { CMD_FLOOD_SET = 'S', CMD_REMOVE = 'R', CMD_QUIT = 'Q' };
enum { REPLY_OK = 'k', REPLY_FAILED = 'f' };

typedef struct command {
    char what;
    int32_t round;
} command;

static void round_value(char *out, size_t size, int round)
{
    snprintf(out, size, "round %d", round);
}

/** In F: a call to the bus daemon itself; NULL after a failed check. */
static GVariant *call_bus(GDBusConnection *bus, const char *method, GVariant *args,
                          const char *reply_type)
{
    GError *error = NULL;
    GVariant *reply = g_dbus_connection_call_sync(
        bus, "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", method, args,
        G_VARIANT_TYPE(reply_type), G_DBUS_CALL_FLAGS_NONE, STEP_TIMEOUT_MS, NULL, &error);
    if (!KT_CHILD(kt_check(reply != NULL, __FILE__, __LINE__, "flooder: %s: %s", method,
                           error ? error->message : "?"))) {
        g_clear_error(&error);
        return NULL;
    }
    return reply;
}

/** In F: the unique names of the connections of process `pid` (NULL on a
 *  failed call; an empty array when there are none). */
static GPtrArray *connections_of(GDBusConnection *bus, pid_t pid)
{
    GVariant *names = call_bus(bus, "ListNames", NULL, "(as)");
    if (names == NULL) return NULL;
    GPtrArray *found = g_ptr_array_new_with_free_func(g_free);
    GVariantIter *iter = NULL;
    const char *name = NULL;
    g_variant_get(names, "(as)", &iter);
    while (g_variant_iter_next(iter, "&s", &name)) {
        if (name[0] != ':') continue;
        GError *error = NULL;
        GVariant *reply = g_dbus_connection_call_sync(
            bus, "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus",
            "GetConnectionUnixProcessID", g_variant_new("(s)", name), G_VARIANT_TYPE("(u)"),
            G_DBUS_CALL_FLAGS_NONE, STEP_TIMEOUT_MS, NULL, &error);
        if (reply == NULL) {  /* gone meanwhile */
            g_clear_error(&error);
            continue;
        }
        guint32 owner = 0;
        g_variant_get(reply, "(u)", &owner);
        g_variant_unref(reply);
        if ((pid_t)owner == pid) g_ptr_array_add(found, g_strdup(name));
    }
    g_variant_iter_free(iter);
    g_variant_unref(names);
    return found;
}

/** In F: queues FLOOD_MESSAGES calls carrying `body` for `target`, then
 *  makes a round trip to the bus daemon, which handles F's messages in
 *  order: when it returns, every one of them is routed (queued for
 *  `target`). Returns 1 when all went out. */
static int flood(GDBusConnection *bus, const char *target, GVariant *body)
{
    for (int i = 0; i < FLOOD_MESSAGES; i++) {
        GDBusMessage *m = g_dbus_message_new_method_call(target, "/org/keychainkit/test/flood",
                                                         "org.keychainkit.Test.Flood", "Ignore");
        g_dbus_message_set_body(m, body);
        g_dbus_message_set_flags(m, G_DBUS_MESSAGE_FLAGS_NO_REPLY_EXPECTED);
        GError *error = NULL;
        gboolean sent = g_dbus_connection_send_message(bus, m, G_DBUS_SEND_MESSAGE_FLAGS_NONE,
                                                       NULL, &error);
        g_object_unref(m);
        if (!KT_CHILD(kt_check(sent, __FILE__, __LINE__, "flooder: send: %s",
                               error ? error->message : "?"))) {
            g_clear_error(&error);
            return 0;
        }
    }
    GVariant *id = call_bus(bus, "GetId", NULL, "(s)");
    if (id == NULL) return 0;
    g_variant_unref(id);
    return 1;
}

/** F: finds the reader's connection, reports how many the reader has (one
 *  byte), then floods and writes on command. */
static _Noreturn void flooder(int commands, int replies, pid_t reader, const char *svc,
                              const char *account)
{
    GError *error = NULL;
    GDBusConnection *bus = g_bus_get_sync(G_BUS_TYPE_SESSION, NULL, &error);
    if (!KT_CHILD(kt_check(bus != NULL, __FILE__, __LINE__, "flooder: g_bus_get_sync: %s",
                           error ? error->message : "?")))
        kt_child_exit();
    GPtrArray *targets = connections_of(bus, reader);
    unsigned char count = targets ? (unsigned char)MIN(targets->len, 255u) : 0;
    if (!kt_write_all(replies, &count, 1) || count != 1) kt_child_exit();
    const char *target = g_ptr_array_index(targets, 0);

    guint8 *junk = g_malloc(FLOOD_MESSAGE_BYTES);
    memset(junk, 'j', FLOOD_MESSAGE_BYTES);
    GVariant *bytes = g_variant_new_fixed_array(G_VARIANT_TYPE_BYTE, junk, FLOOD_MESSAGE_BYTES, 1);
    GVariant *body = g_variant_ref_sink(g_variant_new_tuple(&bytes, 1));
    g_free(junk);

    kk_keychain *a = kt_open();
    if (!KT_CHILD(CHECK(a != NULL))) kt_child_exit();
    command c = {0};
    char value[64];
    while (kt_read_all(commands, &c, sizeof c, STEP_TIMEOUT_MS) && c.what != CMD_QUIT) {
        int ok;
        if (c.what == CMD_FLOOD_SET) {
            round_value(value, sizeof value, c.round);
            ok = flood(bus, target, body) &&
                 KT_CHILD(CHECK_STATUS(kk_set(a, svc, account, value, strlen(value)), KK_OK));
        } else {
            ok = KT_CHILD(CHECK_STATUS(kk_remove(a, svc, account), KK_OK));
        }
        char reply = ok ? REPLY_OK : REPLY_FAILED;
        if (!kt_write_all(replies, &reply, 1)) break;
    }
    if (!KT_CHILD(CHECK(c.what == CMD_QUIT))) printf("    flooder: no command from the reader\n");
    kk_close(a);
    g_variant_unref(body);
    g_ptr_array_unref(targets);
    g_object_unref(bus);
    kt_child_exit();
}

/** Asks F to do `what` for `round` and waits for its answer; returns 1
 *  when it did. */
static int ask(int commands, int replies, char what, int round)
{
    command c = {what, round};
    char reply = 0;
    if (!kt_write_all(commands, &c, sizeof c) || !kt_read_all(replies, &reply, 1, STEP_TIMEOUT_MS))
        return kt_check(0, __FILE__, __LINE__, "round %d: no answer from the flooder to '%c' within %d ms",
                        round, what, STEP_TIMEOUT_MS);
    return kt_check(reply == REPLY_OK, __FILE__, __LINE__, "round %d: the flooder failed '%c'",
                    round, what);
}

/** kk_get(k): KK_OK with `want`, KK_ENOTFOUND, or another status; 1 when
 *  the read was `want` (NULL: absent). */
static int read_is(kk_keychain *b, const char *svc, const char *account, const char *want,
                   kk_status *status)
{
    char *value = NULL;
    size_t len = 0;
    kk_status st = kk_get(b, svc, account, &value, &len);
    *status = st;
    int same = st == KK_OK ? want != NULL && len == strlen(want) && memcmp(value, want, len) == 0
                           : st == KK_ENOTFOUND && want == NULL;
    kk_secret_free(value);
    return same;
}

TEST_ON(KT_SECRET_SERVICE, reads_see_a_write_whose_signal_is_queued_behind_a_backlog)
{
    kk_keychain *b = kt_open();
    REQUIRE(b != NULL);
    const char *svc = kt_service();
    const char *account = "k";
    /* A flooder that is gone must not kill B when B tells it to quit. */
    signal(SIGPIPE, SIG_IGN);
    /* B's connection is open before F looks for it. */
    REQUIRE(CHECK_GOT(b, svc, account, NULL));

    int to_f[2], to_b[2];
    REQUIRE(CHECK(pipe(to_f) == 0));
    REQUIRE(CHECK(pipe(to_b) == 0));
    pid_t reader = getpid();
    pid_t pid = kt_fork_with_alarm(FLOODER_ALARM);
    REQUIRE(CHECK(pid >= 0));
    if (pid == 0) {
        close(to_f[1]);
        close(to_b[0]);
        flooder(to_f[0], to_b[1], reader, svc, account);
    }
    close(to_f[0]);
    close(to_b[1]);
    int commands = to_f[1], replies = to_b[0];

    unsigned char connections = 0;
    int ready = CHECK(kt_read_all(replies, &connections, 1, STEP_TIMEOUT_MS));
    if (ready && !kt_check(connections == 1, __FILE__, __LINE__,
                           "the reader has %u bus connections, expected exactly 1 (its handle's)",
                           connections))
        ready = 0;

    int rounds = 0, stale = 0, stale_absent = 0, errors = 0, printed = 0;
    double start = kt_now(), slowest = 0; /* the slowest read after a write */
    char value[64];
    for (int r = 0; ready && r < ROUNDS; r++) {
        kk_status st;
        /* The absence is remembered, and nothing is left to handle. */
        int absent = read_is(b, svc, account, NULL, &st);
        absent = read_is(b, svc, account, NULL, &st) && absent;
        if (!kt_check(absent, __FILE__, __LINE__, "round %d: k is not absent before the write (%s)",
                      r, kt_status_name(st)))
            break;

        if (!ask(commands, replies, CMD_FLOOD_SET, r)) break;
        round_value(value, sizeof value, r);
        double t0 = kt_now();
        int fresh = read_is(b, svc, account, value, &st);
        double took = kt_now() - t0;
        if (took > slowest) slowest = took;
        if (!fresh) {
            if (st == KK_ENOTFOUND || st == KK_OK) stale++;
            else errors++;
            if (printed++ < 5)
                printf("    round %d: read after the write: %s%s, expected \"%s\"\n", r,
                       kt_status_name(st),
                       st == KK_ENOTFOUND ? " (stale: the remembered absence)"
                       : st == KK_OK     ? " (stale: another value)"
                                         : "",
                       value);
            /* Drain what is queued: read until the write shows. */
            double deadline = kt_now() + CATCH_UP_SECONDS;
            while (!read_is(b, svc, account, value, &st) && kt_now() < deadline) {
            }
            if (!kt_check(st == KK_OK, __FILE__, __LINE__,
                          "round %d: the write did not show within %d s (%s)", r, CATCH_UP_SECONDS,
                          kt_status_name(st)))
                break;
        }

        if (!ask(commands, replies, CMD_REMOVE, r)) break;
        if (!read_is(b, svc, account, NULL, &st)) {
            if (st == KK_OK) stale_absent++;
            else errors++;
            if (printed++ < 5)
                printf("    round %d: read after the remove: %s, expected absent\n", r,
                       kt_status_name(st));
        }
        rounds++;
    }
    double elapsed = kt_now() - start;
    command quit = {CMD_QUIT, 0};
    kt_write_all(commands, &quit, sizeof quit);
    close(commands);
    kt_check_child_at(__FILE__, __LINE__, pid, "the flooder", rounds == ROUNDS ? 20 : 5);
    close(replies);

    printf("    %d rounds of %d x %d KiB queued before each write: %d stale after the write, "
           "%d after the remove, %d failed (%.2f s; slowest read after a write %.0f ms)\n",
           rounds, FLOOD_MESSAGES, FLOOD_MESSAGE_BYTES / 1024, stale, stale_absent, errors, elapsed,
           1000 * slowest);
    CHECK_EQ(rounds, ROUNDS);
    CHECK_EQ(stale, 0);
    CHECK_EQ(stale_absent, 0);
    CHECK_EQ(errors, 0);
    kk_remove(b, svc, account);
    kk_close(b);
}
