// SPDX-License-Identifier: MIT
import KeychainKitSystem
#if canImport(Glibc)
import Glibc
#endif

/// The key of a keychain item: an account within a service.
///
/// On the Secret Service the pair is stored as the attributes `service` and
/// `username`, the names Python `keyring`, go-keyring and keyring-rs share.
public struct KeychainAttributes: Equatable, ExpressibleByStringLiteral, Hashable, Sendable {

    /// The service used when none is given: the process name.
    public static let defaultService: String = ProcessName.current

    /// The account name of the item.
    public let account: String

    /// The service the item belongs to.
    public let service: String

    /// Creates attributes for the given account and service.
    public init(account: String, service: String = KeychainAttributes.defaultService) {
        self.account = account
        self.service = service
    }

    /// Creates attributes for the account `value` in the default service.
    public init(stringLiteral value: String) {
        self.init(account: value)
    }

    /// Why these attributes cannot address an item, or `nil` when they can.
    ///
    /// The service must be non-empty; both must be free of NUL characters
    /// (the Secret Service stores attributes as D-Bus strings). The account
    /// may be empty: Python `keyring`, `secret-tool` and libsecret store
    /// `username=""` as an ordinary attribute value, and reading or writing
    /// the same item as they do needs the same key.
    public var invalidReason: String? {
        if service.isEmpty { return "the service is empty" }
        if Self.containsNUL(account) { return "the account contains a NUL character" }
        if Self.containsNUL(service) { return "the service contains a NUL character" }
        return nil
    }

    /// Two keys are equal when their UTF-8 bytes are: the Secret Service,
    /// `secret-tool` and Python `keyring` compare bytes, so "é" (U+00E9) and
    /// "e" + U+0301 are two keys, although Swift strings call them equal.
    public static func == (lhs: KeychainAttributes, rhs: KeychainAttributes) -> Bool {
        lhs.account.hasSameUTF8(as: rhs.account) && lhs.service.hasSameUTF8(as: rhs.service)
    }

    /// Hashes the UTF-8 bytes, consistently with `==`.
    public func hash(into hasher: inout Hasher) {
        Self.hashBytes(account, into: &hasher)
        Self.hashBytes(service, into: &hasher)
    }

    private static func hashBytes(_ string: String, into hasher: inout Hasher) {
        hasher.combine(string.utf8.count)
        let hashed: Void? = string.utf8.withContiguousStorageIfAvailable { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
        if hashed == nil {
            for byte in string.utf8 { hasher.combine(byte) }
        }
    }

    private static func containsNUL(_ string: String) -> Bool {
        string.utf8.withContiguousStorageIfAvailable { bytes in
            bytes.count > 0 && memchr(bytes.baseAddress!, 0, bytes.count) != nil
        } ?? string.utf8.contains(0)
    }

    /// Throws ``KeychainError/invalidArgument`` when ``invalidReason`` is set.
    package func validate() throws(KeychainError) {
        if invalidReason != nil { throw .invalidArgument }
    }
}
