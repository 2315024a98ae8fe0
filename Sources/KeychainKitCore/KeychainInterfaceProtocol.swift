// SPDX-License-Identifier: MIT
/// The storage primitives a ``Keychain`` is written in.
///
/// A backend stores byte values under ``KeychainAttributes``. Each method is
/// one "storage call" in the sense of the reference's operation cost. Every
/// method is safe to call from many threads at once.
public protocol KeychainInterfaceProtocol: Sendable {

    /// Returns the value stored for `key`, or `nil` when no item exists.
    func readItem(_ key: KeychainAttributes) throws(KeychainError) -> [UInt8]?

    /// Whether an item exists for `key`, readable or in a locked collection,
    /// decided without reading its secret.
    func containsItem(_ key: KeychainAttributes) throws(KeychainError) -> Bool

    /// Replaces the value of an existing item; throws
    /// ``KeychainError/itemNotFound`` when there is none.
    func updateItem(_ key: KeychainAttributes, value: [UInt8]) throws(KeychainError)

    /// Creates the item of `key` holding `value`. When one exists already
    /// (another writer was first), a backend either throws
    /// ``KeychainError/duplicateItem``, and the caller updates it, or — when
    /// its store can — replaces its value atomically. Either way `key` is
    /// left with one item.
    func insertItem(_ key: KeychainAttributes, value: [UInt8]) throws(KeychainError)

    /// Deletes every item of `key`; throws ``KeychainError/itemNotFound``
    /// when there is none.
    func deleteItem(_ key: KeychainAttributes) throws(KeychainError)

    /// The values stored for `accounts` of `service`, in the order asked:
    /// for each, what ``readItem(_:)`` of its key would give (its value,
    /// `nil` when absent, or its error). Throws what fails for all of them
    /// at once (no service). The default reads the keys one by one; a
    /// backend whose round trips cost more reads them together.
    func readItems(accounts: [String], inService service: String) throws(KeychainError) -> [Result<[UInt8]?, KeychainError>]

    /// The accounts that have an item in `service` (compared by bytes),
    /// sorted by their UTF-8 bytes, without duplicates. Locked items count:
    /// their attributes are not secret.
    func accounts(inService service: String) throws(KeychainError) -> [String]

    /// A new source of the changes made elsewhere (other processes, other
    /// interfaces) that a keychain with observers delivers to them; `nil`
    /// when the backend cannot tell (the default). Changes made through this
    /// interface are not reported by it: the keychain reports its own.
    /// Called with one of the keychain's locks held: it must not block,
    /// fork, or call back into the keychain (connect later, in the source's
    /// ``OutsideChangeSource/listen(for:)``).
    func makeOutsideChangeSource() -> (any OutsideChangeSource)?

    /// The items of `service`, one per account (the newest where a key has
    /// several), sorted by account bytes, with what the backend keeps of
    /// each; no secret is read. The default: ``accounts(inService:)``
    /// without labels or times.
    func itemInfo(inService service: String) throws(KeychainError) -> [KeychainItemInfo]

    /// Sets the label of the item(s) of `key`; ``KeychainError/itemNotFound``
    /// when there is none. The default (a backend that keeps no labels)
    /// throws ``KeychainError/unknownError(code:message:)``.
    func setLabel(_ label: String, forKey key: KeychainAttributes) throws(KeychainError)

    /// What a message about `error`, thrown by this backend, adds to the
    /// error's description: the cause in the backend's terms and what to
    /// do (for `kk_error_message()` and the command-line tool); `nil` (the
    /// default) when there is nothing to add. Never contains a secret.
    func failureDetail(for error: KeychainError) -> String?

    /// The store this interface's items live in; `nil` (the default) when
    /// the backend cannot say, as for a wrapper around another interface.
    var storeIdentity: KeychainStoreIdentity? { get }

    /// How long the items last; `nil` (the default) when the backend
    /// cannot say, as for a wrapper around another interface.
    var persistence: KeychainPersistence? { get }
}

extension KeychainInterfaceProtocol {

    /// No changes made elsewhere are reported.
    public func makeOutsideChangeSource() -> (any OutsideChangeSource)? { nil }

    /// Nothing to add to the error's description.
    public func failureDetail(for error: KeychainError) -> String? { nil }

    /// Not known.
    public var storeIdentity: KeychainStoreIdentity? { nil }

    /// Not known.
    public var persistence: KeychainPersistence? { nil }

    /// Each key read alone (``readItem(_:)``).
    public func readItems(
        accounts: [String], inService service: String
    ) throws(KeychainError) -> [Result<[UInt8]?, KeychainError>] {
        accounts.map { account in
            Result { () throws(KeychainError) in try readItem(KeychainAttributes(account: account, service: service)) }
        }
    }

    /// The accounts, without labels or times.
    public func itemInfo(inService service: String) throws(KeychainError) -> [KeychainItemInfo] {
        try accounts(inService: service).map { KeychainItemInfo(account: $0, label: nil, created: nil, modified: nil) }
    }

    /// This backend keeps no labels.
    public func setLabel(_ label: String, forKey key: KeychainAttributes) throws(KeychainError) {
        throw .unknownError(code: 95, message: "this keychain keeps no labels")  // EOPNOTSUPP
    }

    /// Reads the item and wipes its value: for backends that cannot tell
    /// presence more cheaply.
    public func containsItem(_ key: KeychainAttributes) throws(KeychainError) -> Bool {
        guard var value = try readItem(key) else { return false }
        value.wipe()
        return true
    }
}
