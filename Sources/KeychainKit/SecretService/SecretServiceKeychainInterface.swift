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
/// unless the service offers only `plain`.
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
/// ``KeychainError/serviceUnavailable``. Every D-Bus call is bounded by
/// ``timeout``, every prompt by ``timeout`` or ``promptTimeout``. The connection is opened on first use, re-opened
/// after the service restarts, and re-opened by a fork()ed child, which
/// never uses its parent's connection.
public final class SecretServiceKeychainInterface: KeychainInterfaceProtocol, Sendable {

    /// The `xdg:schema` attribute of the items this backend creates.
    public static let schemaName = "io.github.keychainkit.Password"

    /// The collection new items are created in: an alias (`"default"`, or
    /// for example `"session"` for one that is not persisted) or a
    /// collection's D-Bus object path.
    public let collection: String

    /// The D-Bus address of the bus to use, or `nil` for the session bus.
    public let busAddress: String?

    /// The bound on each call to the service.
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
        var current: SecretServiceConnection?

        deinit {
            dropInherited()
        }

        /// In a fork()ed child, forgets the parent's connection: another
        /// parent thread may have been using it at fork(), so it is never
        /// touched nor released, only its socket closed.
        func dropInherited() {
            guard let inherited = current, !inherited.bus.belongsToThisProcess else { return }
            inherited.bus.abandon()
            _ = Unmanaged.passRetained(inherited)
            current = nil
        }
    }

    /// The default ``timeout``: 5 seconds.
    public static let defaultTimeout: Duration = .seconds(5)

    /// The default ``promptTimeout``: 2 minutes.
    public static let defaultPromptTimeout: Duration = .seconds(120)

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

    private var collectionPath: String {
        collection.hasPrefix("/") ? collection : Names.aliasPath(collection)
    }

    public func readItem(_ key: KeychainAttributes) throws(KeychainError) -> [UInt8]? {
        try withConnection { connection throws(SecretServiceFailure) in
            switch try entry(for: key, on: connection) {
            case .absent:
                if try confirmedEntry(for: key, on: connection) == .absent { return nil }
            case let .item(path):
                do throws(SecretServiceFailure) {
                    var value = try secret(at: path, on: connection)
                    // Every change announced before this read began arrived
                    // before that reply: P is still the key's item unless
                    // one of them says otherwise.
                    try connection.bus.handlePendingSignals()
                    if try entry(for: key, on: connection) == .item(path: path) { return value }
                    value.wipe()
                } catch let failure where failure.error == .itemNotFound {
                    connection.cache.forget(key)  // gone: search again
                }
            case nil:
                break
            }
            let found = try search(key, on: connection)
            guard let path = found.chosen else {
                try found.requireNothingLocked()
                return nil
            }
            do throws(SecretServiceFailure) {
                return try secret(at: path, on: connection)
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
            for item in try listing(service, on: connection) {
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
            for item in try listing(service, on: connection) {
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
    /// items or shows a locked item without its attributes: the listing
    /// would be incomplete. The operation's deadline grows with the items
    /// found (one `GetAll` each).
    private func listing(_ service: String, on connection: SecretServiceConnection) throws(SecretServiceFailure) -> [AttributeItem] {
        try requireNoHiddenCollections(on: connection)
        let found = try connection.verifiedSearch([Names.Attribute.service: service], cap: nil)
        try requireNoHiddenCollections(on: connection, asking: true)
        if !found.unverifiedLocked.isEmpty { throw SecretServiceFailure.locked(found.unverifiedLocked, "the item is") }
        return found.unlocked + found.locked
    }

    /// Whether secrets cross the bus encrypted on this backend's connection
    /// (connecting first if needed): `false` when the service offers only
    /// the `plain` transfer and ``transfer`` allowed it.
    public func transferIsEncrypted() throws(KeychainError) -> Bool {
        try withConnection { connection throws(SecretServiceFailure) in connection.session.isEncrypted }
    }

    /// Sets the `Label` property of the key's readable items.
    public func setLabel(_ label: String, forKey key: KeychainAttributes) throws(KeychainError) {
        try withConnection { connection throws(SecretServiceFailure) in
            let found = try search(key, on: connection)
            try found.requireNothingLocked()
            guard !found.unlocked.isEmpty else { throw SecretServiceFailure(.itemNotFound) }
            for path in found.unlocked { try connection.setLabel(label, ofItemAt: path) }
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
        return "no session bus, or no Secret Service answered on it; \(SecretServiceConnection.withoutService)"
    }

    /// Hears the changes other processes and interfaces make (see
    /// ``SecretServiceChangeSource``), on a connection of its own.
    public func makeOutsideChangeSource() -> (any OutsideChangeSource)? {
        SecretServiceChangeSource(busAddress: busAddress, timeoutMicroseconds: timeoutMicroseconds, ownWrites: ownWrites)
    }

    /// Creates an item of `attributes` and `label` holding `value` in
    /// ``collection``, with `replace` set: the service replaces, atomically,
    /// an item whose attributes include these. Completes a confirmation
    /// prompt (KeePassXC); a locked collection (gnome-keyring's `IsLocked`,
    /// KeePassXC's unlock-and-create prompt) is a failure naming it.
    /// Returns the created item's object path.
    @discardableResult
    func create(
        _ attributes: some Sequence<(key: String, value: String)>, label: String, value: [UInt8], on connection: SecretServiceConnection
    ) throws(SecretServiceFailure) -> String {
        var path = collectionPath
        let reply: BusMessage
        do throws(SecretServiceFailure) {
            reply = try createItem(attributes, label: label, value: value, in: path, on: connection)
        } catch let failure where failure.error == .itemNotFound {
            // No collection object answered at that path: resolve the
            // alias ourselves and try its collection once; never report
            // a missing collection as a missing item.
            path = try resolvedCollectionPath(on: connection)
            reply = try createItem(attributes, label: label, value: value, in: path, on: connection)
        } catch let failure where failure.error == .interactionNotAllowed && failure.unlocking.isEmpty {
            throw SecretServiceFailure.locked([try realCollectionPath(on: connection)], "the collection is")
        }
        let item = try reply.readString(as: "o")
        let prompt = try reply.readString(as: "o")
        if prompt == Names.noObject { try Names.requireServiceObjects([item]) }
        guard prompt != Names.noObject else {
            ownWrites.touched(item, deleted: false)
            return item
        }
        try Names.requireServiceObjects([prompt])
        // KeePassXC: a confirmation, or, when its database is locked, an
        // unlock that creates the item once it is done. The collection's
        // (or its alias's) Locked tells which; the alias is resolved only
        // to name what must be unlocked.
        if try connection.isLocked(path) {
            connection.dismiss(prompt)  // never shown
            throw SecretServiceFailure.locked([try realCollectionPath(on: connection)], "the collection is")
        }
        // Completed, the prompt names the item created once confirmed,
        // which the reply could not name.
        guard let completed = try connection.confirm(prompt, atMost: confirmationLimit) else { return item }
        let created = try completed.enter("v", "o") { () throws(SecretServiceFailure) in
            try completed.readString(as: "o")
        }
        try Names.requireServiceObjects([created])
        ownWrites.touched(created, deleted: false)
        return created
    }

    /// Calls `CreateItem` on the collection at `path` (see ``create(_:label:value:on:)``).
    private func createItem(
        _ attributes: some Sequence<(key: String, value: String)>, label: String, value: [UInt8], in path: String,
        on connection: SecretServiceConnection
    ) throws(SecretServiceFailure) -> BusMessage {
        let request = try connection.methodCall(path, Names.Collection.interface, Names.Collection.createItem)
        try request.container("a", "{sv}") { () throws(SecretServiceFailure) in
            try request.container("e", "sv") { () throws(SecretServiceFailure) in
                try request.append(Names.Item.labelProperty)
                try request.container("v", "s") { () throws(SecretServiceFailure) in try request.append(label) }
            }
            try request.container("e", "sv") { () throws(SecretServiceFailure) in
                try request.append(Names.Item.attributesProperty)
                try request.container("v", "a{ss}") { () throws(SecretServiceFailure) in
                    try request.append(dictionary: attributes)
                }
            }
        }
        try connection.session.append(value, to: request)
        // Replace an item with these attributes, atomically; not on a
        // service that matches loosely, which may replace another key's.
        try request.append(!connection.matchesLoosely)
        do throws(SecretServiceFailure) {
            return try connection.call(request)
        } catch let failure where failure.error == .itemNotFound && path != collectionPath {
            throw Self.noCollection("no collection at \(path)")
        }
    }

    /// Throws when a locked collection hides its items from searches
    /// (KeePassXC, for a locked database), naming them: a search proves
    /// nothing about what they hold. Before a search, from what is known
    /// until a collection changes
    /// (``SecretServiceConnection/knownHiddenCollections()``): KeePassXC
    /// (with its default UnlockBeforeSearch) answers a search of a locked
    /// database only once its unlock dialog is answered. After a search
    /// that found nothing, `asking` the service afresh: KeePassXC announces
    /// a lock after it has already stopped showing the items (measured: a
    /// read right after a lock found nothing before the signal came).
    func requireNoHiddenCollections(
        on connection: SecretServiceConnection, asking: Bool = false
    ) throws(SecretServiceFailure) {
        let hidden = asking ? try connection.freshHiddenCollections() : try connection.knownHiddenCollections()
        if !hidden.isEmpty { throw SecretServiceFailure.locked(hidden, "a collection that hides its items is") }
    }

    /// The object path of ``collection`` itself, never an alias's.
    private func realCollectionPath(on connection: SecretServiceConnection) throws(SecretServiceFailure) -> String {
        collection.hasPrefix("/") ? collection : try resolvedCollectionPath(on: connection)
    }

    /// The object path of ``collection``: the alias resolved by the service.
    private func resolvedCollectionPath(on connection: SecretServiceConnection) throws(SecretServiceFailure) -> String {
        guard !collection.hasPrefix("/") else { throw Self.noCollection("no collection at \(collection)") }
        let request = try connection.methodCall(Names.servicePath, Names.Service.interface, Names.Service.readAlias)
        try request.append(collection)
        let path = try connection.call(request).readString(as: "o")
        guard path != Names.noObject else { throw Self.noCollection("the alias '\(collection)' names no collection") }
        guard path != collectionPath else { throw Self.noCollection("no collection at \(path)") }
        return path
    }

    private static func noCollection(_ message: String) -> SecretServiceFailure {
        SecretServiceFailure(.unknownError(code: -1, message: message))
    }

    // MARK: Connection

    private var timeoutMicroseconds: UInt64 { Self.microseconds(timeout) }

    /// `duration` in microseconds, at least 1; a duration too long to
    /// count so (past 290,000 years) is the longest that can be.
    private static func microseconds(_ duration: Duration) -> UInt64 {
        let (seconds, attoseconds) = duration.components
        let (scaled, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000)
        if overflow { return seconds < 0 ? 1 : UInt64(Int64.max) }
        let (microseconds, overflowAgain) = scaled.addingReportingOverflow(attoseconds / 1_000_000_000_000)
        if overflowAgain { return UInt64(Int64.max) }
        return UInt64(max(1, microseconds))
    }

    /// Runs `body` on the open connection, opening one when there is none
    /// or when it belongs to the parent of this fork()ed process. A
    /// connection that turns out stale is dropped, and `body` runs once more
    /// on a new one. When `body` needs something unlocked and ``prompts``
    /// allows, the user is asked to unlock it, and `body` runs once more.
    /// Sets the calling thread's ``FailureDetail``.
    private func withConnection<R>(
        writing key: KeychainAttributes, _ body: (SecretServiceConnection) throws(SecretServiceFailure) -> R
    ) throws(KeychainError) -> R {
        try ownWrites.write(key) { () throws(KeychainError) in try withConnection(body) }
    }

    func withConnection<R>(
        _ body: (SecretServiceConnection) throws(SecretServiceFailure) -> R
    ) throws(KeychainError) -> R {
        FailureDetail.set(nil)
        var attemptsLeft = 2
        while true {
            attemptsLeft -= 1
            let outcome: Result<R, SecretServiceFailure> = connection.lock.withLock { () -> Result<R, SecretServiceFailure> in
                do throws(SecretServiceFailure) {
                    connection.dropInherited()
                    let open: SecretServiceConnection
                    if let existing = connection.current {
                        open = existing
                    } else {
                        open = try SecretServiceConnection.open(
                            busAddress: busAddress, timeoutMicroseconds: timeoutMicroseconds, transfer: transfer)
                        connection.current = open
                        if let name = open.bus.uniqueName { ownWrites.sending(as: name) }
                    }
                    open.bus.beginOperation(lasting: timeoutMicroseconds)
                    try open.bus.handlePendingSignals()
                    defer {
                        if let note = open.takeNote() ?? (open.session.isEncrypted ? nil : TransferSession.plainNote) {
                            FailureDetail.set(note)
                        }
                    }
                    do throws(SecretServiceFailure) {
                        return .success(try body(open))
                    } catch let failure where !failure.unlocking.isEmpty && prompts == .allowed {
                        try open.unlock(failure.unlocking, atMost: Self.microseconds(promptTimeout))
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
    private func entry(
        for key: KeychainAttributes, on connection: SecretServiceConnection
    ) throws(SecretServiceFailure) -> ItemPathCache.Entry? {
        connection.refreshCache()
        guard connection.cache.hasEntry(key) else { return nil }
        for path in connection.cache.unresolved {
            let attributes: [String: String]?
            do throws(SecretServiceFailure) {
                // nil: deleted since, or no item of the service's at all
                attributes = Names.isServiceObject(path) ? try connection.itemAttributes(at: path) : nil
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
        for key: KeychainAttributes, on connection: SecretServiceConnection
    ) throws(SecretServiceFailure) -> ItemPathCache.Entry? {
        guard try entry(for: key, on: connection) != nil else { return nil }
        try connection.bus.synchronize()
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
    private func search(_ key: KeychainAttributes, on connection: SecretServiceConnection) throws(SecretServiceFailure) -> Found {
        try requireNoHiddenCollections(on: connection)
        let verified = try connection.verifiedSearch(
            [Names.Attribute.service: key.service, Names.Attribute.account: key.account], cap: VerifiedSearch.keyedCap)
        let unlocked = verified.unlocked.map(\.id)
        let locked = verified.lockedPaths
        try requireNoHiddenCollections(on: connection, asking: unlocked.isEmpty && locked.isEmpty)
        let found = Found(unlocked: unlocked, locked: locked, chosen: Self.newest(verified.unlocked)?.id)
        if found.locked.isEmpty && unlocked.count < 2 {
            connection.cache.store(key, chosen: found.chosen, all: unlocked)
        } else {
            connection.cache.forget(key)
        }
        return found
    }

    /// The secret of the item at `path`.
    ///
    /// An empty secret is believed only once the item is seen, after it,
    /// to exist and be unlocked: KWallet (5.103) answers with an empty
    /// secret, not an error, a GetSecret that was on its way while the item
    /// was deleted (measured: most reads racing a delete) and a GetSecret
    /// of a locked item (measured: a locked git credential read as an
    /// empty password).
    func secret(at path: String, on connection: SecretServiceConnection) throws(SecretServiceFailure) -> [UInt8] {
        let request = try connection.methodCall(path, Names.Item.interface, Names.Item.getSecret)
        try request.append(connection.session.path, as: "o")
        let value = try connection.session.readSecret(from: try connection.call(request))
        if value.isEmpty {
            guard let item = try connection.item(at: path) else { throw SecretServiceFailure(.itemNotFound) }
            if item.isLocked { throw SecretServiceFailure.locked([path], "the item is") }
        }
        return value
    }

    /// Replaces the secret of the item at `path`, and announces it: the
    /// services send no signal for `SetSecret`, so other processes' watchers
    /// hear our own (``SecretServiceNames/Changes``).
    func setSecret(_ value: [UInt8], at path: String, on connection: SecretServiceConnection) throws(SecretServiceFailure) {
        let request = try connection.methodCall(path, Names.Item.interface, Names.Item.setSecret)
        try connection.session.append(value, to: request)
        _ = try connection.call(request)
        ownWrites.touched(path, deleted: false)
        let announcement = try connection.bus.signal(Names.Changes.path, Names.Changes.interface, Names.Changes.secretChanged)
        try announcement.append(path, as: "o")
        try connection.bus.send(announcement)
    }

    /// Deletes the item at `path`; one deleted meanwhile is no error.
    func deleteItem(at path: String, on connection: SecretServiceConnection) throws(SecretServiceFailure) {
        do throws(SecretServiceFailure) {
            let reply = try connection.call(try connection.methodCall(path, Names.Item.interface, Names.Item.delete))
            ownWrites.touched(path, deleted: true)
            try connection.confirm(try reply.readString(as: "o"), atMost: confirmationLimit)
        } catch let failure where failure.error == .itemNotFound {
            return
        }
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
        _ value: [UInt8], collapsing items: [String], of key: KeychainAttributes, on connection: SecretServiceConnection
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
        let foreign = latest.filter { !$0.attribute(Names.Attribute.schema, is: schemaName) }
        if !foreign.isEmpty { latest = foreign }
        return latest.max { precedesInCreationOrder($0.id, $1.id) }
    }

    /// The bound on a confirmation prompt: the call timeout when unlock
    /// prompts are not allowed (such prompts are expected to complete at
    /// once), else the prompt timeout.
    private var confirmationLimit: UInt64 {
        prompts == .allowed ? Self.microseconds(promptTimeout) : timeoutMicroseconds
    }
}
