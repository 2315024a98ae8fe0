// SPDX-License-Identifier: MIT
import CKeychainKitSupport
import KeychainKitCore
#if canImport(Glibc)
import Glibc
#endif

/// The one mapping from the Swift core's errors to the C ABI's statuses,
/// and the one set of words for them: the C exports return these statuses,
/// `kk_status_string` says these words, and the command-line tool derives
/// its exit codes from these statuses.
extension KeychainError {

    /// The `kk_status` of this error.
    public var status: kk_status {
        switch self {
        case .itemNotFound: KK_ENOTFOUND
        case .duplicateItem: KK_EDUPLICATE
        case .interactionNotAllowed: KK_ELOCKED
        case .missingEntitlement: KK_EDENIED
        case .serviceUnavailable: KK_EUNAVAILABLE
        case .userCanceled: KK_ECANCELED
        case .invalidArgument: KK_EINVAL
        case .unknownError: KK_EUNKNOWN
        case .wrongMasterKey: KK_EWRONGKEY
        case .noMasterKey: KK_ENOKEY
        case .corruptStore: KK_ECORRUPT
        }
    }

    /// One error of each kind: every `kk_status` but `KK_OK` and
    /// `KK_ENOMEM` is the status of exactly one of them.
    static let oneOfEachKind: [KeychainError] = [
        .itemNotFound, .duplicateItem, .interactionNotAllowed, .missingEntitlement, .serviceUnavailable,
        .userCanceled, .invalidArgument, .unknownError(code: 0, message: ""), .wrongMasterKey, .noMasterKey,
        .corruptStore,
    ]
}

/// What `kk_status_string` returns for each status: NUL-terminated copies,
/// made once and never freed or written (so safe to share across threads).
nonisolated(unsafe) private let statusWords: [Int32: UnsafePointer<CChar>] = {
    var words: [Int32: String] = [KK_OK.rawValue: "success", KK_ENOMEM.rawValue: "out of memory"]
    for error in KeychainError.oneOfEachKind { words[error.status.rawValue] = error.summary }
    return words.compactMapValues { strdup($0).map { UnsafePointer($0) } }  // out of memory: "unknown status"
}()

private let unknownStatusWords: StaticString = "unknown status"

@c @implementation
public func kk_status_string(_ status: kk_status) -> UnsafePointer<CChar>? {
    statusWords[status.rawValue] ?? UnsafeRawPointer(unknownStatusWords.utf8Start).assumingMemoryBound(to: CChar.self)
}
