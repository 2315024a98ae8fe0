// SPDX-License-Identifier: MIT
import KeychainKitCore

/// A key whose values are of type `Value`, and how they are stored.
///
/// Strings are stored as their UTF-8 bytes and `[UInt8]` as is, so other
/// tools (`secret-tool`, Python `keyring`, the C API) read and write the
/// same items. Other types bring their own coding: ``init(_:service:encode:decode:)``,
/// or the JSON coding of the `KeychainKitCodable` product for `Codable`
/// values (kept out of this module, which does not use Foundation).
///
///     extension KeychainKey where Value == String {
///         static let apiToken = KeychainKey("apiToken")
///     }
///     try keychain.set("abc", for: .apiToken)
///     let token = try keychain.value(for: .apiToken)   // String?
public struct KeychainKey<Value>: Sendable {

    /// The item's account and service.
    public let attributes: KeychainAttributes

    /// The bytes stored for a value.
    public let encode: @Sendable (Value) throws(KeychainError) -> [UInt8]

    /// The value stored bytes hold; `nil` when they hold no `Value` (they
    /// read as absent, as a string that is not UTF-8 does, and the next
    /// write replaces them).
    public let decode: @Sendable ([UInt8]) -> Value?

    /// A key of `account` in `service` whose values are coded by `encode`
    /// and `decode`.
    public init(
        _ account: String, service: String = KeychainAttributes.defaultService,
        encode: @escaping @Sendable (Value) throws(KeychainError) -> [UInt8],
        decode: @escaping @Sendable ([UInt8]) -> Value?
    ) {
        self.attributes = KeychainAttributes(account: account, service: service)
        self.encode = encode
        self.decode = decode
    }
}

extension KeychainKey where Value == String {

    /// A key of `account` in `service` holding text, stored as UTF-8; a
    /// stored value that is not UTF-8 reads as absent.
    public init(_ account: String, service: String = KeychainAttributes.defaultService) {
        self.init(account, service: service, encode: { value in Array(value.utf8) },
                  decode: { bytes in String(validating: bytes, as: UTF8.self) })
    }
}

extension KeychainKey: ExpressibleByStringLiteral, ExpressibleByUnicodeScalarLiteral,
    ExpressibleByExtendedGraphemeClusterLiteral where Value == String {

    /// A text key of the account `value` in the default service.
    public init(stringLiteral value: String) {
        self.init(value)
    }
}

extension KeychainKey where Value == [UInt8] {

    /// A key of `account` in `service` holding bytes, stored as they are.
    public init(_ account: String, service: String = KeychainAttributes.defaultService) {
        self.init(account, service: service, encode: { value in value }, decode: { bytes in bytes })
    }
}
