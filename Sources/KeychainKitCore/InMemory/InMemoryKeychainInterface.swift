// SPDX-License-Identifier: MIT
import KeychainKitSystem

/// A process-local backend with the same semantics as the Secret Service
/// backend, for tests, previews and programs that need no persistence.
///
/// Thread-safe. Several interfaces can share one set of items
/// (``init(sharingItemsWith:)``), as several processes share a Secret
/// Service: each reads what the others write, and a keychain over one hears
/// the others' writes as changes made elsewhere. ``simulateFailure(_:)``
/// makes every storage call fail with a chosen error, to exercise the
/// "locked" and "unavailable" paths.
public final class InMemoryKeychainInterface: KeychainInterfaceProtocol, Sendable {

    private let store: InMemoryStore

    /// Creates an empty in-memory keychain.
    public init() {
        store = InMemoryStore()
    }

    /// Creates an interface on the same items as `other`.
    public init(sharingItemsWith other: InMemoryKeychainInterface) {
        store = other.store
    }

    /// One per store: interfaces sharing items have the same.
    public var storeIdentity: KeychainStoreIdentity? {
        KeychainStoreIdentity("in-memory store \(UInt(bitPattern: ObjectIdentifier(store)))")
    }

    /// Until the last interface sharing the items is released.
    public var persistence: KeychainPersistence? { .untilClose }

    /// Makes every following storage call, through any interface sharing
    /// these items, throw `error` (for example
    /// ``KeychainError/interactionNotAllowed`` to simulate a locked
    /// keychain), until called again with `nil`. Stored items are kept.
    public func simulateFailure(_ error: KeychainError?) {
        store.state.withLock { $0.failure = error }
    }

    public func readItem(_ key: KeychainAttributes) throws(KeychainError) -> [UInt8]? {
        try access { state throws(KeychainError) in state.items[key]?.value }
    }

    public func containsItem(_ key: KeychainAttributes) throws(KeychainError) -> Bool {
        try access { state throws(KeychainError) in state.items[key] != nil }
    }

    public func updateItem(_ key: KeychainAttributes, value: [UInt8]) throws(KeychainError) {
        try access { state throws(KeychainError) in
            guard state.items[key] != nil else { throw .itemNotFound }
            state.items[key]!.value.wipe()
            state.items[key]!.value = value
            state.items[key]!.modified = Self.now
            state.announce(.changed(key), by: self)
        }
    }

    /// Creates the item, or replaces the value of one another writer
    /// created first, atomically (as the Secret Service backend does).
    public func insertItem(_ key: KeychainAttributes, value: [UInt8]) throws(KeychainError) {
        try access { state throws(KeychainError) in
            let now = Self.now
            if state.items[key] != nil {
                state.items[key]!.value.wipe()
                state.items[key]!.value = value
                state.items[key]!.modified = now
            } else {
                state.items[key] = InMemoryStore.Item(
                    value: value, label: KeychainItemInfo.defaultLabel(for: key), created: now, modified: now)
            }
            state.announce(.changed(key), by: self)
        }
    }

    public func deleteItem(_ key: KeychainAttributes) throws(KeychainError) {
        try access { state throws(KeychainError) in
            guard var old = state.items.removeValue(forKey: key) else { throw .itemNotFound }
            old.value.wipe()
            state.announce(.deleted(key), by: self)
        }
    }

    public func accounts(inService service: String) throws(KeychainError) -> [String] {
        try access { state throws(KeychainError) in
            state.items.keys.filter { $0.service.hasSameUTF8(as: service) }.map(\.account).sortedByBytes()
        }
    }

    public func itemInfo(inService service: String) throws(KeychainError) -> [KeychainItemInfo] {
        try access { state throws(KeychainError) in
            state.items.filter { $0.key.service.hasSameUTF8(as: service) }
                .sorted { $0.key.account.precedesByUTF8($1.key.account) }
                .map { KeychainItemInfo(account: $0.key.account, label: $0.value.label, created: $0.value.created, modified: $0.value.modified) }
        }
    }

    public func setLabel(_ label: String, forKey key: KeychainAttributes) throws(KeychainError) {
        try access { state throws(KeychainError) in
            guard state.items[key] != nil else { throw .itemNotFound }
            state.items[key]!.label = label
        }
    }

    /// The writes made through the other interfaces sharing these items.
    public func makeOutsideChangeSource() -> (any OutsideChangeSource)? {
        InMemoryChangeSource(store: store, owner: ObjectIdentifier(self))
    }

    func access<R>(_ body: (inout InMemoryStore.State) throws(KeychainError) -> R) throws(KeychainError) -> R {
        try store.state.withLock { state throws(KeychainError) in
            if let failure = state.failure { throw failure }
            return try body(&state)
        }
    }
}

/// The items that one or more ``InMemoryKeychainInterface``s share, and
/// the change sources that hear their writes.
final class InMemoryStore: Sendable {

    /// A keyed item: its value, label and times (seconds since the epoch).
    struct Item {
        var value: [UInt8]
        var label: String
        let created: UInt64
        var modified: UInt64
    }

    struct State {
        var items: [KeychainAttributes: Item] = [:]
        /// The items addressed by attributes (``AttributeItemStore``), by id.
        var attributeItems: [String: (item: AttributeItem, secret: [UInt8])] = [:]
        /// The number in the id of the next attribute item created.
        var nextAttributeItem: UInt64 = 1
        var failure: KeychainError?
        var sources: [ObjectIdentifier: InMemoryChangeSource] = [:]

        /// Tells every source but the writer's own of a change. Sources a
        /// fork()ed child inherited (whose threads it has not) are dropped.
        mutating func announce(_ change: OutsideChange, by writer: InMemoryKeychainInterface) {
            let owner = ObjectIdentifier(writer), generation = ForkGeneration.current
            if sources.values.contains(where: { $0.generation != generation }) {
                sources = sources.filter { $0.value.generation == generation }
            }
            for source in sources.values where source.owner != owner { source.post(change) }
        }
    }

    let state = Locked(State())

    deinit {
        state.withLock { state in
            for key in Array(state.items.keys) { state.items[key]!.value.wipe() }
            for id in Array(state.attributeItems.keys) { state.attributeItems[id]!.secret.wipe() }
        }
    }
}
