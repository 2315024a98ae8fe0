/* SPDX-License-Identifier: MIT */
/* One Secret Service server measured with the same clients, for keychainkitd
 * against gnome-keyring (bench/run.sh runs it once under each, on a private
 * bus): libsecret (secret_password_*_sync) in this process and secret-tool
 * as a process.
 *
 *   create            secret_password_store_sync of a new item, timed while
 *                     the collection fills: the first SMALL creates, and the
 *                     last SMALL before LARGE (the cost of a write as the
 *                     collection grows)
 *   lookup            secret_password_lookup_sync of a present item, ROUNDS
 *                     times (a spread of the stored accounts), at SMALL items
 *                     and at LARGE
 *   secret-tool       `secret-tool lookup` of a present item as a whole
 *                     process, PROCESSES times, at SMALL items
 *   resident memory   the server's VmRSS at SMALL and at LARGE items
 *
 * Every value read is checked. Names are "SERVER: what" (SERVER: the first
 * argument). --lookups-only, for a server that stores nothing and answers
 * for every item (server_floor.c): the two lookups at SMALL items only.
 * Usage: bench_server [--lookups-only] SERVER ROUNDS PROCESSES SMALL LARGE */
#include "bench_common.h"

#define SECRET_API_SUBJECT_TO_CHANGE 1
#include <libsecret/secret.h>
#include <fcntl.h>
#include <spawn.h>
#include <string.h>
#include <sys/wait.h>

extern char **environ;

static const SecretSchema schema = {
    "io.github.keychainkit.Bench", SECRET_SCHEMA_DONT_MATCH_NAME,
    {{"service", SECRET_SCHEMA_ATTRIBUTE_STRING}, {"username", SECRET_SCHEMA_ATTRIBUTE_STRING}, {NULL, 0}},
    0, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
};

static const char *server;
static const char *service = "bench-server";

static char *name_of(const char *what) {
    char *name = malloc(strlen(server) + strlen(what) + 3);
    BENCH_REQUIRE(name != NULL, "malloc");
    sprintf(name, "%s: %s", server, what);
    return name;
}

static void value_of(int n, char *out, size_t size) { snprintf(out, size, "value-%d", n); }

static uint64_t create(int n) {
    char account[32], value[32];
    snprintf(account, sizeof account, "u%d", n);
    value_of(n, value, sizeof value);
    GError *error = NULL;
    uint64_t start = bench_now_ns();
    gboolean stored = secret_password_store_sync(&schema, SECRET_COLLECTION_DEFAULT, account, value, NULL, &error,
                                                 "service", service, "username", account, NULL);
    uint64_t took = bench_now_ns() - start;
    BENCH_REQUIRE(stored && error == NULL, "secret_password_store_sync");
    return took;
}

static void lookups(int items, int rounds, const char *what) {
    char *name = name_of(what);
    bench_samples samples = bench_samples_new("server", name, (size_t)rounds);
    for (int round = 0; round < rounds; round++) {
        int n = (int)(((long)round * 7919) % items);
        char account[32], want[32];
        snprintf(account, sizeof account, "u%d", n);
        value_of(n, want, sizeof want);
        GError *error = NULL;
        uint64_t start = bench_now_ns();
        gchar *got = secret_password_lookup_sync(&schema, NULL, &error, "service", service, "username", account, NULL);
        bench_add(&samples, bench_now_ns() - start);
        BENCH_REQUIRE(got != NULL && strcmp(got, want) == 0, "secret_password_lookup_sync");
        secret_password_free(got);
    }
    bench_report(&samples);
    free(name);
}

static void secret_tool_lookups(int items, int processes) {
    char *name = name_of("secret-tool lookup (process)");
    bench_samples samples = bench_samples_new("server", name, (size_t)processes);
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
    for (int round = 0; round < processes; round++) {
        char account[32];
        snprintf(account, sizeof account, "u%d", round % items);
        char *argv[] = {"secret-tool", "lookup", "service", (char *)service, "username", account, NULL};
        pid_t pid;
        int status = 0;
        uint64_t start = bench_now_ns();
        BENCH_REQUIRE(posix_spawnp(&pid, "secret-tool", &actions, NULL, argv, environ) == 0, "spawn secret-tool");
        BENCH_REQUIRE(waitpid(pid, &status, 0) == pid, "waitpid");
        bench_add(&samples, bench_now_ns() - start);
        BENCH_REQUIRE(WIFEXITED(status) && WEXITSTATUS(status) == 0, "secret-tool lookup");
    }
    posix_spawn_file_actions_destroy(&actions);
    bench_report(&samples);
    free(name);
}

/* The server's resident memory in KiB, as a JSON line. */
static void resident(const char *what) {
    GError *error = NULL;
    GDBusConnection *bus = g_bus_get_sync(G_BUS_TYPE_SESSION, NULL, &error);
    BENCH_REQUIRE(bus != NULL, "session bus");
    GVariant *reply = g_dbus_connection_call_sync(
        bus, "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "GetConnectionUnixProcessID",
        g_variant_new("(s)", "org.freedesktop.secrets"), G_VARIANT_TYPE("(u)"), G_DBUS_CALL_FLAGS_NONE, 5000, NULL,
        &error);
    BENCH_REQUIRE(reply != NULL, "the server's process");
    guint32 pid = 0;
    g_variant_get(reply, "(u)", &pid);
    g_variant_unref(reply);
    g_object_unref(bus);
    char path[64], line[256];
    snprintf(path, sizeof path, "/proc/%u/status", pid);
    FILE *status = fopen(path, "r");
    BENCH_REQUIRE(status != NULL, "the server's /proc status");
    unsigned long kib = 0;
    while (fgets(line, sizeof line, status))
        if (sscanf(line, "VmRSS: %lu kB", &kib) == 1) break;
    fclose(status);
    BENCH_REQUIRE(kib > 0, "VmRSS");
    char *name = name_of(what);
    printf("{\"group\": \"server\", \"name\": \"%s\", \"kib\": %lu}\n", name, kib);
    fflush(stdout);
    free(name);
}

int main(int argc, char **argv) {
    /* --lookups-only: a server that holds the items already and stores
     * none (server_floor.c): the lookups of the small collection only. */
    int lookups_only = argc > 1 && strcmp(argv[1], "--lookups-only") == 0;
    argv += lookups_only, argc -= lookups_only;
    if (argc != 6) {
        fprintf(stderr, "usage: %s [--lookups-only] SERVER ROUNDS PROCESSES SMALL LARGE\n", argv[0]);
        return 2;
    }
    server = argv[1];
    int rounds = atoi(argv[2]), processes = atoi(argv[3]), small = atoi(argv[4]), large = atoi(argv[5]);
    BENCH_REQUIRE(rounds > 0 && processes > 0 && small > 0 && large >= 2 * small, "arguments");
    if (lookups_only) {
        lookups(small, rounds, "libsecret lookup, small collection");
        secret_tool_lookups(small, processes);
        return 0;
    }

    char *first = name_of("create, first items");
    bench_samples early = bench_samples_new("server", first, (size_t)small);
    for (int n = 0; n < small; n++) bench_add(&early, create(n));
    bench_report(&early);
    free(first);
    lookups(small, rounds, "libsecret lookup, small collection");
    secret_tool_lookups(small, processes);
    resident("resident memory, small collection");

    char *last = name_of("create, last items of the large collection");
    bench_samples late = bench_samples_new("server", last, (size_t)small);
    for (int n = small; n < large; n++) {
        uint64_t took = create(n);
        if (n >= large - small) bench_add(&late, took);
    }
    bench_report(&late);
    free(last);
    lookups(large, rounds, "libsecret lookup, large collection");
    resident("resident memory, large collection");
    return 0;
}
