/* The parts of GIO that KeychainKit uses, plus small inline helpers for what
 * Swift cannot call directly (variadic GLib constructors and type macros).
 * No logic lives here: each helper builds or unpacks one value. */
#ifndef KEYCHAINKIT_CGIO_SHIM_H
#define KEYCHAINKIT_CGIO_SHIM_H

#include <gio/gio.h>
#include <string.h>

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

/* (sv) for Service.OpenSession with the "plain" algorithm. */
static inline GVariant *kk_variant_open_plain_session_args(void) {
    return g_variant_new("(sv)", "plain", g_variant_new_string(""));
}

/* A "plain" secret (oayays) of the given session: no parameters, the bytes
 * as they are. Floating. */
static inline GVariant *kk_variant_plain_secret(const char *session, const void *bytes,
                                                size_t length, const char *content_type) {
    return g_variant_new("(o@ay@ays)", session,
                         g_variant_new_fixed_array(G_VARIANT_TYPE_BYTE, "", 0, 1),
                         g_variant_new_fixed_array(G_VARIANT_TYPE_BYTE, bytes, length, 1),
                         content_type);
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

/* A newly allocated copy of the string under `key` in the a{ss} inside a
 * (v) property reply, or NULL. */
static inline gchar *kk_variant_property_dictionary_string(GVariant *reply, const char *key) {
    GVariant *boxed = NULL;
    gchar *result = NULL;
    g_variant_get(reply, "(v)", &boxed);
    if (boxed != NULL && g_variant_is_of_type(boxed, G_VARIANT_TYPE("a{ss}"))) {
        GVariant *value = g_variant_lookup_value(boxed, key, G_VARIANT_TYPE_STRING);
        if (value != NULL) {
            result = g_variant_dup_string(value, NULL);
            g_variant_unref(value);
        }
    }
    if (boxed != NULL)
        g_variant_unref(boxed);
    return result;
}

/* ({service: S},) for Service.SearchItems over a whole service. */
static inline GVariant *kk_variant_search_service_args(const char *service) {
    GVariantBuilder builder;
    g_variant_builder_init(&builder, G_VARIANT_TYPE("a{ss}"));
    g_variant_builder_add(&builder, "{ss}", "service", service);
    return g_variant_new("(a{ss})", &builder);
}

static inline const GVariantType *kk_variant_type_object_paths(void) { return G_VARIANT_TYPE("(aoao)"); }
static inline const GVariantType *kk_variant_type_secret_reply(void) { return G_VARIANT_TYPE("((oayays))"); }
static inline const GVariantType *kk_variant_type_object_path_pair(void) { return G_VARIANT_TYPE("(oo)"); }
static inline const GVariantType *kk_variant_type_object_path(void) { return G_VARIANT_TYPE("(o)"); }
static inline const GVariantType *kk_variant_type_variant(void) { return G_VARIANT_TYPE("(v)"); }
static inline const GVariantType *kk_variant_type_session_reply(void) { return G_VARIANT_TYPE("(vo)"); }

static inline GQuark kk_io_error_quark(void) { return G_IO_ERROR; }
static inline GQuark kk_dbus_error_quark(void) { return G_DBUS_ERROR; }

/* Overwrites n bytes at p with zeros in a way the compiler may not elide. */
static inline void kk_wipe(void *p, size_t n) {
    if (p != NULL && n > 0)
        explicit_bzero(p, n);
}

#endif
