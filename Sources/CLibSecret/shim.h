/* The parts of libsecret and GIO that KeychainKit uses, plus small inline
 * helpers for what Swift cannot call directly (variadic GLib constructors and
 * type macros). No logic lives here: each helper builds or unpacks one value. */
#ifndef KEYCHAINKIT_CLIBSECRET_SHIM_H
#define KEYCHAINKIT_CLIBSECRET_SHIM_H

#define SECRET_API_SUBJECT_TO_CHANGE 1
#include <libsecret/secret.h>
#include <gio/gio.h>
#include <string.h>

/* A SecretService proxy on a caller-owned connection (not the process-wide
 * shared bus, whose exit-on-close would terminate the host process when the
 * bus goes away), with an open transfer session, and without loading
 * properties or connecting signals. */
static inline SecretService *kk_secret_service_new(GDBusConnection *connection,
                                                   GCancellable *cancellable,
                                                   GError **error) {
    return (SecretService *)g_initable_new(
        SECRET_TYPE_SERVICE, cancellable, error,
        "g-connection", connection,
        "g-flags", G_DBUS_PROXY_FLAGS_DO_NOT_LOAD_PROPERTIES
                       | G_DBUS_PROXY_FLAGS_DO_NOT_CONNECT_SIGNALS
                       | G_DBUS_PROXY_FLAGS_DO_NOT_AUTO_START,
        "g-name", "org.freedesktop.secrets",
        "g-object-path", "/org/freedesktop/secrets",
        "g-interface-name", "org.freedesktop.Secret.Service",
        "flags", SECRET_SERVICE_OPEN_SESSION,
        NULL);
}

static inline GDBusConnection *kk_secret_service_connection(SecretService *service) {
    return g_dbus_proxy_get_connection(G_DBUS_PROXY(service));
}

static inline void kk_object_unref(void *object) { g_object_unref(object); }

/* Builds the attribute dictionary a{ss} that identifies a key. When schema is
 * non-NULL it is added as xdg:schema (for items we create). */
static inline GVariant *kk_variant_key_attributes(const char *service,
                                                  const char *account,
                                                  const char *schema) {
    GVariantBuilder builder;
    g_variant_builder_init(&builder, G_VARIANT_TYPE("a{ss}"));
    g_variant_builder_add(&builder, "{ss}", "service", service);
    g_variant_builder_add(&builder, "{ss}", "username", account);
    if (schema != NULL)
        g_variant_builder_add(&builder, "{ss}", "xdg:schema", schema);
    return g_variant_builder_end(&builder);
}

/* (a{ss}) for Service.SearchItems. */
static inline GVariant *kk_variant_search_args(const char *service, const char *account) {
    return g_variant_new("(@a{ss})", kk_variant_key_attributes(service, account, NULL));
}

/* (a{sv}(oayays)b) for Collection.CreateItem. secret is the encoded secret
 * (floating or owned, consumed). */
static inline GVariant *kk_variant_create_item_args(const char *label,
                                                    const char *service,
                                                    const char *account,
                                                    const char *schema,
                                                    GVariant *secret,
                                                    gboolean replace) {
    GVariantBuilder props;
    g_variant_builder_init(&props, G_VARIANT_TYPE("a{sv}"));
    g_variant_builder_add(&props, "{sv}", "org.freedesktop.Secret.Item.Label",
                          g_variant_new_string(label));
    g_variant_builder_add(&props, "{sv}", "org.freedesktop.Secret.Item.Attributes",
                          kk_variant_key_attributes(service, account, schema));
    return g_variant_new("(a{sv}@(oayays)b)", &props, secret, replace);
}

/* (X) around one value (consumed), e.g. (o) or ((oayays)). */
static inline GVariant *kk_variant_tuple1(GVariant *child) {
    return g_variant_new_tuple(&child, 1);
}

/* (ss) for org.freedesktop.DBus.Properties.Get. */
static inline GVariant *kk_variant_property_args(const char *interface, const char *property) {
    return g_variant_new("(ss)", interface, property);
}

/* The unsigned 64-bit integer inside a (v) property reply, or 0. */
static inline guint64 kk_variant_property_uint64(GVariant *reply) {
    GVariant *boxed = NULL;
    guint64 result = 0;
    g_variant_get(reply, "(v)", &boxed);
    if (boxed != NULL && g_variant_is_of_type(boxed, G_VARIANT_TYPE_UINT64))
        result = g_variant_get_uint64(boxed);
    if (boxed != NULL)
        g_variant_unref(boxed);
    return result;
}

static inline const GVariantType *kk_variant_type_object_paths(void) { return G_VARIANT_TYPE("(aoao)"); }
static inline const GVariantType *kk_variant_type_secret_reply(void) { return G_VARIANT_TYPE("((oayays))"); }
static inline const GVariantType *kk_variant_type_object_path_pair(void) { return G_VARIANT_TYPE("(oo)"); }
static inline const GVariantType *kk_variant_type_object_path(void) { return G_VARIANT_TYPE("(o)"); }
static inline const GVariantType *kk_variant_type_variant(void) { return G_VARIANT_TYPE("(v)"); }

static inline GQuark kk_io_error_quark(void) { return G_IO_ERROR; }
static inline GQuark kk_dbus_error_quark(void) { return G_DBUS_ERROR; }

/* Overwrites n bytes at p with zeros in a way the compiler may not elide. */
static inline void kk_wipe(void *p, size_t n) {
    if (p != NULL && n > 0)
        explicit_bzero(p, n);
}

#endif
