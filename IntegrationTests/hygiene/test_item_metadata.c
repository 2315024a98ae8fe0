/* SPDX-License-Identifier: MIT */
/*
 * test_item_metadata.c — a secret never goes into the label or the
 * attributes of its Secret Service item (DESIGN: "Secrets never go into
 * labels, attributes, logs or error messages"): anyone may read those
 * without unlocking the collection.
 *
 * Stores markers through the library (insert, then update, a text and a
 * binary value), then reads every item of the private keyring over D-Bus
 * with GIO, bypassing the library: Service.SearchItems({}) lists them all,
 * Properties.Get gives each one's Label and Attributes.
 */
#include "kt_keychain.h"
#include "markers.h"

#include <gio/gio.h>

#include <string.h>

#define BUS_NAME "org.freedesktop.secrets"
#define TIMEOUT_MS 10000

/** Properties.Get(org.freedesktop.Secret.Item, name) of one item: the
 *  inner value (to unref), or NULL after a failed check. */
static GVariant *item_property(GDBusConnection *bus, const char *path, const char *name)
{
    GError *error = NULL;
    GVariant *reply = g_dbus_connection_call_sync(
        bus, BUS_NAME, path, "org.freedesktop.DBus.Properties", "Get",
        g_variant_new("(ss)", "org.freedesktop.Secret.Item", name), G_VARIANT_TYPE("(v)"),
        G_DBUS_CALL_FLAGS_NONE, TIMEOUT_MS, NULL, &error);
    if (!kt_check(reply != NULL, __FILE__, __LINE__, "Get %s of %s: %s", name, path,
                  error ? error->message : "?")) {
        if (error) g_error_free(error);
        return NULL;
    }
    GVariant *value = NULL;
    g_variant_get(reply, "(v)", &value);
    g_variant_unref(reply);
    return value;
}

/** Checks that `text` (a label, attribute name or value) holds no marker. */
static void check_clean(const char *what, const char *path, const char *text,
                        const char *const *markers, int n)
{
    for (int i = 0; i < n; i++)
        kt_check(strstr(text, markers[i]) == NULL, __FILE__, __LINE__,
                 "the secret is in the %s of %s: \"%s\"", what, path, text);
}

/** Checks every item's label and attributes; returns how many items carry
 *  service=`service` (so that the caller can see its own were inspected). */
static int check_all_items(const char *service, const char *const *markers, int n)
{
    GError *error = NULL;
    GDBusConnection *bus = g_bus_get_sync(G_BUS_TYPE_SESSION, NULL, &error);
    if (!kt_check(bus != NULL, __FILE__, __LINE__, "session bus: %s", error ? error->message : "?"))
        return 0;
    GVariantBuilder none;
    g_variant_builder_init(&none, G_VARIANT_TYPE("a{ss}"));
    GVariant *reply = g_dbus_connection_call_sync(
        bus, BUS_NAME, "/org/freedesktop/secrets", "org.freedesktop.Secret.Service", "SearchItems",
        g_variant_new("(a{ss})", &none), G_VARIANT_TYPE("(aoao)"), G_DBUS_CALL_FLAGS_NONE,
        TIMEOUT_MS, NULL, &error);
    if (!kt_check(reply != NULL, __FILE__, __LINE__, "SearchItems: %s", error ? error->message : "?")) {
        g_object_unref(bus);
        return 0;
    }
    int ours = 0;
    for (int list = 0; list < 2; list++) { /* unlocked, then locked items */
        GVariant *paths = g_variant_get_child_value(reply, (gsize)list);
        for (gsize i = 0; i < g_variant_n_children(paths); i++) {
            const char *path = NULL;
            g_variant_get_child(paths, i, "&o", &path);
            GVariant *label = item_property(bus, path, "Label");
            if (label != NULL) {
                check_clean("label", path, g_variant_get_string(label, NULL), markers, n);
                g_variant_unref(label);
            }
            GVariant *attributes = item_property(bus, path, "Attributes");
            if (attributes != NULL) {
                GVariantIter iter;
                const char *key, *value;
                g_variant_iter_init(&iter, attributes);
                while (g_variant_iter_next(&iter, "{&s&s}", &key, &value)) {
                    check_clean("attribute names", path, key, markers, n);
                    check_clean("attribute values", path, value, markers, n);
                    if (strcmp(key, "service") == 0 && strcmp(value, service) == 0) ours++;
                }
                g_variant_unref(attributes);
            }
        }
        g_variant_unref(paths);
    }
    g_variant_unref(reply);
    g_object_unref(bus);
    return ours;
}

TEST_ON(KT_SECRET_SERVICE, no_secret_in_item_label_or_attributes)
{
    char inserted[128], updated[128], binary[128];
    hy_marker(inserted, sizeof inserted, "inserted");
    hy_marker(updated, sizeof updated, "updated");
    hy_marker(binary, sizeof binary, "binary");
    /* A value that is not UTF-8 takes the library's other content type. */
    char binary_value[160];
    binary_value[0] = '\xFF';
    memcpy(binary_value + 1, binary, strlen(binary) + 1);

    kk_keychain *kc = kt_open();
    REQUIRE(kc != NULL);
    const char *svc = kt_service();
    CHECK_STATUS(kk_set(kc, svc, "text", inserted, strlen(inserted)), KK_OK);  /* insert */
    CHECK_STATUS(kk_set(kc, svc, "text", updated, strlen(updated)), KK_OK);    /* update */
    CHECK_STATUS(kk_set(kc, svc, "binary", binary_value, strlen(binary) + 1), KK_OK);
    CHECK_VALUE(kc, svc, "text", updated, strlen(updated));

    const char *markers[] = {inserted, updated, binary};
    int ours = check_all_items(svc, markers, 3);
    CHECK_EQ(ours, 2); /* both of our items were among those inspected */

    kk_remove(kc, svc, "text");
    kk_remove(kc, svc, "binary");
    kk_close(kc);
}
