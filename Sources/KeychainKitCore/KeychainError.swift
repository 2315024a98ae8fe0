// SPDX-License-Identifier: MIT
/// The ways a keychain operation fails.
///
/// The cases of the KeychainKit reference, plus the situations a Linux
/// Secret Service adds. Reads of an absent item return `nil` instead of
/// throwing ``itemNotFound``; the case exists for the storage primitives of
/// ``KeychainInterfaceProtocol``.
public enum KeychainError: Equatable, Error, Sendable {

    /// An item already exists for the key.
    case duplicateItem

    /// The keychain is locked and cannot be unlocked without a prompt we may
    /// not show. The item may well exist: this is never "absent".
    case interactionNotAllowed

    /// No item exists for the key.
    case itemNotFound

    /// Access was refused by policy (for example a sandbox, or the service's
    /// `AccessDenied`).
    case missingEntitlement

    /// The backend cannot be reached: there is no session bus, or no Secret
    /// Service provider answers on it; or the kernel keyring is forbidden
    /// (a seccomp filter) or missing.
    case serviceUnavailable

    /// The user dismissed a prompt.
    case userCanceled

    /// An argument was unusable: an empty service, an account or service
    /// that contains a NUL character; or a value the backend cannot store (the
    /// kernel keyring's: 1 to 32767 bytes).
    case invalidArgument

    /// The master secret does not open the keyring file of a
    /// ``FileKeychainInterface``: none of its items verifies under it (a
    /// mistyped secret, or another program's file). Never "absent".
    case wrongMasterKey

    /// A ``FileKeychainInterface`` has no master secret: the source given
    /// yields none. Nothing was written.
    case noMasterKey

    /// The keyring file is damaged, not a keyring file, of a version not
    /// read, or has key parameters too weak to trust. Nothing was written.
    case corruptStore

    /// Any other failure, with the backend's error code and message
    /// (for the Secret Service, the D-Bus error name and its text).
    /// The message never contains a secret.
    case unknownError(code: Int32, message: String)
}

extension KeychainError: CustomStringConvertible {

    /// The failure in a few words, the same for every error of its kind:
    /// the one set of words, which the C library's `kk_status_string` and
    /// the command-line tool say too.
    public var summary: String {
        switch self {
        case .duplicateItem: "an item already exists for the key"
        case .interactionNotAllowed: "the keychain is locked and may not prompt to unlock"
        case .itemNotFound: "no item exists for the key"
        case .missingEntitlement: "access to the keychain was denied"
        case .serviceUnavailable: "the keychain is unavailable"
        case .userCanceled: "the user canceled the operation"
        case .invalidArgument: "invalid argument"
        case .wrongMasterKey: "the master secret does not open the keychain"
        case .noMasterKey: "no master secret for the keychain"
        case .corruptStore: "the keychain's file is damaged or not a keychain"
        case .unknownError: "keychain error"
        }
    }

    /// A short, human-readable description of the failure: its
    /// ``summary``, with the backend's code and message for an unknown error.
    public var description: String {
        if case let .unknownError(code, message) = self { return "\(summary) \(code): \(message)" }
        return summary
    }
}
