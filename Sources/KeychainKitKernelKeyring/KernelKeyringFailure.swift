// SPDX-License-Identifier: MIT
import KeychainKitCore
#if canImport(Glibc)
import Glibc
#endif

/// The keychain errors of the key-management system calls' errnos.
enum KernelKeyringFailure {

    /// The errnos that mean the key is not there (any more): none matched,
    /// or the one found was revoked, invalidated or expired.
    static func meansAbsent(_ code: Int32) -> Bool {
        code == ENOKEY || code == EKEYREVOKED || code == EKEYEXPIRED
    }

    /// The error of a failed call doing `operation`; `needing` is the bytes
    /// a key being written takes from the quota, when known.
    static func error(_ code: Int32, _ operation: String, needing: Int? = nil) -> KeychainError {
        switch code {
        case ENOSYS, EPERM, EOPNOTSUPP:
            // A seccomp filter (Docker's default profile answers ENOSYS or
            // EPERM), or a kernel built without (persistent) keyrings.
            .serviceUnavailable
        case EACCES:
            .missingEntitlement
        case EDQUOT:
            .unknownError(code: code, message: KernelKeyQuota.exceededMessage(needing: needing))
        case _ where meansAbsent(code):
            .itemNotFound
        default:
            .unknownError(code: code, message: "\(operation): \(strerror(code).map { String(cString: $0) } ?? "errno \(code)")")
        }
    }
}
