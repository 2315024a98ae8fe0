// SPDX-License-Identifier: MIT
import CKeychainKitSupport
import KeychainKitAPI
import KeychainKitStatus

/// A C call's arguments could not be used; carries the status to return.
struct ArgumentFailure: Error {
    let status: kk_status
}

/// Records an invalid-argument failure with `detail` for kk_error_message.
func invalidArgument(_ detail: String) -> ArgumentFailure {
    ArgumentFailure(status: fail(KK_EINVAL, detail))
}

/// Records `status` with `detail` as this thread's last failure and returns it.
func fail(_ status: kk_status, _ detail: String?) -> kk_status {
    guard let detail else { return keychainkit_fail(status, nil) }
    return detail.withCString { keychainkit_fail(status, $0) }
}

/// Records an error of `handle`'s keychain as this thread's last failure,
/// with its backend's detail when it has one, and returns its status.
func fail(_ error: KeychainError, on handle: KeychainHandle) -> kk_status {
    let detail = handle.keychain.failureDetail(for: error)
    return switch error {
    case .interactionNotAllowed:
        fail(error.status, detail.map { "\($0); unlock it and retry" } ?? "unlock the keychain and retry; the item may exist")
    case let .unknownError(code, message): fail(error.status, "\(message) (code \(code))")
    default: fail(error.status, detail)
    }
}

/// The handle behind `kc`, or a failure when it is NULL.
func handle(_ kc: OpaquePointer?) throws(ArgumentFailure) -> KeychainHandle {
    guard let kc else { throw invalidArgument("the keychain handle is NULL") }
    return KeychainHandle.fromC(kc)
}

/// The key named by C strings; a NULL service is the default service.
func key(service: UnsafePointer<CChar>?, account: UnsafePointer<CChar>?) throws(ArgumentFailure) -> KeychainAttributes {
    let key = KeychainAttributes(account: try text(account, "account"), service: try serviceName(service))
    if let reason = key.invalidReason { throw invalidArgument(reason) }
    return key
}

/// The service named by a C string; NULL is the default service.
func serviceName(_ service: UnsafePointer<CChar>?) throws(ArgumentFailure) -> String {
    guard let decoded = try optionalText(service, "service") else { return KeychainAttributes.defaultService }
    guard !decoded.isEmpty else { throw invalidArgument("the service is empty") }
    return decoded
}

/// A required UTF-8 string argument called `name` in messages.
func text(_ pointer: UnsafePointer<CChar>?, _ name: String) throws(ArgumentFailure) -> String {
    guard let pointer else { throw invalidArgument("the \(name) is NULL") }
    guard let string = String(validatingCString: pointer) else { throw invalidArgument("the \(name) is not valid UTF-8") }
    return string
}

/// An optional UTF-8 string argument: NULL is none.
func optionalText(_ pointer: UnsafePointer<CChar>?, _ name: String) throws(ArgumentFailure) -> String? {
    guard let pointer else { return nil }
    return try text(pointer, name)
}

/// Runs a call of `handle`'s keychain, turning its error into its status
/// (recorded for kk_error_message).
func keychainStatus(_ handle: KeychainHandle, _ body: () throws(KeychainError) -> kk_status) -> kk_status {
    do {
        return try body()
    } catch {
        return fail(error, on: handle)
    }
}

/// Runs `body`, turning argument failures and keychain errors into statuses.
func status(_ body: () throws(ArgumentFailure) -> kk_status) -> kk_status {
    do {
        return try body()
    } catch {
        return error.status
    }
}
