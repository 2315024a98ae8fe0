// SPDX-License-Identifier: MIT
import KeychainKitBus
import KeychainKitCore
import KeychainKitSecretService

/// The D-Bus error a call is answered with: a name clients act on and a
/// message for people, never holding a secret.
struct ServiceError: Error {
    let name: String
    let message: String

    static func noSuchObject(_ path: String) -> ServiceError {
        ServiceError(name: SecretServiceNames.Error.noSuchObject, message: "no such object: \(path)")
    }

    static func isLocked(_ path: String) -> ServiceError {
        ServiceError(name: SecretServiceNames.Error.isLocked, message: "\(path) is locked")
    }

    static func noSession(_ path: String) -> ServiceError {
        ServiceError(name: SecretServiceNames.Error.noSession, message: "no session \(path) of this connection")
    }

    static func invalidArguments(_ message: String) -> ServiceError {
        ServiceError(name: BusNames.BusError.invalidArgs, message: message)
    }

    static func notSupported(_ message: String) -> ServiceError {
        ServiceError(name: BusNames.BusError.notSupported, message: message)
    }

    static func unknownMethod(_ interface: String, _ member: String) -> ServiceError {
        ServiceError(name: BusNames.BusError.unknownMethod, message: "no method \(member) of \(interface) here")
    }

    static func limit(_ message: String) -> ServiceError {
        ServiceError(name: BusNames.BusError.limitsExceeded, message: message)
    }

    /// gnome-keyring's answer to a wrong master password.
    static func denied(_ message: String) -> ServiceError {
        ServiceError(name: SecretServiceNames.MasterPassword.denied, message: message)
    }

    /// The file store failed: what it says, with its detail (a path and a
    /// cause; never a secret).
    static func store(_ error: KeychainError, detail: String?) -> ServiceError {
        let text = error.description + (detail.map { ": \($0)" } ?? "")
        return ServiceError(name: BusNames.BusError.failed, message: text)
    }
}
