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

/* A counter of the changes the Secret Service announced: every signal of the
 * Secret Service's Service and Collection interfaces (items or collections
 * created, changed, deleted), and every change of the owner of
 * org.freedesktop.secrets, increments it. A connection filter counts them on
 * GDBus's worker thread in message order, so a signal sent before the reply
 * to one of our calls is counted before that call returns. Reference
 * counted: the filter holds one reference, the caller another. */
typedef struct {
    gint changes;
} kk_change_counter;

static inline GDBusMessage *kk_change_counter_filter(GDBusConnection *connection, GDBusMessage *message,
                                                     gboolean incoming, gpointer data) {
    (void)connection;
    if (incoming && g_dbus_message_get_message_type(message) == G_DBUS_MESSAGE_TYPE_SIGNAL) {
        const char *interface = g_dbus_message_get_interface(message);
        const char *member = g_dbus_message_get_member(message);
        if (interface != NULL &&
            (strcmp(interface, "org.freedesktop.Secret.Collection") == 0 ||
             strcmp(interface, "org.freedesktop.Secret.Service") == 0 ||
             (strcmp(interface, "org.freedesktop.DBus") == 0 && member != NULL &&
              strcmp(member, "NameOwnerChanged") == 0)))
            g_atomic_int_inc(&((kk_change_counter *)data)->changes);
    }
    return message;
}

/* Installs a change counter on `connection`; *filter_id receives the filter's id. */
static inline kk_change_counter *kk_change_counter_install(GDBusConnection *connection, guint *filter_id) {
    kk_change_counter *counter = g_atomic_rc_box_new0(kk_change_counter);
    *filter_id = g_dbus_connection_add_filter(connection, kk_change_counter_filter,
                                              g_atomic_rc_box_acquire(counter), g_atomic_rc_box_release);
    return counter;
}

static inline guint32 kk_change_counter_get(kk_change_counter *counter) {
    return (guint32)g_atomic_int_get(&counter->changes);
}

static inline void kk_change_counter_release(kk_change_counter *counter) {
    g_atomic_rc_box_release(counter);
}

/* Asks the bus to route signals matching `rule` to us, without waiting for
 * the answer (the bus handles our messages in order). */
static inline gboolean kk_add_match_without_reply(GDBusConnection *connection, const char *rule) {
    GDBusMessage *message = g_dbus_message_new_method_call(
        "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "AddMatch");
    g_dbus_message_set_body(message, g_variant_new("(s)", rule));
    g_dbus_message_set_flags(message, G_DBUS_MESSAGE_FLAGS_NO_REPLY_EXPECTED);
    gboolean sent = g_dbus_connection_send_message(connection, message, G_DBUS_SEND_MESSAGE_FLAGS_NONE, NULL, NULL);
    g_object_unref(message);
    return sent;
}

/* (s) for org.freedesktop.DBus.GetNameOwner. */
static inline GVariant *kk_variant_string_tuple(const char *string) {
    return g_variant_new("(s)", string);
}

static inline const GVariantType *kk_variant_type_string(void) { return G_VARIANT_TYPE("(s)"); }

/* Overwrites n bytes at p with zeros in a way the compiler may not elide. */
static inline void kk_wipe(void *p, size_t n) {
    if (p != NULL && n > 0)
        explicit_bzero(p, n);
}

#endif
