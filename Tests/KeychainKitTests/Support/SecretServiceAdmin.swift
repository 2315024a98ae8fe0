// SPDX-License-Identifier: MIT
import CGIO
import Testing

#if canImport(Glibc)
import Glibc
#endif

struct AdminFailure: Error, CustomStringConvertible {
    let description: String
}

/// Administers the private gnome-keyring of the test harness over D-Bus:
/// creates collections with a known password, locks and unlocks them
/// without a prompt (gnome-keyring's internal interface), counts items.
final class SecretServiceAdmin {

    private let bus: OpaquePointer
    private let session: String

    init() throws {
        try requirePrivateKeyring()
        var error: UnsafeMutablePointer<GError>?
        guard let bus = g_bus_get_sync(G_BUS_TYPE_SESSION, nil, &error) else { throw Self.failure(error) }
        self.bus = bus
        let opened = try Self.call(bus, "/org/freedesktop/secrets", "org.freedesktop.Secret.Service",
                                   "OpenSession", "('plain', <''>)")
        defer { g_variant_unref(opened) }
        let path = g_variant_get_child_value(opened, 1)!
        defer { g_variant_unref(path) }
        session = String(cString: g_variant_get_string(path, nil))
    }

    deinit {
        g_object_unref(UnsafeMutableRawPointer(bus))
    }

    /// Creates a collection whose password is `password`; returns its object path.
    func createCollection(label: String, password: String) throws -> String {
        let reply = try call("/org/freedesktop/secrets", "org.gnome.keyring.InternalUnsupportedGuiltRiddenInterface",
                             "CreateWithMasterPassword",
                             "({'org.freedesktop.Secret.Collection.Label': <'\(label)'>}, \(secret(password)))")
        return try firstObjectPath(reply)
    }

    func lock(_ collection: String) throws {
        g_variant_unref(try call("/org/freedesktop/secrets", "org.freedesktop.Secret.Service", "Lock",
                                 "([objectpath '\(collection)'],)"))
    }

    func unlock(_ collection: String, password: String) throws {
        g_variant_unref(try call("/org/freedesktop/secrets", "org.gnome.keyring.InternalUnsupportedGuiltRiddenInterface",
                                 "UnlockWithMasterPassword", "(objectpath '\(collection)', \(secret(password)))"))
    }

    func deleteCollection(_ collection: String) throws {
        g_variant_unref(try call(collection, "org.freedesktop.Secret.Collection", "Delete", "()"))
    }

    /// The number of items (locked or not) whose `service` and `username` are the key's.
    func itemCount(service: String, account: String) throws -> Int {
        let reply = try call("/org/freedesktop/secrets", "org.freedesktop.Secret.Service", "SearchItems",
                             "({'service': '\(service)', 'username': '\(account)'},)")
        defer { g_variant_unref(reply) }
        var total = 0
        for index in 0..<2 {
            let list = g_variant_get_child_value(reply, gsize(index))!
            total += Int(g_variant_n_children(list))
            g_variant_unref(list)
        }
        return total
    }

    /// The attributes of every item of the key, as `name=value` lines sorted.
    func attributes(service: String, account: String) throws -> [[String: String]] {
        let reply = try call("/org/freedesktop/secrets", "org.freedesktop.Secret.Service", "SearchItems",
                             "({'service': '\(service)', 'username': '\(account)'},)")
        defer { g_variant_unref(reply) }
        let unlocked = g_variant_get_child_value(reply, 0)!
        defer { g_variant_unref(unlocked) }
        var result: [[String: String]] = []
        for index in 0..<g_variant_n_children(unlocked) {
            let pathValue = g_variant_get_child_value(unlocked, index)!
            let path = String(cString: g_variant_get_string(pathValue, nil))
            g_variant_unref(pathValue)
            result.append(try stringDictionaryProperty(path, "Attributes").merging(
                ["Label": try stringProperty(path, "Label")]) { $1 })
        }
        return result
    }

    private func stringProperty(_ path: String, _ name: String) throws -> String {
        let reply = try call(path, "org.freedesktop.DBus.Properties", "Get", "('org.freedesktop.Secret.Item', '\(name)')")
        defer { g_variant_unref(reply) }
        let boxed = g_variant_get_child_value(reply, 0)!
        let value = g_variant_get_variant(boxed)!
        defer { g_variant_unref(value); g_variant_unref(boxed) }
        return String(cString: g_variant_get_string(value, nil))
    }

    private func stringDictionaryProperty(_ path: String, _ name: String) throws -> [String: String] {
        let reply = try call(path, "org.freedesktop.DBus.Properties", "Get", "('org.freedesktop.Secret.Item', '\(name)')")
        defer { g_variant_unref(reply) }
        let boxed = g_variant_get_child_value(reply, 0)!
        let dictionary = g_variant_get_variant(boxed)!
        defer { g_variant_unref(dictionary); g_variant_unref(boxed) }
        var result: [String: String] = [:]
        for index in 0..<g_variant_n_children(dictionary) {
            let entry = g_variant_get_child_value(dictionary, index)!
            let key = g_variant_get_child_value(entry, 0)!, value = g_variant_get_child_value(entry, 1)!
            result[String(cString: g_variant_get_string(key, nil))] = String(cString: g_variant_get_string(value, nil))
            g_variant_unref(key); g_variant_unref(value); g_variant_unref(entry)
        }
        return result
    }

    private func secret(_ password: String) -> String {
        let bytes = password.utf8.map(String.init).joined(separator: ", ")
        return "(objectpath '\(session)', @ay [], @ay [\(bytes)], 'text/plain')"
    }

    private func firstObjectPath(_ reply: OpaquePointer) throws -> String {
        defer { g_variant_unref(reply) }
        let child = g_variant_get_child_value(reply, 0)!
        defer { g_variant_unref(child) }
        return String(cString: g_variant_get_string(child, nil))
    }

    private func call(_ path: String, _ interface: String, _ method: String, _ arguments: String) throws -> OpaquePointer {
        try Self.call(bus, path, interface, method, arguments)
    }

    private static func call(_ bus: OpaquePointer, _ path: String, _ interface: String, _ method: String,
                             _ arguments: String) throws -> OpaquePointer {
        var error: UnsafeMutablePointer<GError>?
        guard let parameters = g_variant_parse(nil, arguments, nil, nil, &error) else { throw failure(error) }
        defer { g_variant_unref(parameters) }
        guard let reply = g_dbus_connection_call_sync(
            bus, "org.freedesktop.secrets", path, interface, method, parameters, nil,
            G_DBUS_CALL_FLAGS_NONE, 10_000, nil, &error)
        else { throw failure(error) }
        return reply
    }

    private static func failure(_ error: UnsafeMutablePointer<GError>?) -> AdminFailure {
        guard let error else { return AdminFailure(description: "unknown D-Bus failure") }
        defer { g_error_free(error) }
        return AdminFailure(description: String(cString: error.pointee.message))
    }
}
