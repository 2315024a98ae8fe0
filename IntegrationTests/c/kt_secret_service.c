/* SPDX-License-Identifier: MIT */
/*
 * kt_secret_service.c — see kt_secret_service.h.
 */
#define _POSIX_C_SOURCE 200809L

#include "kt_secret_service.h"

#include "kk_test.h"

#include <gio/gio.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <limits.h>
#include <poll.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#define BUS_NAME "org.freedesktop.secrets"
#define SERVICE_PATH "/org/freedesktop/secrets"
#define DEFAULT_COLLECTION "/org/freedesktop/secrets/aliases/default"
#define TIMEOUT_MS 10000
/* The hostile fake's control object (IntegrationTests/hostile/README.md). */
#define CONTROL_PATH "/io/github/keychainkit/FakeControl"
#define CONTROL_INTERFACE "io.github.keychainkit.FakeControl"

/** The shared session bus, and a plain session opened on it (secrets are
 *  only valid on the connection that opened their session). */
static GDBusConnection *bus;
static char *session_path;

static int fail(const char *what, GError *error)
{
    fprintf(stdout, "    kt_secret_service: %s failed: %s\n", what, error ? error->message : "?");
    if (error) g_error_free(error);
    return -1;
}

/** Calls a method; returns its reply (to unref) or NULL after printing. */
static GVariant *call(const char *path, const char *interface, const char *method,
                      GVariant *args, const char *reply_type)
{
    GError *error = NULL;
    GVariant *reply = g_dbus_connection_call_sync(
        bus, BUS_NAME, path, interface, method, args,
        reply_type ? G_VARIANT_TYPE(reply_type) : NULL, G_DBUS_CALL_FLAGS_NONE, TIMEOUT_MS, NULL,
        &error);
    if (reply == NULL) fail(method, error);
    return reply;
}

static int connect_once(void)
{
    if (session_path != NULL) return 0;
    GError *error = NULL;
    bus = g_bus_get_sync(G_BUS_TYPE_SESSION, NULL, &error);
    if (bus == NULL) return fail("g_bus_get_sync", error);
    /* A first call answered before OpenSession: gnome-keyring aborts on
     * an OpenSession right behind a connection's first message (see
     * test_new_connections.c). */
    GVariant *reply = call(SERVICE_PATH, "org.freedesktop.DBus.Properties", "Get",
                           g_variant_new("(ss)", "org.freedesktop.Secret.Service", "Collections"), "(v)");
    if (reply == NULL) return -1;
    g_variant_unref(reply);
    reply = call(SERVICE_PATH, "org.freedesktop.Secret.Service", "OpenSession",
                           g_variant_new("(sv)", "plain", g_variant_new_string("")), "(vo)");
    if (reply == NULL) return -1;
    g_variant_get(reply, "(vo)", NULL, &session_path);
    g_variant_unref(reply);
    return 0;
}

/** A floating (oayays) plain secret of our session. */
static GVariant *plain_secret(const char *bytes)
{
    GVariant *value = g_variant_new_fixed_array(G_VARIANT_TYPE_BYTE, bytes, strlen(bytes), 1);
    GVariant *params = g_variant_new_fixed_array(G_VARIANT_TYPE_BYTE, "", 0, 1);
    return g_variant_new("(o@ay@ays)", session_path, params, value, "text/plain");
}

/** The object path of the collection the default alias names (gnome-keyring:
 *  login; KWallet: kdewallet), resolved once; NULL after printing why. */
static const char *default_collection(void)
{
    static char *path;
    if (path != NULL) return path;
    if (connect_once() != 0) return NULL;
    GVariant *reply = call(SERVICE_PATH, "org.freedesktop.Secret.Service", "ReadAlias",
                           g_variant_new("(s)", "default"), "(o)");
    if (reply == NULL) return NULL;
    g_variant_get(reply, "(o)", &path);
    g_variant_unref(reply);
    if (strcmp(path, "/") != 0) return path;
    g_free(path);
    path = NULL;
    fail("ReadAlias (no default collection)", NULL);
    return NULL;
}

static void prompt_completed(GDBusConnection *connection, const char *sender, const char *path,
                             const char *interface, const char *signal, GVariant *parameters,
                             void *done)
{
    (void)connection, (void)sender, (void)path, (void)interface, (void)signal, (void)parameters;
    *(int *)done = 1;
}

/** Shows the prompt at `prompt` ("/": none) and waits, at most TIMEOUT_MS,
 *  for its Completed signal: KWallet's unlock and KeePassXC's confirmations
 *  and lock complete without a window. */
static int complete_prompt(const char *prompt)
{
    if (strcmp(prompt, "/") == 0) return 0;
    GMainContext *context = g_main_context_new();
    g_main_context_push_thread_default(context);
    int done = 0;
    guint subscription = g_dbus_connection_signal_subscribe(
        bus, BUS_NAME, "org.freedesktop.Secret.Prompt", "Completed", prompt, NULL,
        G_DBUS_SIGNAL_FLAGS_NONE, prompt_completed, &done, NULL);
    GVariant *prompted = call(prompt, "org.freedesktop.Secret.Prompt", "Prompt", g_variant_new("(s)", ""), NULL);
    if (prompted != NULL) g_variant_unref(prompted);
    for (int waited_ms = 0; prompted != NULL && !done && waited_ms < TIMEOUT_MS; waited_ms += 10) {
        while (g_main_context_iteration(context, FALSE)) {
        }
        if (!done) g_usleep(10 * 1000);
    }
    g_dbus_connection_signal_unsubscribe(bus, subscription);
    g_main_context_pop_thread_default(context);
    g_main_context_unref(context);
    if (prompted == NULL) return -1;
    return done ? 0 : fail("prompt (no Completed signal)", NULL);
}

/** Waits until the default collection's Locked property is `want`. */
static int wait_until_locked_is(int want)
{
    for (int waited_ms = 0; waited_ms < TIMEOUT_MS; waited_ms += 20) {
        int locked = !want;
        if (kt_ss_is_locked(&locked) != 0) return -1;
        if (locked == want) return 0;
        g_usleep(20 * 1000);
    }
    return fail(want ? "lock (still unlocked)" : "unlock (still locked)", NULL);
}

/** Calls Lock or Unlock of the service on `collection` and completes the
 *  prompt it returns (none on gnome-keyring's Lock). */
static int lock_or_unlock(const char *method, const char *collection)
{
    const char *objects[] = {collection};
    GVariant *reply = call(SERVICE_PATH, "org.freedesktop.Secret.Service", method,
                           g_variant_new("(@ao)", g_variant_new_objv(objects, 1)), "(aoo)");
    if (reply == NULL) return -1;
    const char *prompt = NULL;
    g_variant_get(reply, "(@ao&o)", NULL, &prompt);
    int status = complete_prompt(prompt);
    g_variant_unref(reply);
    return status;
}

int kt_server_is_fake(void)
{
    return strncmp(kt_server(), "fake", 4) == 0;
}

int kt_server_pads_no_key(void)
{
    return strcmp(kt_server(), "kwallet") == 0 || strcmp(kt_server(), "fake-ksecretd") == 0;
}

int kt_server_hides_locked_items(void)
{
    const char *server = kt_server();
    return strcmp(server, "keepassxc") == 0 || strcmp(server, "fake-oo7") == 0 ||
           strcmp(server, "fake-keepassxc-idle") == 0;
}

int kt_ss_lock(void)
{
    const char *collection = default_collection();
    if (collection == NULL) return -1;
    if (lock_or_unlock("Lock", collection) != 0) return -1;
    return wait_until_locked_is(1);
}

/** gnome-keyring: UnlockWithMasterPassword, no prompt. */
static int unlock_gnome_keyring(const char *collection)
{
    const char *password = getenv("KEYCHAINKIT_TEST_KEYRING_PASSWORD");
    if (password == NULL) return fail("unlock (no KEYCHAINKIT_TEST_KEYRING_PASSWORD)", NULL);
    GVariant *reply = call(SERVICE_PATH, "org.gnome.keyring.InternalUnsupportedGuiltRiddenInterface",
                           "UnlockWithMasterPassword",
                           g_variant_new("(o@(oayays))", collection, plain_secret(password)), NULL);
    if (reply == NULL) return -1;
    g_variant_unref(reply);
    return 0;
}

/** KeePassXC: its own D-Bus method opens the database with the password
 *  (its unlock prompt shows a dialog); $KEYCHAINKIT_TEST_KEEPASSXC_* come
 *  from scripts/with-keepassxc.sh. */
static int unlock_keepassxc(void)
{
    const char *database = getenv("KEYCHAINKIT_TEST_KEEPASSXC_DATABASE");
    const char *password_file = getenv("KEYCHAINKIT_TEST_KEEPASSXC_PASSWORD_FILE");
    char *password = NULL;
    if (database == NULL || password_file == NULL ||
        !g_file_get_contents(password_file, &password, NULL, NULL))
        return fail("unlock (no KEYCHAINKIT_TEST_KEEPASSXC_DATABASE or _PASSWORD_FILE)", NULL);
    g_strstrip(password);
    GError *error = NULL;
    GVariant *reply = g_dbus_connection_call_sync(
        bus, "org.keepassxc.KeePassXC.MainWindow", "/keepassxc", "org.keepassxc.KeePassXC.MainWindow",
        "openDatabase", g_variant_new("(ss)", database, password), NULL, G_DBUS_CALL_FLAGS_NONE,
        TIMEOUT_MS, NULL, &error);
    g_free(password);
    if (reply == NULL) return fail("openDatabase", error);
    g_variant_unref(reply);
    return 0;
}

int kt_ss_unlock(void)
{
    /* A session on the server now running (a restart ends the old one). */
    if (connect_once() != 0) return -1;
    const char *collection = default_collection();
    if (collection == NULL) return -1;
    const char *server = kt_server();
    int prompted = strcmp(server, "kwallet") == 0 || kt_server_is_fake();
    int status = prompted                           ? lock_or_unlock("Unlock", collection)
               : strcmp(server, "keepassxc") == 0 ? unlock_keepassxc()
                                                  : unlock_gnome_keyring(collection);
    return status != 0 ? -1 : wait_until_locked_is(0);
}

int kt_lock_checked(void)
{
    int locked = 0;
    return CHECK(kt_ss_lock() == 0) && CHECK(kt_ss_is_locked(&locked) == 0) && CHECK(locked);
}

int kt_unlock_checked(void)
{
    int locked = 1;
    return CHECK(kt_ss_unlock() == 0) && CHECK(kt_ss_is_locked(&locked) == 0) && CHECK(!locked);
}

int kt_ss_is_locked(int *locked)
{
    const char *collection = default_collection();
    if (collection == NULL) return -1;
    GVariant *reply = call(collection, "org.freedesktop.DBus.Properties", "Get",
                           g_variant_new("(ss)", "org.freedesktop.Secret.Collection", "Locked"),
                           "(v)");
    if (reply == NULL) return -1;
    GVariant *value = NULL;
    g_variant_get(reply, "(v)", &value);
    *locked = g_variant_get_boolean(value);
    g_variant_unref(value);
    g_variant_unref(reply);
    return 0;
}

/** service=`service`, username=`account` and, unless `application` is
 *  NULL, application=`application`. */
static GVariant *attributes_with(const char *service, const char *account, const char *application)
{
    GVariantBuilder builder;
    g_variant_builder_init(&builder, G_VARIANT_TYPE("a{ss}"));
    g_variant_builder_add(&builder, "{ss}", "service", service);
    g_variant_builder_add(&builder, "{ss}", "username", account);
    if (application != NULL) g_variant_builder_add(&builder, "{ss}", "application", application);
    return g_variant_builder_end(&builder);
}

static GVariant *attributes(const char *service, const char *account)
{
    return attributes_with(service, account, NULL);
}

int kt_ss_count_items(const char *service, const char *account, int *count)
{
    if (connect_once() != 0) return -1;
    GVariant *reply = call(SERVICE_PATH, "org.freedesktop.Secret.Service", "SearchItems",
                           g_variant_new("(@a{ss})", attributes(service, account)), "(aoao)");
    if (reply == NULL) return -1;
    GVariant *unlocked = g_variant_get_child_value(reply, 0);
    GVariant *locked = g_variant_get_child_value(reply, 1);
    *count = (int)(g_variant_n_children(unlocked) + g_variant_n_children(locked));
    g_variant_unref(unlocked);
    g_variant_unref(locked);
    g_variant_unref(reply);
    return 0;
}

/** CreateItem in the collection of the default alias, with the attributes
 *  of attributes_with(), completing the confirmation prompt KeePassXC asks
 *  for. */
static int create_item(const char *service, const char *account, const char *application,
                       const char *label, const char *value, gboolean replace)
{
    if (connect_once() != 0) return -1;
    GVariantBuilder properties;
    g_variant_builder_init(&properties, G_VARIANT_TYPE("a{sv}"));
    g_variant_builder_add(&properties, "{sv}", "org.freedesktop.Secret.Item.Label",
                          g_variant_new_string(label));
    g_variant_builder_add(&properties, "{sv}", "org.freedesktop.Secret.Item.Attributes",
                          attributes_with(service, account, application));
    GVariant *reply = call(DEFAULT_COLLECTION, "org.freedesktop.Secret.Collection", "CreateItem",
                           g_variant_new("(@a{sv}@(oayays)b)", g_variant_builder_end(&properties),
                                         plain_secret(value), replace),
                           "(oo)");
    if (reply == NULL) return -1;
    const char *prompt = NULL;
    g_variant_get(reply, "(o&o)", NULL, &prompt);
    int status = complete_prompt(prompt);  /* KeePassXC confirms every create */
    g_variant_unref(reply);
    return status;
}

int kt_ss_create_item(const char *service, const char *account, const char *label,
                      const char *value)
{
    return create_item(service, account, NULL, label, value, FALSE);
}

int kt_keyring_set_password(const char *service, const char *account, const char *value)
{
    char label[512];
    int n = snprintf(label, sizeof label, "Password for '%s' on '%s'", account, service);
    if (n < 0 || (size_t)n >= sizeof label) return fail("kt_keyring_set_password (label too long)", NULL);
    return create_item(service, account, "Python keyring library", label, value, TRUE);
}

/** Quotes `s` for sh in single quotes into out; -1 when it does not fit. */
static int quote(const char *s, char *out, size_t size)
{
    size_t n = 0;
    if (size < 3) return -1;
    out[n++] = '\'';
    for (; *s; s++) {
        const char *piece = *s == '\'' ? "'\\''" : NULL;
        size_t len = piece ? strlen(piece) : 1;
        if (n + len + 2 > size) return -1;
        if (piece) memcpy(out + n, piece, len);
        else out[n] = *s;
        n += len;
    }
    out[n++] = '\'';
    out[n] = '\0';
    return 0;
}

static int secret_tool_command(char *cmd, size_t size, const char *verb, const char *label,
                               const char *service, const char *account)
{
    char qs[512], qa[512], ql[512];
    if (quote(service, qs, sizeof qs) || quote(account, qa, sizeof qa) ||
        quote(label ? label : "", ql, sizeof ql))
        return -1;
    /* Bounded: secret-tool store over an existing item never returns on
     * KeePassXC 2.7.4. */
    int n = label ? snprintf(cmd, size, "timeout 20 secret-tool %s --label=%s service %s username %s", verb, ql, qs, qa)
                  : snprintf(cmd, size, "timeout 20 secret-tool %s service %s username %s", verb, qs, qa);
    return n > 0 && (size_t)n < size ? 0 : -1;
}

/** Runs one secret-tool command: writes `input` to it, or reads its output
 *  into `out`; 0 when it exited 0. */
static int secret_tool_once(const char *cmd, const char *input, char *out, size_t size)
{
    FILE *pipe = popen(cmd, input != NULL ? "w" : "r");
    if (pipe == NULL) return -1;
    if (input != NULL) {
        fputs(input, pipe);
    } else {
        size_t n = fread(out, 1, size - 1, pipe);
        out[n] = '\0';
    }
    int status = pclose(pipe);
    return status != -1 && WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -1;
}

/** secret-tool VERB [--label=LABEL] service S username U, as above. On
 *  a server that does not pad its DH public key (kt_server_pads_no_key())
 *  a failed run is retried twice: libsecret's key exchange with KWallet
 *  5.103 fails about 1.5% of the time (see README), which is libsecret's
 *  problem, not the one under test. */
static int secret_tool(const char *verb, const char *label, const char *service, const char *account,
                       const char *input, char *out, size_t size)
{
    char cmd[2048], what[64];
    snprintf(what, sizeof what, "secret-tool %s", verb);
    if (secret_tool_command(cmd, sizeof cmd, verb, label, service, account) != 0)
        return fail(what, NULL);
    int attempts = kt_server_pads_no_key() ? 3 : 1;
    for (int attempt = 0; attempt < attempts; attempt++) {
        if (secret_tool_once(cmd, input, out, size) == 0) return 0;
    }
    return fail(what, NULL);
}

int kt_secret_tool_store(const char *service, const char *account, const char *label,
                         const char *value)
{
    return secret_tool("store", label, service, account, value, NULL, 0);
}

int kt_secret_tool_clear(const char *service, const char *account)
{
    char ignored[64];
    return secret_tool("clear", NULL, service, account, NULL, ignored, sizeof ignored);
}

int kt_secret_tool_lookup(const char *service, const char *account, char *out, size_t size)
{
    return secret_tool("lookup", NULL, service, account, NULL, out, size);
}

/** Calls the bus daemon itself; its reply (to unref) or NULL after printing. */
static GVariant *call_bus_daemon(const char *method, GVariant *args, const char *reply_type)
{
    GError *error = NULL;
    GVariant *reply = g_dbus_connection_call_sync(
        bus, "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", method, args,
        G_VARIANT_TYPE(reply_type), G_DBUS_CALL_FLAGS_NONE, TIMEOUT_MS, NULL, &error);
    if (reply == NULL) fail(method, error);
    return reply;
}

/** Waits until org.freedesktop.secrets has an owner (`want` 1) or none. */
static int wait_until_owned_is(int want)
{
    for (int waited_ms = 0; waited_ms < TIMEOUT_MS; waited_ms += 20) {
        GVariant *reply = call_bus_daemon("NameHasOwner", g_variant_new("(s)", BUS_NAME), "(b)");
        if (reply == NULL) return -1;
        gboolean owned = FALSE;
        g_variant_get(reply, "(b)", &owned);
        g_variant_unref(reply);
        if (owned == want) return 0;
        g_usleep(20 * 1000);
    }
    return fail(want ? "activation (no owner)" : "kill (the name is still owned)", NULL);
}

/** The unique name owning org.freedesktop.secrets (to g_free), or NULL
 *  when it has none. */
static char *name_owner(void)
{
    GVariant *reply = g_dbus_connection_call_sync(
        bus, "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "GetNameOwner",
        g_variant_new("(s)", BUS_NAME), G_VARIANT_TYPE("(s)"), G_DBUS_CALL_FLAGS_NONE, TIMEOUT_MS, NULL, NULL);
    if (reply == NULL) return NULL;
    char *owner = NULL;
    g_variant_get(reply, "(s)", &owner);
    g_variant_unref(reply);
    return owner;
}

/** The fake: its RestartLocked, then waits until another connection owns
 *  the name (the fake leaves the bus and comes back). */
static int restart_fake_locked(void)
{
    char *before = name_owner();
    if (before == NULL) return fail("restart (org.freedesktop.secrets has no owner)", NULL);
    GVariant *reply = call(CONTROL_PATH, CONTROL_INTERFACE, "RestartLocked", NULL, NULL);
    int moved = 0;
    for (int waited_ms = 0; reply != NULL && !moved && waited_ms < TIMEOUT_MS; waited_ms += 20) {
        g_usleep(20 * 1000);
        char *now = name_owner();
        moved = now != NULL && strcmp(now, before) != 0;
        g_free(now);
    }
    g_free(before);
    if (reply == NULL) return -1;
    g_variant_unref(reply);
    return moved ? 0 : fail("restart (the fake did not come back)", NULL);
}

int kt_fake_set_mode(const char *name, const char *argument)
{
    if (connect_once() != 0) return -1;
    GVariant *reply = argument != NULL
        ? call(CONTROL_PATH, CONTROL_INTERFACE, "SetMode", g_variant_new("(ss)", name, argument), NULL)
        : call(CONTROL_PATH, CONTROL_INTERFACE, "UnsetMode", g_variant_new("(s)", name), NULL);
    if (reply == NULL) return -1;
    g_variant_unref(reply);
    return 0;
}

int kt_ss_owner_pid(unsigned *pid)
{
    if (connect_once() != 0) return -1;
    GVariant *reply = call_bus_daemon("GetConnectionUnixProcessID", g_variant_new("(s)", BUS_NAME), "(u)");
    if (reply == NULL) return -1;
    guint32 owner = 0;
    g_variant_get(reply, "(u)", &owner);
    g_variant_unref(reply);
    *pid = owner;
    return owner != 0 ? 0 : fail("the owner's process ID", NULL);
}

/** SIGKILLs the process that owns org.freedesktop.secrets and waits until
 *  the name is free; this process's session is gone with it. */
static int kill_owner(void)
{
    unsigned pid = 0;
    if (kt_ss_owner_pid(&pid) != 0) return -1;
    if (kill((pid_t)pid, SIGKILL) != 0) return fail("kill the daemon", NULL);
    g_free(session_path);
    session_path = NULL;
    return wait_until_owned_is(0);
}

/** What a logout does before the server ends, so that nothing written is
 *  lost: KeePassXC's lockAllDatabases saves the database (its default
 *  AutoSaveOnExit, whatever AutoSaveAfterEveryChange says); KWallet's
 *  closeAllWallets writes the wallet, which kwalletd5 otherwise writes
 *  some seconds after a change (SIGKILLed or SIGTERMed at once, it keeps
 *  the latest items with empty secrets: measured with secret-tool). */
static int close_before_stop(void)
{
    const char *server = kt_server();
    int keepassxc = strcmp(server, "keepassxc") == 0;
    if (!keepassxc && strcmp(server, "kwallet") != 0) return 0;
    GError *error = NULL;
    GVariant *reply = keepassxc
        ? g_dbus_connection_call_sync(bus, "org.keepassxc.KeePassXC.MainWindow", "/keepassxc",
                                      "org.keepassxc.KeePassXC.MainWindow", "lockAllDatabases", NULL, NULL,
                                      G_DBUS_CALL_FLAGS_NONE, TIMEOUT_MS, NULL, &error)
        : g_dbus_connection_call_sync(bus, "org.kde.kwalletd5", "/modules/kwalletd5", "org.kde.KWallet",
                                      "closeAllWallets", NULL, NULL, G_DBUS_CALL_FLAGS_NONE, TIMEOUT_MS, NULL,
                                      &error);
    if (reply == NULL) return fail(keepassxc ? "lockAllDatabases" : "closeAllWallets", error);
    g_variant_unref(reply);
    return wait_until_locked_is(1);
}

/** Starts the harness's server again, as a login or the bus does, and
 *  waits until it owns the name with its collection locked (loaded from
 *  disk): gnome-keyring by bus activation; KeePassXC and KWallet, which the
 *  bus does not activate, by $KEYCHAINKIT_TEST_SERVER_START (set by
 *  scripts/with-keepassxc.sh and with-kwallet.sh: the server on its
 *  database or wallet, no password), run in a session of its own so that
 *  it outlives the forked test (the script ends whichever process owns the
 *  name at its end). */
static int start_locked(void)
{
    const char *command = getenv("KEYCHAINKIT_TEST_SERVER_START");
    if (command == NULL || *command == '\0') {
        GVariant *reply = call_bus_daemon("StartServiceByName", g_variant_new("(su)", BUS_NAME, 0), "(u)");
        if (reply == NULL) return -1;
        g_variant_unref(reply);
    } else {
        fflush(NULL);
        pid_t child = fork();
        if (child < 0) return fail("fork", NULL);
        if (child == 0) {
            if (setsid() < 0 || fork() != 0) _exit(0);
            int null = open("/dev/null", O_RDWR);
            if (null >= 0) {
                dup2(null, STDIN_FILENO);
                dup2(null, STDOUT_FILENO);
                dup2(null, STDERR_FILENO);
            }
            execl("/bin/sh", "sh", "-c", command, (char *)NULL);
            _exit(127);
        }
        waitpid(child, NULL, 0);
    }
    if (wait_until_owned_is(1) != 0) return -1;
    return wait_until_locked_is(1);
}

int kt_ss_restart_locked(void)
{
    if (connect_once() != 0) return -1;
    if (kt_server_is_fake()) {
        if (restart_fake_locked() != 0) return -1;
        g_free(session_path); /* the old owner's session is gone with it */
        session_path = NULL;
        return wait_until_locked_is(1);
    }
    if (close_before_stop() != 0 || kill_owner() != 0) return -1;
    return start_locked();
}

int kt_ss_item_number(const char *service, const char *account, unsigned *number)
{
    if (connect_once() != 0) return -1;
    GVariant *reply = call(SERVICE_PATH, "org.freedesktop.Secret.Service", "SearchItems",
                           g_variant_new("(@a{ss})", attributes(service, account)), "(aoao)");
    if (reply == NULL) return -1;
    GVariant *unlocked = g_variant_get_child_value(reply, 0);
    const char *path = NULL;
    if (g_variant_n_children(unlocked) == 1) g_variant_get_child(unlocked, 0, "&o", &path);
    const char *last = path != NULL ? strrchr(path, '/') : NULL;
    char *end = NULL;
    unsigned long parsed = last != NULL ? strtoul(last + 1, &end, 10) : 0;
    int status = last != NULL && end != last + 1 && *end == '\0' && parsed > 0 && parsed <= UINT_MAX ? 0 : -1;
    if (status == 0) *number = (unsigned)parsed;
    else fail("an item path ending in its number (one unlocked item)", NULL);
    g_variant_unref(unlocked);
    g_variant_unref(reply);
    return status;
}

int kt_ss_replace_with_fake(unsigned first_item, pid_t *pid)
{
    const char *command = getenv("KEYCHAINKIT_TEST_FAKE_COMMAND");
    if (command == NULL || *command == '\0')
        return fail("starting the fake (KEYCHAINKIT_TEST_FAKE_COMMAND is unset; IntegrationTests/c/run.sh sets it)", NULL);
    const char *collection = default_collection();
    const char *name = collection != NULL ? strrchr(collection, '/') : NULL;
    if (name == NULL || name[1] == '\0' || strspn(name + 1, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_") != strlen(name + 1))
        return fail("starting the fake (the default collection's path)", NULL);
    if (close_before_stop() != 0 || kill_owner() != 0) return -1;
    char script[1200];
    int n = snprintf(script, sizeof script, "exec %s --first-item %u --collection %s --print-ready", command,
                     first_item, name + 1);
    if (n < 0 || (size_t)n >= sizeof script) return fail("starting the fake (command too long)", NULL);
    int out[2];
    if (pipe(out) != 0) return fail("pipe", NULL);
    fflush(NULL);
    pid_t child = fork();
    if (child < 0) return fail("fork", NULL);
    if (child == 0) {
        dup2(out[1], STDOUT_FILENO);
        close(out[0]);
        close(out[1]);
        execl("/bin/sh", "sh", "-c", script, (char *)NULL);
        _exit(127);
    }
    close(out[1]);
    /* "ready" once it owns the name; bounded. */
    char line[16] = {0};
    size_t got = 0;
    struct pollfd ready = {.fd = out[0], .events = POLLIN};
    while (got < 6 && poll(&ready, 1, TIMEOUT_MS) == 1) {
        ssize_t r = read(out[0], line + got, sizeof line - 1 - got);
        if (r <= 0) break;
        got += (size_t)r;
    }
    close(out[0]);
    *pid = child;
    if (strncmp(line, "ready\n", 6) != 0) return fail("starting the fake (it did not say ready)", NULL);
    return wait_until_owned_is(1);
}

int kt_ss_end_fake(pid_t pid)
{
    if (pid > 0) {
        kill(pid, SIGKILL);
        waitpid(pid, NULL, 0);
    }
    g_free(session_path); /* the fake's session is gone with it */
    session_path = NULL;
    if (wait_until_owned_is(0) != 0 || start_locked() != 0) return -1;
    return kt_ss_unlock();
}

int kt_ss_items_hashed(const char *service, const char *account, int *hashed, int *count)
{
    if (connect_once() != 0) return -1;
    GVariant *reply = call(SERVICE_PATH, "org.freedesktop.Secret.Service", "SearchItems",
                           g_variant_new("(@a{ss})", attributes(service, account)), "(aoao)");
    if (reply == NULL) return -1;
    int status = 0;
    *hashed = 1;
    *count = 0;
    for (gsize list = 0; list < 2; list++) {
        GVariant *paths = g_variant_get_child_value(reply, list);
        for (gsize i = 0; i < g_variant_n_children(paths) && status == 0; i++) {
            const char *path = NULL;
            g_variant_get_child(paths, i, "&o", &path);
            GVariant *got = call(path, "org.freedesktop.DBus.Properties", "Get",
                                 g_variant_new("(ss)", "org.freedesktop.Secret.Item", "Attributes"), "(v)");
            if (got == NULL) {
                status = -1;
                break;
            }
            GVariant *shown = NULL;
            g_variant_get(got, "(v)", &shown);
            const char *ignored = NULL;
            int plain = g_variant_lookup(shown, "service", "&s", &ignored);
            int hashes = g_variant_lookup(shown, "gkr:compat:hashed:service", "&s", &ignored);
            if (plain || !hashes) *hashed = 0;
            (*count)++;
            g_variant_unref(shown);
            g_variant_unref(got);
        }
        g_variant_unref(paths);
    }
    g_variant_unref(reply);
    return status;
}
