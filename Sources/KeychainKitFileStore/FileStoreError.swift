// SPDX-License-Identifier: MIT
import KeychainKitCore

/// A failure of the file store on its way out: the ``KeychainError`` its
/// caller sees, and what ``FileKeychainInterface/failureDetail(for:)``
/// adds on the same thread (the path, the cause, what to do; never a
/// secret).
struct FileStoreError: Error {
    let error: KeychainError
    let detail: String?

    init(_ error: KeychainError, _ detail: String? = nil) {
        self.error = error
        self.detail = detail
    }

    /// A fault of the file's bytes.
    init(_ fault: FileStoreFault, in path: String) {
        self.init(.corruptStore, "\(path): \(fault.reason); the file was left as it is")
    }
}
