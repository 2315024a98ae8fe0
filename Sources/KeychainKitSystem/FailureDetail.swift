// SPDX-License-Identifier: MIT
#if canImport(Glibc)
import Glibc
#endif

/// What the Secret Service backend found out about the calling thread's
/// last failure, beyond its ``KeychainError`` case: which locked
/// collections hid their items, that an unlock prompt went unanswered.
/// Never a secret. Read through
/// ``SecretServiceKeychainInterface/failureDetail(for:)``.
///
/// Set when an operation throws and cleared when one begins, so it
/// describes the thread's last operation only.
package enum FailureDetail {

    /// The detail of the calling thread's last operation, if any.
    package static var current: String? {
        guard let stored = pthread_getspecific(key) else { return nil }
        return Unmanaged<Box>.fromOpaque(stored).takeUnretainedValue().text
    }

    /// Creates the thread-specific key, if not yet done.
    package static func prepare() {
        _ = key
    }

    /// Replaces the calling thread's detail.
    package static func set(_ detail: String?) {
        if let stored = pthread_getspecific(key) { Unmanaged<Box>.fromOpaque(stored).release() }
        pthread_setspecific(key, detail.map { Unmanaged.passRetained(Box($0)).toOpaque() })
    }

    private final class Box {
        let text: String
        init(_ text: String) { self.text = text }
    }

    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        pthread_key_create(&key) { stored in if let stored { Unmanaged<Box>.fromOpaque(stored).release() } }
        return key
    }()
}
