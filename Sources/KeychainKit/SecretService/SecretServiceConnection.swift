import CGIO

/// A private D-Bus connection to the Secret Service with an open transfer
/// session.
///
/// The connection is our own, not GIO's process-wide session bus, so its
/// loss never terminates the host process (the shared bus exits on close),
/// and every call has a timeout. The session uses the Secret Service's
/// `plain` algorithm: secrets cross the local bus socket unencrypted, as
/// with go-keyring and keyring-rs' default; only processes of the same user
/// can see that traffic, and they can ask the service for the secret anyway.
final class SecretServiceConnection: @unchecked Sendable {

    static let busName = "org.freedesktop.secrets"
    static let servicePath = "/org/freedesktop/secrets"

    private let bus: OpaquePointer
    private let timeoutMilliseconds: Int32
    private let counter: UnsafeMutablePointer<kk_change_counter>
    private let filterID: guint

    /// The unique bus name of the service process we opened the session
    /// with. Calls go there, so a restarted service is noticed (its new
    /// process has another name) instead of being sent a stale session.
    private let destination: String

    /// The object path of our transfer session.
    let sessionPath: String

    /// Item paths found for keys, valid while ``changes`` is unchanged.
    let cache = ItemPathCache()

    private init(bus: OpaquePointer, destination: String, sessionPath: String, timeoutMilliseconds: Int32) {
        self.bus = bus
        self.destination = destination
        self.sessionPath = sessionPath
        self.timeoutMilliseconds = timeoutMilliseconds
        var filterID: guint = 0
        self.counter = kk_change_counter_install(bus, &filterID)
        self.filterID = filterID
        for rule in Self.matchRules { _ = kk_add_match_without_reply(bus, rule) }
    }

    deinit {
        g_dbus_connection_close_sync(bus, nil, nil)
        g_dbus_connection_remove_filter(bus, filterID)
        kk_change_counter_release(counter)
        kk_object_unref(UnsafeMutableRawPointer(bus))
    }

    /// The signals that count as changes: see `kk_change_counter`.
    private static let matchRules = [
        "type='signal',interface='org.freedesktop.Secret.Collection'",
        "type='signal',interface='org.freedesktop.Secret.Service'",
        "type='signal',sender='org.freedesktop.DBus',interface='org.freedesktop.DBus',"
            + "member='NameOwnerChanged',arg0='\(busName)'",
    ]

    /// How many changes the service has announced since we connected.
    var changes: UInt32 { kk_change_counter_get(counter) }

    /// Throws when the bus connection has closed (the bus went away).
    func checkOpen() throws(SecretServiceFailure) {
        if g_dbus_connection_is_closed(bus) != 0 {
            throw SecretServiceFailure(.serviceUnavailable, connectionLost: true, retryOnNewConnection: true)
        }
    }

    /// Connects to the bus at `busAddress` (the session bus when `nil`),
    /// opens a transfer session with the Secret Service, which the bus may
    /// start by D-Bus activation, waiting at most the timeout.
    static func open(busAddress: String?, timeoutMilliseconds: Int32) throws(SecretServiceFailure) -> SecretServiceConnection {
        var error: UnsafeMutablePointer<GError>?
        let sessionAddress = busAddress == nil ? g_dbus_address_get_for_bus_sync(G_BUS_TYPE_SESSION, nil, &error) : nil
        defer { g_free(sessionAddress) }
        guard let address = busAddress ?? sessionAddress.map({ String(cString: $0) }) else {
            throw unavailable(error)
        }
        let flags = GDBusConnectionFlags(
            G_DBUS_CONNECTION_FLAGS_AUTHENTICATION_CLIENT.rawValue
                | G_DBUS_CONNECTION_FLAGS_MESSAGE_BUS_CONNECTION.rawValue)
        guard let bus = g_dbus_connection_new_for_address_sync(address, flags, nil, nil, &error) else {
            throw unavailable(error)
        }
        g_dbus_connection_set_exit_on_close(bus, 0)
        let reply = g_dbus_connection_call_sync(
            bus, busName, servicePath, "org.freedesktop.Secret.Service", "OpenSession",
            kk_variant_open_plain_session_args(), kk_variant_type_session_reply(),
            G_DBUS_CALL_FLAGS_NONE, timeoutMilliseconds, nil, &error)
        guard let reply else {
            g_dbus_connection_close_sync(bus, nil, nil)
            kk_object_unref(UnsafeMutableRawPointer(bus))
            throw unavailable(error)
        }
        let session = Variant(owning: reply)[1].string
        let owner = g_dbus_connection_call_sync(
            bus, "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "GetNameOwner",
            kk_variant_string_tuple(busName), kk_variant_type_string(),
            G_DBUS_CALL_FLAGS_NONE, timeoutMilliseconds, nil, &error)
        guard let owner else {
            g_dbus_connection_close_sync(bus, nil, nil)
            kk_object_unref(UnsafeMutableRawPointer(bus))
            throw unavailable(error)
        }
        let destination = Variant(owning: owner)[0].string
        return SecretServiceConnection(
            bus: bus, destination: destination, sessionPath: session, timeoutMilliseconds: timeoutMilliseconds)
    }

    /// A failure to reach the service is "unavailable" whatever its detail,
    /// unless the service refused us.
    private static func unavailable(_ error: UnsafeMutablePointer<GError>?) -> SecretServiceFailure {
        if let error {
            let failure = SecretServiceFailure(consuming: error)
            if case .missingEntitlement = failure.error { return failure }
        }
        return SecretServiceFailure(.serviceUnavailable, connectionLost: true)
    }

    /// Calls `method` on the object at `path` and returns its reply, checked
    /// against `replyType`. A floating `arguments` value is consumed.
    func call(
        _ path: String, _ interface: String, _ method: String,
        _ arguments: OpaquePointer?, replyType: OpaquePointer?
    ) throws(SecretServiceFailure) -> Variant {
        var error: UnsafeMutablePointer<GError>?
        let reply = g_dbus_connection_call_sync(
            bus, destination, path, interface, method, arguments, replyType,
            G_DBUS_CALL_FLAGS_NO_AUTO_START, timeoutMilliseconds, nil, &error)
        guard let reply else {
            throw error.map { SecretServiceFailure(consuming: $0) } ?? SecretServiceFailure(.serviceUnavailable)
        }
        return Variant(owning: reply)
    }

    /// Encodes `bytes` as a floating `(oayays)` secret of this session.
    func encode(_ bytes: [UInt8]) -> OpaquePointer {
        let contentType = bytes.isValidUTF8 ? "text/plain" : "application/octet-stream"
        return bytes.withUnsafeBytes { buffer in
            kk_variant_plain_secret(sessionPath, buffer.baseAddress ?? UnsafeRawPointer(bitPattern: 1), buffer.count, contentType)
        }
    }

    /// Decodes an `(oayays)` secret of this session.
    func decode(_ secret: Variant) -> [UInt8] {
        let value = secret[2]
        var length: gsize = 0
        guard let bytes = g_variant_get_fixed_array(value.raw, &length, 1), length > 0 else { return [] }
        return Array(UnsafeRawBufferPointer(start: bytes, count: Int(length)))
    }
}
