import CGIO

/// A failed D-Bus call, classified for the keychain.
struct SecretServiceFailure: Error {

    /// What the caller of the keychain sees.
    let error: KeychainError

    /// The connection (or its transfer session) is unusable: drop it and
    /// connect again on the next call.
    let connectionLost: Bool

    /// The call may be repeated at once on a new connection: the failure
    /// says the old one was stale, not that the service is slow or gone.
    let retryOnNewConnection: Bool

    init(_ error: KeychainError, connectionLost: Bool = false, retryOnNewConnection: Bool = false) {
        self.error = error
        self.connectionLost = connectionLost
        self.retryOnNewConnection = retryOnNewConnection
    }

    /// Classifies a GError (remote D-Bus errors by their name) and frees it.
    init(consuming gerror: UnsafeMutablePointer<GError>) {
        defer { g_error_free(gerror) }
        let message = String(cString: gerror.pointee.message)
        if g_dbus_error_is_remote_error(gerror) != 0, let name = g_dbus_error_get_remote_error(gerror) {
            defer { g_free(name) }
            self.init(remoteName: String(cString: name), code: gerror.pointee.code, message: message)
        } else if gerror.pointee.domain == kk_io_error_quark() {
            switch GIOErrorEnum(UInt32(gerror.pointee.code)) {
            case G_IO_ERROR_CLOSED:
                self.init(.serviceUnavailable, connectionLost: true, retryOnNewConnection: true)
            case G_IO_ERROR_TIMED_OUT, G_IO_ERROR_CONNECTION_REFUSED,
                 G_IO_ERROR_NOT_FOUND, G_IO_ERROR_BROKEN_PIPE, G_IO_ERROR_CONNECTION_CLOSED,
                 G_IO_ERROR_NOT_CONNECTED, G_IO_ERROR_PERMISSION_DENIED, G_IO_ERROR_INVALID_ARGUMENT:
                self.init(.serviceUnavailable, connectionLost: true)
            default:
                self.init(.unknownError(code: gerror.pointee.code, message: message))
            }
        } else {
            self.init(.unknownError(code: gerror.pointee.code, message: message))
        }
    }

    private init(remoteName name: String, code: Int32, message: String) {
        switch name {
        case "org.freedesktop.Secret.Error.IsLocked":
            self.init(.interactionNotAllowed)
        case "org.freedesktop.Secret.Error.NoSuchObject",
             "org.freedesktop.DBus.Error.UnknownObject",
             "org.freedesktop.DBus.Error.UnknownMethod":
            self.init(.itemNotFound)
        case "org.freedesktop.DBus.Error.AccessDenied",
             "org.freedesktop.DBus.Error.AuthFailed":
            self.init(.missingEntitlement)
        case "org.freedesktop.Secret.Error.NoSession",
             "org.freedesktop.DBus.Error.Disconnected":
            self.init(.serviceUnavailable, connectionLost: true, retryOnNewConnection: true)
        case "org.freedesktop.DBus.Error.ServiceUnknown",
             "org.freedesktop.DBus.Error.NameHasNoOwner":
            // The service process we talked to is gone; a new connection
            // finds its successor, or reports it unavailable at once.
            self.init(.serviceUnavailable, connectionLost: true, retryOnNewConnection: true)
        case "org.freedesktop.DBus.Error.NoReply",
             "org.freedesktop.DBus.Error.NoServer",
             "org.freedesktop.DBus.Error.Timeout",
             "org.freedesktop.DBus.Error.TimedOut":
            self.init(.serviceUnavailable, connectionLost: true)
        default:
            if name.hasPrefix("org.freedesktop.DBus.Error.Spawn.") {
                self.init(.serviceUnavailable, connectionLost: true)
            } else {
                self.init(.unknownError(code: code, message: message))
            }
        }
    }
}
