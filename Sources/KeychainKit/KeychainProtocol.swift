/// The dictionary-like keychain API, as ``Keychain`` implements it.
public protocol KeychainProtocol: AnyObject, Sendable {

    /// Reads the value for a key; a failed read returns `nil`.
    /// Writes a value for a key, or removes it when `nil`; a failed write is discarded.
    subscript(key: KeychainAttributes) -> String? { get set }

    /// Reads the value for a key, returning a default when absent or unreadable.
    subscript(key: KeychainAttributes, default defaultValue: @autoclosure () -> String) -> String { get }

    /// Returns the value for a key, or `nil` when absent.
    func value(forKey key: KeychainAttributes) throws(KeychainError) -> String?

    /// Inserts or updates the value for a key.
    func updateValue(_ value: String, forKey key: KeychainAttributes) throws(KeychainError)

    /// Removes the value for a key. Removing an absent item succeeds.
    func removeValue(forKey key: KeychainAttributes) throws(KeychainError)
}
