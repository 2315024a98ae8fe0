// SPDX-License-Identifier: MIT
import CKeychainKitSupport
import KeychainKitAPI
import KeychainKitStatus

/// The documented exit codes of `keychainkit`.
enum ExitCode: Int32 {
    case success = 0
    case notFound = 1
    case usage = 2
    case locked = 3
    case unavailable = 4
    case denied = 5
    case canceled = 6
    case keychainError = 7
    case io = 8
    case wrongMasterKey = 9
    case noMasterKey = 10
    case corruptStore = 11
    /// `run`: the command could not be executed, or was not found (as shells say).
    case commandNotExecutable = 126
    case commandNotFound = 127

    /// The exit code of a failure with `error`: the one of its `kk_status`.
    init(_ error: KeychainError) {
        self.init(error.status)
    }

    /// The exit code of a call that returned `status`.
    init(_ status: kk_status) {
        self = switch status {
        case KK_OK: .success
        case KK_ENOTFOUND: .notFound
        case KK_ELOCKED: .locked
        case KK_EUNAVAILABLE: .unavailable
        case KK_EDENIED: .denied
        case KK_ECANCELED: .canceled
        case KK_EINVAL: .usage
        case KK_EWRONGKEY: .wrongMasterKey
        case KK_ENOKEY: .noMasterKey
        case KK_ECORRUPT: .corruptStore
        default: .keychainError  // KK_EDUPLICATE, KK_ENOMEM, KK_EUNKNOWN
        }
    }
}

/// A failure that ends the program with a message on stderr (never a secret).
struct CLIFailure: Error {
    let code: ExitCode
    let message: String

    init(_ code: ExitCode, _ message: String) {
        self.code = code
        self.message = message
    }

    /// The failure of `what`, with what the backend adds to the error (its
    /// words for the cause).
    init(_ error: KeychainError, doing what: String, detail: String?) {
        self.init(ExitCode(error), "\(what): \(error)\(detail.map { ": \($0)" } ?? "")")
    }
}
