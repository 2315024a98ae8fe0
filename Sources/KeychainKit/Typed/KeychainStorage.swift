// SPDX-License-Identifier: MIT
import KeychainKitAPI

/// A property backed by a keychain item, like SwiftUI's `@AppStorage`:
///
///     struct Settings {
///         @KeychainStorage("apiKey") var apiKey: String?
///         @KeychainStorage(.session) var session: Session?   // a KeychainKey<Session>
///     }
///
/// Reading the property reads the keychain (absent or unreadable: `nil`);
/// assigning stores (`nil` removes; a failed write is dropped). The
/// projected value (`$apiKey`) is the ``KeychainItem``, which is
/// `Observable`, and whose `load()` and `store(_:)` throw.
@propertyWrapper
public struct KeychainStorage<Value>: Sendable {

    /// The item the property reads and writes.
    public let item: KeychainItem<Value>

    /// Backed by `key` in `keychain` (the user's Secret Service when not given).
    public init(_ key: KeychainKey<Value>, in keychain: any KeychainProtocol = Keychain.standard) {
        item = KeychainItem(key, in: keychain)
    }

    /// Backed by the text item of `account` in `service`.
    public init(
        _ account: String, service: String = KeychainAttributes.defaultService,
        in keychain: any KeychainProtocol = Keychain.standard
    ) where Value == String {
        self.init(KeychainKey(account, service: service), in: keychain)
    }

    /// The stored value (see the type's description).
    public var wrappedValue: Value? {
        get { item.value }
        nonmutating set { item.value = newValue }
    }

    /// The item, `$property`: `Observable`, with throwing `load()` and `store(_:)`.
    public var projectedValue: KeychainItem<Value> { item }
}
