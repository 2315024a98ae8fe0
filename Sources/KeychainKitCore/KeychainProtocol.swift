// SPDX-License-Identifier: MIT
/// The keychain API, as ``Keychain`` implements it: code that must work with
/// any backend (a C handle, a command-line tool) holds `any KeychainProtocol`.
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

    /// Returns the bytes stored for a key, or `nil` when absent.
    func data(forKey key: KeychainAttributes) throws(KeychainError) -> [UInt8]?

    /// The bytes stored for each of `accounts` in `service`, in order: for
    /// each, what ``data(forKey:)`` gives or throws.
    func data(forAccounts accounts: [String], inService service: String) throws(KeychainError) -> [Result<[UInt8]?, KeychainError>]

    /// Whether an item exists for a key, decided without reading its value.
    func contains(_ key: KeychainAttributes) throws(KeychainError) -> Bool

    /// Inserts or updates the bytes for a key.
    func updateData(_ value: [UInt8], forKey key: KeychainAttributes) throws(KeychainError)

    /// The accounts that have an item in `service`, sorted.
    func accounts(inService service: String) throws(KeychainError) -> [String]

    /// Calls `handler` after every mutation attempt on `key` through this keychain.
    func addObserver(
        forKey key: KeychainAttributes,
        _ handler: @escaping @Sendable (KeychainChange) -> Void
    ) -> KeychainObservationToken

    /// Removes an observer; `false` when the token is unknown or already removed.
    @discardableResult
    func removeObserver(_ token: KeychainObservationToken) -> Bool

    /// Removes every observer.
    func removeAllObservers()

    /// What a message about `error`, thrown by this keychain, adds to the
    /// error's description (see
    /// ``KeychainInterfaceProtocol/failureDetail(for:)``).
    func failureDetail(for error: KeychainError) -> String?

    /// The store this keychain's items live in (see
    /// ``KeychainInterfaceProtocol/storeIdentity``); `nil` when not known.
    var storeIdentity: KeychainStoreIdentity? { get }

    /// How long the items last (see
    /// ``KeychainInterfaceProtocol/persistence``); `nil` when not known.
    var persistence: KeychainPersistence? { get }
}

extension KeychainProtocol {

    /// Nothing to add to the error's description (``Keychain`` adds its
    /// backend's words).
    public func failureDetail(for error: KeychainError) -> String? { nil }

    /// Not known (``Keychain`` says its backend's).
    public var storeIdentity: KeychainStoreIdentity? { nil }

    /// Not known (``Keychain`` says its backend's).
    public var persistence: KeychainPersistence? { nil }

    /// Each key read alone (``Keychain`` reads them together).
    public func data(
        forAccounts accounts: [String], inService service: String
    ) throws(KeychainError) -> [Result<[UInt8]?, KeychainError>] {
        accounts.map { account in
            Result { () throws(KeychainError) in try data(forKey: KeychainAttributes(account: account, service: service)) }
        }
    }

    /// Whether `other` may keep its items in this keychain's store: it is
    /// this keychain; or both name the same store; or, where either cannot
    /// say (a keychain of another library, a wrapper), both are of one type.
    package func sharesStore(with other: any KeychainProtocol) -> Bool {
        if other === self { return true }
        guard let mine = storeIdentity, let theirs = other.storeIdentity else { return type(of: self) == type(of: other) }
        return mine == theirs
    }
}
