// SPDX-License-Identifier: MIT
/// An item found by its attributes, as any tool stored it (git's credential
/// helpers, libsecret's network passwords, `secret-tool`), without its
/// secret. ``AttributeItemStore/items(matching:)`` finds them.
public struct AttributeItem: Hashable, Sendable {

    /// Who the item is, while it exists: on the Secret Service its D-Bus
    /// object path.
    public let id: String

    /// Its attributes (not secret: the Secret Service stores them unencrypted).
    public let attributes: [String: String]

    /// Its label, as the service's own tools (Seahorse) show it.
    public let label: String

    /// When it was created, in seconds since the Unix epoch.
    public let created: UInt64

    /// When its secret, label or attributes last changed, in seconds since
    /// the Unix epoch.
    public let modified: UInt64

    /// Whether it is in a locked collection: reading its secret needs an
    /// unlock.
    public let isLocked: Bool

    /// An item as its store described it.
    public init(
        id: String, attributes: [String: String], label: String, created: UInt64, modified: UInt64, isLocked: Bool
    ) {
        self.id = id
        self.attributes = attributes
        self.label = label
        self.created = created
        self.modified = modified
        self.isLocked = isLocked
    }
}

extension AttributeItem {

    /// Whether the item's attribute `name` holds `value` (by bytes), or
    /// both are absent.
    func attribute(_ name: String, is value: String?) -> Bool {
        switch (attributes[name], value) {
        case (nil, nil): true
        case let (held?, wanted?): held.hasSameUTF8(as: wanted)
        default: false
        }
    }

    /// Whether the item holds exactly `wanted`'s values (by bytes) for each
    /// of `names`: a name absent from `wanted` must be absent from the item;
    /// other attributes (its schema, what the server adds) do not count.
    package func hasExactly(_ wanted: [String: String], for names: [String]) -> Bool {
        names.allSatisfy { attribute($0, is: wanted[$0]) }
    }

    /// Whether the item's attributes include every one of `wanted` (by bytes).
    package func includes(_ wanted: [String: String]) -> Bool {
        wanted.allSatisfy { attribute($0.key, is: $0.value) }
    }

    /// The order ``AttributeItemStore/items(matching:)`` lists items in:
    /// most recently modified first, then the last created first.
    package static func newestFirst(_ a: AttributeItem, _ b: AttributeItem) -> Bool {
        a.modified != b.modified ? a.modified > b.modified : precedesInCreationOrder(b.id, a.id)
    }
}

/// A store of items addressed by arbitrary string attributes: the Secret
/// Service (``SecretServiceKeychainInterface``) and the in-memory keychain
/// (``InMemoryKeychainInterface``, its own items, apart from its keyed
/// ones). What ``ServerLogins`` and git's credential helper are built on.
/// Every method is safe to call from many threads at once.
public protocol AttributeItemStore: Sendable {

    /// The items whose attributes include `attributes` (values compared by
    /// bytes), most recently modified first (then the last created first).
    /// Locked items are included, marked ``AttributeItem/isLocked``; when
    /// the store cannot see every item (a locked collection hides its
    /// items), ``KeychainError/interactionNotAllowed``. An attribute name
    /// that is empty or holds NUL, or a value holding NUL, is
    /// ``KeychainError/invalidArgument``.
    func items(matching attributes: [String: String]) throws(KeychainError) -> [AttributeItem]

    /// ``items(matching:)``, and when exactly one item matches and it is
    /// unlocked, its secret, read in the same operation where the store
    /// can (a Secret Service that asks no one before it gives a secret:
    /// one round trip less); otherwise, or where it cannot, `nil`, and the
    /// caller reads with ``secret(of:)``. For a reader of the first match
    /// (git's and Docker's credential helpers). The caller wipes the secret.
    func itemsReadingSecretOfOne(
        matching attributes: [String: String]
    ) throws(KeychainError) -> (items: [AttributeItem], secretOfOne: [UInt8]?)

    /// The secret of `item`; `nil` when it was deleted meanwhile.
    func secret(of item: AttributeItem) throws(KeychainError) -> [UInt8]?

    /// Creates an item of exactly `attributes` and `label` holding `value`,
    /// replacing, atomically, one whose attributes include all of these;
    /// returns its ``AttributeItem/id``.
    @discardableResult
    func createItem(attributes: [String: String], label: String, value: [UInt8]) throws(KeychainError) -> String

    /// Replaces the secret of `item` in place (its attributes and label
    /// stay); ``KeychainError/itemNotFound`` when it was deleted meanwhile.
    func setSecret(_ value: [UInt8], of item: AttributeItem) throws(KeychainError)

    /// Deletes `item`; one deleted meanwhile is no error.
    func delete(_ item: AttributeItem) throws(KeychainError)

    /// What a message about `error` adds (see
    /// ``KeychainInterfaceProtocol/failureDetail(for:)``).
    func failureDetail(for error: KeychainError) -> String?
}

extension AttributeItemStore {

    /// ``items(matching:)`` alone: a store that reads no secret along.
    public func itemsReadingSecretOfOne(
        matching attributes: [String: String]
    ) throws(KeychainError) -> (items: [AttributeItem], secretOfOne: [UInt8]?) {
        (try items(matching: attributes), nil)
    }

    /// Throws ``KeychainError/invalidArgument`` for attributes or a label
    /// no store can hold: an empty name, or NUL in a name, value or label.
    package func validate(_ attributes: [String: String], label: String = "") throws(KeychainError) {
        guard !label.utf8.contains(0) else { throw .invalidArgument }
        for (name, value) in attributes where name.isEmpty || name.utf8.contains(0) || value.utf8.contains(0) {
            throw .invalidArgument
        }
    }
}
