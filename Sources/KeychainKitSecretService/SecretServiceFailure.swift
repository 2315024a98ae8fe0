// SPDX-License-Identifier: MIT
import KeychainKitBus
import KeychainKitCore
#if canImport(Glibc)
import Glibc
#endif

/// A failed D-Bus call, classified for the keychain.
package struct SecretServiceFailure: Error {

    /// What the caller of the keychain sees.
    package let error: KeychainError

    /// The connection (or its transfer session) is unusable: drop it and
    /// connect again on the next call.
    package let connectionLost: Bool

    /// The call may be repeated at once on a new connection: the failure
    /// says the old one was stale (the service restarted, the bus closed
    /// it, or it belongs to the parent of a fork()ed process), not that the
    /// service is slow or gone.
    package let retryOnNewConnection: Bool

    /// The D-Bus error name the peer answered with, if it did.
    private(set) var remoteName: String?

    /// What the caller may also want to know (see ``FailureDetail``).
    package let detail: String?

    /// The locked objects (collections or items) that, once unlocked, let
    /// the operation be tried again.
    package let unlocking: [String]

    package init(
        _ error: KeychainError, connectionLost: Bool = false, retryOnNewConnection: Bool = false,
        detail: String? = nil, unlocking: [String] = []
    ) {
        self.error = error
        self.connectionLost = connectionLost
        self.retryOnNewConnection = retryOnNewConnection
        self.detail = detail
        self.unlocking = unlocking
    }

    /// The operation needs `objects` unlocked; `what` says what is locked.
    package static func locked(_ objects: [String], _ what: String) -> SecretServiceFailure {
        SecretServiceFailure(.interactionNotAllowed, detail: "\(what) locked: \(objects.joined(separator: ", "))", unlocking: objects)
    }

    /// The service answered something no honest Secret Service would
    /// (`what`, e.g. "answered with the object path '/x', …"): reported as
    /// an unknown error naming it; the answer is never acted on.
    static func serverFault(_ what: String) -> SecretServiceFailure {
        SecretServiceFailure(.unknownError(code: EPROTO, message: "the Secret Service \(what) (a server fault)"))
    }

    /// Classifies a failure of the bus layer: the one place where what
    /// sd-bus, the kernel or the peer said becomes what the keychain reports.
    init(_ failure: BusFailure) {
        switch failure.kind {
        case .remote:
            if let name = failure.name, let known = Self.classify(remoteName: name) {
                self = known
            } else if let name = failure.name, !name.hasPrefix("System.Error."),
                      !SecretServiceNames.BusError.localErrnoNames.contains(name) {
                self.init(.unknownError(code: failure.code, message: failure.message.isEmpty ? name : "\(name): \(failure.message)"))
            } else {
                // An error sd-bus made up from an errno.
                self.init(errno: failure.code, operation: failure.operation)
            }
            remoteName = failure.name
        case .system:
            self.init(errno: failure.code, operation: failure.operation)
        case let .noAnswer(wholeOperation):
            // Past the call's own timeout the connection may hold a reply
            // that will never be read in order: drop it. Past the
            // operation's deadline, the call was merely cut short.
            self.init(.serviceUnavailable, connectionLost: !wholeOperation, detail: failure.message)
        case .malformed:
            self = .serverFault("sent a reply of an unexpected type")
        case .noBus:
            self.init(.serviceUnavailable, connectionLost: true, detail: failure.message)
        }
    }

    /// Classifies a local failure by its errno.
    init(errno code: Int32, operation: String) {
        switch code {
        case ECHILD, ECONNRESET, ENOTCONN, EPIPE, ESHUTDOWN, ECONNABORTED, ENETRESET:
            // The connection is closed, or was opened by the parent of this
            // fork()ed process: a new one finds the service, or fails fast.
            self.init(.serviceUnavailable, connectionLost: true, retryOnNewConnection: true)
        case ETIMEDOUT, ECONNREFUSED, ENOENT, ENOMEDIUM, ENXIO, EACCES, EPERM, EHOSTDOWN, EADDRNOTAVAIL:
            self.init(.serviceUnavailable, connectionLost: true)
        default:
            let text = strerror(code).map { String(cString: $0) } ?? "errno \(code)"
            self.init(.unknownError(code: code, message: "\(operation): \(text)"))
        }
    }

    /// The failures a remote error name says plainly; `nil` for others.
    private static func classify(remoteName name: String) -> SecretServiceFailure? {
        typealias Bus = SecretServiceNames.BusError
        switch name {
        case SecretServiceNames.Error.isLocked:
            return SecretServiceFailure(.interactionNotAllowed)
        case SecretServiceNames.Error.noSuchObject, Bus.unknownObject, Bus.unknownMethod,
             Bus.unknownInterface:  // KeePassXC, for a deleted item
            return SecretServiceFailure(.itemNotFound)
        case Bus.accessDenied, Bus.authFailed:
            return SecretServiceFailure(.missingEntitlement)
        case SecretServiceNames.Error.noSession, Bus.disconnected:
            return SecretServiceFailure(.serviceUnavailable, connectionLost: true, retryOnNewConnection: true)
        case Bus.serviceUnknown, Bus.nameHasNoOwner:
            // The service process we talked to is gone; a new connection
            // finds its successor, or reports it unavailable at once.
            return SecretServiceFailure(.serviceUnavailable, connectionLost: true, retryOnNewConnection: true)
        case Bus.noReply:
            // The bus daemon's answer when the service process leaves the
            // bus before answering (measured: KeePassXC 2.7.4 crashing
            // under rapid writes with its automatic saving on).
            return SecretServiceFailure(
                .serviceUnavailable, connectionLost: true,
                detail: "the Secret Service left the bus without answering: it exited or crashed")
        case Bus.noServer, Bus.timeout, Bus.timedOut:
            return SecretServiceFailure(.serviceUnavailable, connectionLost: true)
        default:
            if name.hasPrefix(Bus.spawnPrefix) {
                return SecretServiceFailure(.serviceUnavailable, connectionLost: true)
            }
            return nil
        }
    }
}
