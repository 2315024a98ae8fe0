// SPDX-License-Identifier: MIT
import KeychainKitBus
import KeychainKitCore
import KeychainKitSecretService
import KeychainKitSystem

/// The reference's name for the platform backend.
public typealias SystemKeychainInterface = SecretServiceKeychainInterface

/// A backend over the freedesktop Secret Service (gnome-keyring, KWallet,
/// KeePassXC), spoken over D-Bus with sd-bus.
///
/// Items carry the attributes `service` and `username` plus `xdg:schema`
/// = ``schemaName``, and the label `Password for '<account>' on '<service>'`.
/// Lookups match `service` and `username` only, in every collection, so
/// items written by `secret-tool` or Python `keyring` are found. New items
/// go to ``collection``.
///
/// Writes keep exactly one item per key, also with several writers at
/// once. An existing item is updated in place (`SetSecret`). A new one is
/// created with `replace` set, which gnome-keyring 42 and KWallet perform
/// atomically over an item whose attributes *include* the new ones (both
/// measured; KeePassXC not yet): ours carry all three attributes, so
/// concurrent creates of one key leave one item and never touch another
/// key's. Items other tools create with other attributes are not matched
/// either way (`secret-tool store` without `xdg:schema`, Python `keyring`
/// with `application`), so after creating, and whenever an update finds
/// several items, a write collapses the key's readable items into one
/// holding its value. Items in a locked collection are left alone.
///
/// Secrets cross the bus encrypted (`dh-ietf1024-sha256-aes128-cbc-pkcs7`)
/// unless the service offers only `plain` and ``transfer`` allows it.
///
/// Nothing the bus says is taken on trust (see RELIABILITY.md's threat
/// model): a secret is returned, overwritten or deleted only for an item
/// whose attributes were read and compared with the key (``VerifiedSearch``);
/// change signals count only from the service's owner (``SignalSenders``).
///
/// Reads are causally fresh: a read that starts after another process's
/// write was acknowledged sees it. What earlier searches found for a key —
/// its item's path, or that it has none — is kept current from the
/// service's change signals (``ItemPathCache``). A remembered item is read
/// directly: the reply comes after every signal routed before the read
/// began. A remembered absence is answered only after a round trip to the
/// bus daemon has delivered those signals.
///
/// A locked item is never absent. With ``prompts`` ``PromptPolicy/allowed``
/// an operation that needs a locked collection or item shows the service's
/// unlock prompt and waits up to ``promptTimeout`` for the user (dismissed:
/// ``KeychainError/userCanceled``; unanswered:
/// ``KeychainError/interactionNotAllowed``); with ``PromptPolicy/never`` it
/// is ``KeychainError/interactionNotAllowed`` at once. A search that finds
/// nothing proves the key absent only when no locked collection hides its
/// items (KeePassXC hides every item of a locked database); otherwise it is
/// locked too. Confirmation prompts (KeePassXC's, for every create and
/// delete) are completed. No session bus or no provider is
/// ``KeychainError/serviceUnavailable``. Every operation is bounded by
/// ``timeout`` for all its calls together, every prompt by ``timeout`` or
/// ``promptTimeout``. The connection is opened on first use, re-opened
/// after the service restarts, and re-opened by a fork()ed child, which
/// never uses its parent's connection.
public final class SecretServiceKeychainInterface: KeychainInterfaceProtocol, Sendable {

    /// The `xdg:schema` attribute of the items this backend creates.
    public static let schemaName = ItemSchema.keychainKitPassword.name

    /// The collection new items are created in: an alias (`"default"`, or
    /// for example `"session"` for one that is not persisted) or a
    /// collection's D-Bus object path.
    public let collection: String

    /// The D-Bus address of the bus to use, or `nil` for the session bus.
    public let busAddress: String?

    /// The bound on each operation: all its calls to the service together
    /// (waits for a person aside; a listing gets 1/1000 of it more per
    /// item found).
    public let timeout: Duration

    /// Whether operations may show the service's unlock prompt.
    public let prompts: PromptPolicy

    /// How long an operation waits for the user to answer an unlock prompt
    /// (and, with ``prompts`` ``PromptPolicy/allowed``, a confirmation).
    public let promptTimeout: Duration

    /// Whether secrets may cross the bus unencrypted.
    public let transfer: TransferPolicy

    /// The open connection, if any, and the lock held for each whole
    /// operation: an sd-bus connection serves one thread at a time.
    private let connection = ConnectionSlot()

    /// The writes in progress or just made, which the watcher of changes
    /// made elsewhere must not report.
    private let ownWrites = OwnWrites()

    private final class ConnectionSlot: @unchecked Sendable {
        let lock = Lock()
        var current: KeyedConnection?

        deinit {
            dropInherited()
        }

        /// In a fork()ed child, forgets the parent's connection: another
        /// parent thread may have been using it at fork(), so it is never
        /// touched nor released, only its socket closed.
        func dropInherited() {
            guard let inherited = current, !inherited.client.bus.belongsToThisProcess else { return }
            inherited.client.bus.abandon()
            _ = Unmanaged.passRetained(inherited)
            current = nil
        }
    }

    /// One per bus, whatever the collection: reads look in every collection.
    /// On disk, but for the `session` collection (kept in memory by the
    /// service, until it exits with the login session).
    public var persistence: KeychainPersistence? {
        collection == "session" || collection == "/org/freedesktop/secrets/collection/session" ? .untilLogout : .persistent
    }

    public var storeIdentity: KeychainStoreIdentity? {
        KeychainStoreIdentity("Secret Service on \(busAddress ?? "the session bus")")
    }

    /// The default ``timeout``: 5 seconds.
    public static let defaultTimeout: Duration = BusTimeouts.call

    /// The default ``promptTimeout``: 2 minutes.
    public static let defaultPromptTimeout: Duration = BusTimeouts.answer

    /// Creates a backend that stores new items in `collection`, talks to the
    /// Secret Service on the bus at `busAddress` (the session bus when `nil`),
    /// lets each operation take at most `timeout` in all (its calls
    /// together; waits for a person aside), shows unlock prompts as
    /// `prompts` says and waits at most `promptTimeout` for the user, and
    /// lets secrets cross the bus as `transfer` says.
    public init(
        collection: String = "default", busAddress: String? = nil, timeout: Duration = defaultTimeout,
        prompts: PromptPolicy = .automatic, promptTimeout: Duration = defaultPromptTimeout,
        transfer: TransferPolicy = .preferEncrypted
    ) {
        self.collection = collection
        self.busAddress = busAddress
        self.timeout = timeout
        self.prompts = prompts
        self.promptTimeout = promptTimeout
        self.transfer = transfer
        // Creates the per-thread detail's key now, not in the middle of a
        // first operation another thread may fork() during: a child would
        // wait forever on that one-time initialization.
        FailureDetail.prepare()
    }

    private typealias Names = SecretServiceNames

    /// Why `collection` cannot name a collection, or `nil` when it can: an
    /// alias is letters, digits and `_` (it becomes the last element of an
    /// object path); otherwise it must be a valid D-Bus object path.
    public static func invalidCollectionReason(_ collection: String) -> String? {
        func isPathElement(_ element: Substring) -> Bool {
            !element.isEmpty && element.utf8.allSatisfy { byte in
                (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
                    || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || byte == UInt8(ascii: "_")
            }
        }
        if collection.isEmpty { return "the collection is empty" }
        guard collection.hasPrefix("/") else {
            return isPathElement(collection[...]) ? nil : "the collection alias '\(collection)' is not letters, digits and '_' only"
        }
        let elements = collection.dropFirst().split(separator: "/", omittingEmptySubsequences: false)
        return collection == "/" || !elements.allSatisfy(isPathElement)
            ? "the collection '\(collection)' is not a D-Bus object path" : nil
    }

    public func readItem(_ key: KeychainAttributes) throws(KeychainError) -> [UInt8]? {
        try withConnection { connection throws(SecretServiceFailure) in
            switch try entry(for: key, on: connection) {
            case .absent:
                if try confirmedEntry(for: key, on: connection) == .absent { return nil }
            case let .item(path):
                do throws(SecretServiceFailure) {
                    var value = try connection.client.secret(at: path)
                    // Every change announced before this read began arrived
                    // before that reply: P is still the key's item unless
                    // one of them says otherwise.
                    try connection.catchUp()
                    if try entry(for: key, on: connection) == .item(path: path) { return value }
                    value.wipe()
                } catch let failure where failure.error == .itemNotFound {
                    connection.cache.forget(key)  // gone: search again
                }
            case nil:
                break
            }
            let found = try search(key, on: connection, readingSecret: true)
            guard let path = found.chosen else {
                try found.requireNothingLocked()
                return nil
            }
            if let value = found.secret { return value }
            do throws(SecretServiceFailure) {
                return try connection.client.secret(at: path)
            } catch let failure where failure.error == .itemNotFound {
                return nil  // deleted between the search and the read
            }
        }
    }

    public func containsItem(_ key: KeychainAttributes) throws(KeychainError) -> Bool {
        try withConnection { connection throws(SecretServiceFailure) in
            if let entry = try confirmedEntry(for: key, on: connection) { return entry != .absent }
            let found = try search(key, on: connection)
            return !found.unlocked.isEmpty || !found.locked.isEmpty
        }
    }

    public func updateItem(_ key: KeychainAttributes, value: [UInt8]) throws(KeychainError) {
        try withConnection(writing: key) { connection throws(SecretServiceFailure) in
            switch try entry(for: key, on: connection) {
            case .absent:
                // Possibly stale, which costs nothing here: the caller's
                // insert that follows checks afresh.
                throw SecretServiceFailure(.itemNotFound)
            case let .item(path):
                // The cache remembers an item only when it was the key's
                // only one.
                do throws(SecretServiceFailure) {
                    return try setSecret(value, at: path, on: connection)
                } catch let failure where failure.error == .itemNotFound {
                    connection.cache.forget(key)
                }
            case nil:
                break
            }
            for _ in 0..<Self.collapseAttempts {
                let found = try search(key, on: connection)
                guard !found.unlocked.isEmpty else {
                    try found.requireNothingLocked()
                    throw SecretServiceFailure(.itemNotFound)
                }
                if try store(value, collapsing: found.unlocked, of: key, on: connection) { return }
            }
            // Every item found was deleted before it could be written: the
            // caller's insert creates one.
            throw SecretServiceFailure(.itemNotFound)
        }
    }

    /// Creates the item with `replace` set, which the service performs
    /// atomically over an item of the same attributes, then makes sure the
    /// key has one item (see ``store(_:collapsing:of:on:)``). Never throws
    /// ``KeychainError/duplicateItem``.
    public func insertItem(_ key: KeychainAttributes, value: [UInt8]) throws(KeychainError) {
        try withConnection(writing: key) { connection throws(SecretServiceFailure) in
            let attributes: KeyValuePairs<String, String> = [
                Names.Attribute.service: key.service,
                Names.Attribute.account: key.account,
                Names.Attribute.schema: Self.schemaName,
            ]
            try create(attributes, label: KeychainItemInfo.defaultLabel(for: key), value: value, on: connection)
            // Another tool may have created an item of the key meanwhile
            // with other attributes, which neither replace matched.
            for _ in 0..<Self.collapseAttempts {
                let found = try search(key, on: connection)
                if found.unlocked.count < 2 { return }
                if try store(value, collapsing: found.unlocked, of: key, on: connection) { return }
            }
        }
    }

    public func deleteItem(_ key: KeychainAttributes) throws(KeychainError) {
        try withConnection(writing: key) { connection throws(SecretServiceFailure) in
            let found = try search(key, on: connection)
            connection.cache.forget(key)
            try found.requireNothingLocked()
            guard !found.unlocked.isEmpty else { throw SecretServiceFailure(.itemNotFound) }
            for path in found.unlocked { try deleteItem(at: path, on: connection) }
        }
    }

    public func accounts(inService service: String) throws(KeychainError) -> [String] {
        try withConnection { connection throws(SecretServiceFailure) in
            var accounts: [String] = []
            var seen = Set<[UInt8]>()  // by bytes: canonically equal names are distinct accounts
            for item in try listing(service, reading: .attributes, on: connection) {
                guard let account = item.attributes[Names.Attribute.account] else { continue }
                if seen.insert(Array(account.utf8)).inserted { accounts.append(account) }
            }
            return accounts.sortedByBytes()
        }
    }

    /// The items of `service`: labels and times from one `GetAll` per item;
    /// the newest item where a key has several.
    public func itemInfo(inService service: String) throws(KeychainError) -> [KeychainItemInfo] {
        try withConnection { connection throws(SecretServiceFailure) in
            var newest: [[UInt8]: AttributeItem] = [:]  // by account bytes
            for item in try listing(service, reading: .everything, on: connection) {
                guard let account = item.attributes[Names.Attribute.account] else { continue }
                let bytes = Array(account.utf8)
                if let kept = newest[bytes], kept.modified >= item.modified { continue }
                newest[bytes] = item
            }
            return newest.sorted { $0.key.lexicographicallyPrecedes($1.key) }.map { bytes, item in
                KeychainItemInfo(
                    account: String(decoding: bytes, as: UTF8.self), label: item.label,
                    created: item.created, modified: item.modified)
            }
        }
    }

    /// The items of `service`, readable and locked, verified to be its
    /// (see ``VerifiedSearch``). Throws when a locked collection hides its
    /// items or shows a locked item without its attributes (or only their
    /// hashes): the listing would be incomplete. The operation's deadline grows with the items
    /// found (one `GetAll` each).
    private func listing(
        _ service: String, reading: VerifiedSearch.Reading, on connection: KeyedConnection
    ) throws(SecretServiceFailure) -> [AttributeItem] {
        try requireNoHiddenCollections(on: connection)
        let found = try connection.client.verifiedSearch([Names.Attribute.service: service], cap: nil, reading: reading)
        try requireNoHiddenCollections(on: connection, asking: true)
        if !found.withheldLocked.isEmpty { throw SecretServiceFailure.locked(found.withheldLocked, "the item is") }
        return found.unlocked + found.locked
    }

    /// Whether secrets cross the bus encrypted on this backend's connection
    /// (connecting first if needed): `false` when the service offers only
    /// the `plain` transfer and ``transfer`` allowed it.
    public func transferIsEncrypted() throws(KeychainError) -> Bool {
        try withConnection { connection throws(SecretServiceFailure) in connection.client.transfersEncrypted }
    }

    /// Sets the `Label` property of the key's readable items.
    public func setLabel(_ label: String, forKey key: KeychainAttributes) throws(KeychainError) {
        try withConnection { connection throws(SecretServiceFailure) in
            let found = try search(key, on: connection)
            try found.requireNothingLocked()
            guard !found.unlocked.isEmpty else { throw SecretServiceFailure(.itemNotFound) }
            for path in found.unlocked { try connection.client.setLabel(label, ofItemAt: path) }
        }
    }

    /// What the calling thread's last operation found out beyond its error:
    /// what it found locked (the collections or items), how its prompt
    /// ended, which call timed out, the items of other keys a loosely
    /// matching service answered with, that secrets crossed the bus
    /// unencrypted. Without such a finding, for
    /// ``KeychainError/serviceUnavailable``: that no Secret Service
    /// answered, and the alternative for machines without one.
    public func failureDetail(for error: KeychainError) -> String? {
        if let current = FailureDetail.current { return current }
        guard case .serviceUnavailable = error else { return nil }
        return "no session bus, or no Secret Service answered on it; \(SecretServiceClient.withoutService)"
    }

    /// Hears the changes other processes and interfaces make (see
    /// ``SecretServiceChangeSource``), on a connection of its own.
    public func makeOutsideChangeSource() -> (any OutsideChangeSource)? {
        SecretServiceChangeSource(busAddress: busAddress, timeoutMicroseconds: timeoutMicroseconds, ownWrites: ownWrites)
    }

    /// Throws when a locked collection hides its items from searches
    /// (KeePassXC for a locked database, oo7-daemon), naming them: a search
    /// proves nothing about what they hold. Before a search, from what is
    /// known until a collection changes
    /// (``KeyedConnection/knownHiddenCollections()``): KeePassXC
    /// (with its default UnlockBeforeSearch) answers a search of a locked
    /// database only once its unlock dialog is answered. After a search
    /// that found nothing, `asking` the service afresh, unless it announces
    /// its locks at once (``SecretServiceClient/announcesLocksAtOnce()``;
    /// then the signals handled since are current): KeePassXC announces a
    /// lock after it has already stopped showing the items (measured: a
    /// read right after a lock found nothing before the signal came).
    func requireNoHiddenCollections(
        on connection: KeyedConnection, asking: Bool = false
    ) throws(SecretServiceFailure) {
        let fresh = asking && !connection.client.announcesLocksAtOnce()
        let hidden = fresh ? try connection.freshHiddenCollections() : try connection.knownHiddenCollections()
        if !hidden.isEmpty { throw SecretServiceFailure.locked(hidden, "a collection that hides its items is") }
    }

    /// Creates an item in ``collection`` (see
    /// ``SecretServiceClient/create(_:label:value:in:confirmingWithin:touched:)``).
    @discardableResult
    func create(
        _ attributes: some Sequence<(key: String, value: String)>, label: String, value: [UInt8], on connection: KeyedConnection
    ) throws(SecretServiceFailure) -> String {
        try connection.client.create(
            attributes, label: label, value: value, in: collection, confirmingWithin: confirmationLimit,
            touched: ownWrites.touched)
    }

    /// Replaces the secret of the item at `path`, telling ``ownWrites``.
    func setSecret(_ value: [UInt8], at path: String, on connection: KeyedConnection) throws(SecretServiceFailure) {
        try connection.client.setSecret(value, at: path, touched: ownWrites.touched)
    }

    /// Deletes the item at `path`, telling ``ownWrites``; one deleted
    /// meanwhile is no error.
    func deleteItem(at path: String, on connection: KeyedConnection) throws(SecretServiceFailure) {
        try connection.client.deleteItem(at: path, confirmingWithin: confirmationLimit, touched: ownWrites.touched)
    }

    // MARK: Connection

    private var timeoutMicroseconds: UInt64 { BusTimeouts.microseconds(timeout) }

    /// Runs `body` on the open connection, opening one when there is none
    /// or when it belongs to the parent of this fork()ed process. A
    /// connection that turns out stale is dropped, and `body` runs once more
    /// on a new one. When `body` needs something unlocked and ``prompts``
    /// allows, the user is asked to unlock it, and `body` runs once more.
    /// Sets the calling thread's ``FailureDetail``.
    private func withConnection<R>(
        writing key: KeychainAttributes, _ body: (KeyedConnection) throws(SecretServiceFailure) -> R
    ) throws(KeychainError) -> R {
        try ownWrites.write(key) { () throws(KeychainError) in try withConnection(body) }
    }

    func withConnection<R>(
        _ body: (KeyedConnection) throws(SecretServiceFailure) -> R
    ) throws(KeychainError) -> R {
        FailureDetail.set(nil)
        var attemptsLeft = 2
        while true {
            attemptsLeft -= 1
            let outcome: Result<R, SecretServiceFailure> = connection.lock.withLock { () -> Result<R, SecretServiceFailure> in
                do throws(SecretServiceFailure) {
                    connection.dropInherited()
                    let open: KeyedConnection
                    if let existing = connection.current {
                        open = existing
                    } else {
                        open = try KeyedConnection.open(
                            busAddress: busAddress, timeoutMicroseconds: timeoutMicroseconds, transfer: transfer)
                        connection.current = open
                        if let name = open.client.bus.uniqueName { ownWrites.sending(as: name) }
                    }
                    open.client.bus.beginOperation(lasting: timeoutMicroseconds)
                    try open.catchUp()
                    defer {
                        if let note = open.client.takeNote() ?? (open.client.transfersEncrypted ? nil : TransferSession.plainNote) {
                            FailureDetail.set(note)
                        }
                    }
                    do throws(SecretServiceFailure) {
                        return .success(try body(open))
                    } catch let failure where !failure.unlocking.isEmpty && prompts == .allowed {
                        try open.client.unlock(failure.unlocking, atMost: BusTimeouts.microseconds(promptTimeout))
                        return .success(try body(open))
                    }
                } catch {
                    if error.connectionLost { connection.current = nil }
                    return .failure(error)
                }
            }
            switch outcome {
            case let .success(result):
                return result
            case let .failure(failure):
                guard failure.retryOnNewConnection, attemptsLeft > 0 else {
                    if let detail = failure.detail { FailureDetail.set(detail) }
                    throw failure.error
                }
            }
        }
    }

    // MARK: Items

    /// What the cache knows of `key`, once the changes handled so far are
    /// applied and created items of unknown keys resolved; `nil` when it
    /// knows nothing.
    func entry(
        for key: KeychainAttributes, on connection: KeyedConnection
    ) throws(SecretServiceFailure) -> ItemPathCache.Entry? {
        connection.refreshCache()
        guard connection.cache.hasEntry(key) else { return nil }
        for path in connection.cache.unresolved {
            let attributes: [String: String]?
            do throws(SecretServiceFailure) {
                // nil: deleted since, or no item of the service's at all
                attributes = Names.isServiceObject(path) ? try connection.client.itemAttributes(at: path) : nil
            } catch let failure where !failure.connectionLost {
                // Unknowable now (a path that names no item, a locked one):
                // nothing cached is trusted, and the key is searched again.
                connection.cache.apply(.everything)
                return nil
            }
            let owner = attributes?[Names.Attribute.service].flatMap { service in
                attributes?[Names.Attribute.account].map { KeychainAttributes(account: $0, service: service) }
            }
            connection.cache.resolve(path, as: owner)
        }
        connection.refreshCache()
        return connection.cache.lookup(key)
    }

    /// ``entry(for:on:)``, made causally fresh when the cache knows the key:
    /// a round trip to the bus daemon first delivers every change announced
    /// before this call began.
    private func confirmedEntry(
        for key: KeychainAttributes, on connection: KeyedConnection
    ) throws(SecretServiceFailure) -> ItemPathCache.Entry? {
        guard try entry(for: key, on: connection) != nil else { return nil }
        try connection.synchronize()
        return try entry(for: key, on: connection)
    }

    /// What a search for a key found.
    private struct Found {
        /// Its items readable now.
        var unlocked: [String]
        /// Its items in locked collections.
        var locked: [String]
        /// The one reads and updates use (the newest readable).
        var chosen: String?
        /// The chosen item's secret, when read along with the search.
        var secret: [UInt8]?

        /// Throws when an item of the key is in a locked collection.
        func requireNothingLocked() throws(SecretServiceFailure) {
            if !locked.isEmpty { throw SecretServiceFailure.locked(locked, "the item is") }
        }
    }

    /// The items of `key` in every collection. Records the outcome in the
    /// cache when it is unambiguous: nothing locked, at most one item.
    ///
    /// Throws when a locked collection hides its items (see
    /// ``requireNoHiddenCollections(on:)``): the search could prove
    /// nothing there.
    private func search(
        _ key: KeychainAttributes, on connection: KeyedConnection, readingSecret: Bool = false
    ) throws(SecretServiceFailure) -> Found {
        try requireNoHiddenCollections(on: connection)
        var verified = try connection.client.verifiedSearch(
            [Names.Attribute.service: key.service, Names.Attribute.account: key.account], cap: VerifiedSearch.keyedCap,
            reading: .attributes, readingSecretOfOne: readingSecret)
        // Read along with the search (``readItem(_:)``): wiped unless handed on.
        var secretOfOne = verified.secretOfOne
        verified.secretOfOne = nil
        defer { secretOfOne?.value.wipe() }
        let unlocked = verified.unlocked.map(\.id)
        let locked = verified.lockedPaths
        try requireNoHiddenCollections(on: connection, asking: unlocked.isEmpty && locked.isEmpty)
        var found = Found(unlocked: unlocked, locked: locked, chosen: try newest(verified.unlocked, on: connection)?.id)
        if let one = secretOfOne, one.path == found.chosen {
            found.secret = one.value
            secretOfOne = nil
        }
        if found.locked.isEmpty && unlocked.count < 2 {
            connection.cache.store(key, chosen: found.chosen, all: unlocked)
        } else {
            connection.cache.forget(key)
        }
        return found
    }

    /// Rounds of search-and-collapse a write makes before it gives up on
    /// items that keep disappearing.
    private static let collapseAttempts = 3

    /// Stores `value` in the first of `items` (the readable items of `key`)
    /// and deletes the others, so that the key is left with one item.
    ///
    /// "First" is by object path (shorter first, then by bytes: creation
    /// order within a collection on gnome-keyring), an order that never
    /// changes and that every writer computes alike: two writers collapsing
    /// the same duplicates keep the same item, never each other's. Returns
    /// `false` when that item was deleted meanwhile: search again.
    private func store(
        _ value: [UInt8], collapsing items: [String], of key: KeychainAttributes, on connection: KeyedConnection
    ) throws(SecretServiceFailure) -> Bool {
        guard let keeper = items.min(by: precedesInCreationOrder) else { return false }
        do throws(SecretServiceFailure) {
            try setSecret(value, at: keeper, on: connection)
        } catch let failure where failure.error == .itemNotFound {
            return false
        }
        for path in items where path != keeper { try deleteItem(at: path, on: connection) }
        connection.cache.store(key, chosen: keeper, all: [keeper])
        return true
    }

    /// ``newest(_:)`` of `items` found with their attributes only: where
    /// there are several, their times are read first (one `GetAll` each).
    func newest(_ items: [AttributeItem], on connection: KeyedConnection) throws(SecretServiceFailure) -> AttributeItem? {
        guard items.count > 1 else { return items.first }
        var described: [AttributeItem] = []
        for item in try connection.client.items(at: items.map(\.id)) {
            if let item = try item.get() { described.append(item) }  // nil: deleted meanwhile
        }
        return Self.newest(described)
    }

    /// The most recently modified of `items`, so that duplicates another
    /// tool left behind are read consistently; `nil` when empty.
    ///
    /// Modification times have one-second resolution. Among items modified
    /// in the same second, one another tool wrote (without our `xdg:schema`)
    /// is newer than ours: our writes leave the key one item, so a
    /// duplicate beside ours came after. Among the rest, the last by path
    /// order (creation order within a gnome-keyring collection; KeePassXC's
    /// paths are random, hence the first rule).
    static func newest(_ items: [AttributeItem]) -> AttributeItem? {
        guard items.count > 1, let latestModified = items.map(\.modified).max() else { return items.first }
        var latest = items.filter { $0.modified == latestModified }
        let foreign = latest.filter { !ItemSchema.keychainKitPassword.isSchema(of: $0) }
        if !foreign.isEmpty { latest = foreign }
        return latest.max { precedesInCreationOrder($0.id, $1.id) }
    }

    /// The bound on a confirmation prompt: the call timeout when unlock
    /// prompts are not allowed (such prompts are expected to complete at
    /// once), else the prompt timeout.
    var confirmationLimit: UInt64 {
        prompts == .allowed ? BusTimeouts.microseconds(promptTimeout) : timeoutMicroseconds
    }
}
