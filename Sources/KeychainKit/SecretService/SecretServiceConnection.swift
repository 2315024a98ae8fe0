import CLibSecret

/// A private D-Bus connection to the Secret Service with an open transfer
/// session (secrets travel encrypted, as libsecret negotiates).
///
/// The connection is our own, not GIO's process-wide session bus, so its
/// loss never terminates the host process; every call has a timeout.
final class SecretServiceConnection: @unchecked Sendable {

    static let busName = "org.freedesktop.secrets"
    static let servicePath = "/org/freedesktop/secrets"

    private let bus: OpaquePointer
    private let service: UnsafeMutablePointer<SecretService>
    private let timeoutMilliseconds: Int32

    private init(bus: OpaquePointer, service: UnsafeMutablePointer<SecretService>, timeoutMilliseconds: Int32) {
        self.bus = bus
        self.service = service
        self.timeoutMilliseconds = timeoutMilliseconds
    }

    deinit {
        g_dbus_connection_close_sync(bus, nil, nil)
        kk_object_unref(service)
        kk_object_unref(UnsafeMutableRawPointer(bus))
    }

    /// Connects to the bus at `busAddress` (the session bus when `nil`), waits (at most the timeout) for the
    /// Secret Service to answer, starting it by D-Bus activation when the
    /// bus can, and opens a transfer session.
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
        let ping = g_dbus_connection_call_sync(
            bus, busName, servicePath, "org.freedesktop.DBus.Peer", "Ping",
            nil, nil, G_DBUS_CALL_FLAGS_NONE, timeoutMilliseconds, nil, &error)
        guard let ping else {
            kk_object_unref(UnsafeMutableRawPointer(bus))
            throw unavailable(error)
        }
        g_variant_unref(ping)
        guard let service = kk_secret_service_new(bus, nil, &error) else {
            kk_object_unref(UnsafeMutableRawPointer(bus))
            throw error.map { SecretServiceFailure(consuming: $0) } ?? SecretServiceFailure(.serviceUnavailable)
        }
        return SecretServiceConnection(bus: bus, service: service, timeoutMilliseconds: timeoutMilliseconds)
    }

    /// Any failure to reach the service is "unavailable", whatever its detail.
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
            bus, Self.busName, path, interface, method, arguments, replyType,
            G_DBUS_CALL_FLAGS_NO_AUTO_START, timeoutMilliseconds, nil, &error)
        guard let reply else {
            throw error.map { SecretServiceFailure(consuming: $0) } ?? SecretServiceFailure(.serviceUnavailable)
        }
        return Variant(owning: reply)
    }

    /// The object path of our transfer session.
    var sessionPath: String {
        String(cString: secret_service_get_session_dbus_path(service))
    }

    /// Encodes `bytes` as a floating `(oayays)` secret for this session.
    func encode(_ bytes: [UInt8]) -> OpaquePointer {
        let contentType = String(validating: bytes, as: UTF8.self) == nil ? "application/octet-stream" : "text/plain"
        let value = bytes.withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) { chars in
                secret_value_new(chars.baseAddress, gssize(chars.count), contentType)
            }
        }
        defer { secret_value_unref(UnsafeMutableRawPointer(value)) }
        return secret_service_encode_dbus_secret(service, value)
    }

    /// Decodes an `(oayays)` secret of this session.
    func decode(_ secret: Variant) throws(SecretServiceFailure) -> [UInt8] {
        guard let value = secret_service_decode_dbus_secret(service, secret.raw) else {
            throw SecretServiceFailure(.unknownError(code: 0, message: "the service sent a secret that could not be decoded"),
                                       connectionLost: true, retryOnNewConnection: true)
        }
        defer { secret_value_unref(UnsafeMutableRawPointer(value)) }
        var length: gsize = 0
        guard let bytes = secret_value_get(value, &length), length > 0 else { return [] }
        return Array(UnsafeRawBufferPointer(start: bytes, count: Int(length)))
    }
}
