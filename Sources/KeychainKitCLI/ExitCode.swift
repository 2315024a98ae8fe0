import KeychainKit

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

    init(_ error: KeychainError) {
        switch error {
        case .itemNotFound: self = .notFound
        case .interactionNotAllowed: self = .locked
        case .serviceUnavailable: self = .unavailable
        case .missingEntitlement: self = .denied
        case .userCanceled: self = .canceled
        case .invalidArgument: self = .usage
        case .duplicateItem, .unknownError: self = .keychainError
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
