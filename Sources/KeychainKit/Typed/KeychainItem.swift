// SPDX-License-Identifier: MIT
import KeychainKitAPI
import Observation

/// One key's value, kept current: an `Observable` for SwiftUI views and
/// `withObservationTracking`, which hear every write made through any
/// keychain in this process and — on backends that announce them (the
/// Secret Service, the shared in-memory keychain) — writes made by other
/// processes and other handles.
///
///     let token = KeychainItem(KeychainKey<String>("apiToken"))
///     print(token.value ?? "absent")
///     token.value = "new"                 // stored at once
///
/// ``value`` reads the keychain each time (nothing is cached; a failed read
/// is `nil`, and a failed write is dropped); ``load()`` and ``store(_:)``
/// throw instead. While the item exists it observes its key, which keeps
/// the keychain's watcher of outside changes running.
///
/// One write is one invalidation of the item's readers. Over a
/// ``Keychain``, which tells Observation of every change to a key it was
/// read for, reading ``value`` tracks that, and the item adds nothing; over
/// another ``KeychainProtocol`` the item tells Observation itself, when its
/// observer hears the change.
public final class KeychainItem<Value>: Observable, @unchecked Sendable {

    /// The key this item reads and writes.
    public let key: KeychainKey<Value>

    /// The keychain it reads and writes.
    public let keychain: any KeychainProtocol

    private let registrar = ObservationRegistrar()
    private var token: KeychainObservationToken?

    /// The item of `key` in `keychain` (the user's Secret Service when not given).
    public init(_ key: KeychainKey<Value>, in keychain: any KeychainProtocol = Keychain.standard) {
        self.key = key
        self.keychain = keychain
        // Set before the item is shared, never changed after: safe to read from
        // the observer's thread (hence @unchecked Sendable).
        let keychainTellsObservation = keychain is any TellsObservationPerKey
        token = keychain.addObserver(forKey: key.attributes) { [weak self] _ in
            if !keychainTellsObservation { self?.changed() }
        }
    }

    deinit {
        if let token { keychain.removeObserver(token) }
    }

    /// The stored value; `nil` when absent or unreadable. Setting it stores
    /// the new value (`nil` removes it); a failed write is dropped — use
    /// ``store(_:)`` to hear why.
    public var value: Value? {
        get {
            registrar.access(self, keyPath: \.value)
            return try? load()
        }
        set {
            try? store(newValue)
        }
    }

    /// The stored value, or `nil` when absent; throws when it cannot be read
    /// (locked, no service).
    public func load() throws(KeychainError) -> Value? {
        try keychain.value(for: key)
    }

    /// Stores `value` (`nil` removes it).
    public func store(_ value: Value?) throws(KeychainError) {
        try keychain.set(value, for: key)
    }

    /// The key changed, here or elsewhere (or a write was attempted).
    private func changed() {
        registrar.withMutation(of: self, keyPath: \.value) {}
    }
}
