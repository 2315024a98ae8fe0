// SPDX-License-Identifier: MIT
import KeychainKitCore

/// Reading and writing typed values through ``KeychainKey``; every keychain
/// (every backend) has them.
extension KeychainProtocol {

    /// The value stored for `key`, or `nil` when there is none (or the
    /// stored bytes hold no `Value`, see ``KeychainKey/decode``).
    public func value<Value>(for key: KeychainKey<Value>) throws(KeychainError) -> Value? {
        guard var bytes = try data(forKey: key.attributes) else { return nil }
        defer { bytes.wipe() }
        return key.decode(bytes)
    }

    /// Stores `value` for `key` (one item per key, as ``updateData(_:forKey:)``);
    /// `nil` removes it.
    public func set<Value>(_ value: Value?, for key: KeychainKey<Value>) throws(KeychainError) {
        guard let value else { return try removeValue(forKey: key.attributes) }
        var bytes = try key.encode(value)
        defer { bytes.wipe() }
        try updateData(bytes, forKey: key.attributes)
    }
}
