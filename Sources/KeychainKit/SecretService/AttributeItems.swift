import CSDBus

/// Items addressed by arbitrary attributes rather than by a service and an
/// account: what clients that share items with other tools need (git's
/// `org.git.Password` items, libsecret's network passwords). The same
/// guarantees as the keyed operations: a locked item or a collection that
/// hides its items is ``KeychainError/interactionNotAllowed`` (or unlocked
/// first, as ``prompts`` allows), never absent; every call is bounded.
extension SecretServiceKeychainInterface: AttributeItemStore {

    private typealias Names = SecretServiceNames

    /// The items, in every collection, whose attributes include
    /// `attributes` (values compared by bytes, here: the service's answer
    /// is verified item by item, see ``VerifiedSearch``), most
    /// recently modified first (then the last created first, by path).
    /// Locked items are included, marked ``AttributeItem/isLocked``.
    ///
    /// Throws ``KeychainError/interactionNotAllowed`` when a locked
    /// collection hides its items (KeePassXC), since the answer could be
    /// incomplete, and ``KeychainError/invalidArgument`` for an attribute
    /// name or value containing NUL.
    public func items(matching attributes: [String: String]) throws(KeychainError) -> [AttributeItem] {
        try validate(attributes)
        return try withConnection { connection throws(SecretServiceFailure) in
            try requireNoHiddenCollections(on: connection)
            let found = try connection.verifiedSearch(attributes, cap: VerifiedSearch.keyedCap)
            if found.unlocked.isEmpty && found.lockedPaths.isEmpty {
                try requireNoHiddenCollections(on: connection, asking: true)
            }
            if !found.unverifiedLocked.isEmpty { throw SecretServiceFailure.locked(found.unverifiedLocked, "the item is") }
            return (found.unlocked + found.locked).sorted(by: AttributeItem.newestFirst)
        }
    }

    /// The secret of `item`; `nil` when the item was deleted meanwhile. A
    /// locked item is unlocked first when ``prompts`` allows, else
    /// ``KeychainError/interactionNotAllowed``.
    public func secret(of item: AttributeItem) throws(KeychainError) -> [UInt8]? {
        try withConnection { connection throws(SecretServiceFailure) in
            do throws(SecretServiceFailure) {
                return try Self.lockedNamed(item.id) { () throws(SecretServiceFailure) in
                    try requireUnlocked(item, on: connection)
                    return try secret(at: item.id, on: connection)
                }
            } catch let failure where failure.error == .itemNotFound {
                return nil
            }
        }
    }

    /// Creates an item of exactly `attributes` and `label` holding `value`
    /// in ``collection``. The service replaces, atomically, an item there
    /// whose attributes include all of these (gnome-keyring, KWallet; as
    /// libsecret's `secret_password_store` does). A locked collection is
    /// unlocked first when ``prompts`` allows. Returns the created item's
    /// object path (``AttributeItem/id``).
    @discardableResult
    public func createItem(attributes: [String: String], label: String, value: [UInt8]) throws(KeychainError) -> String {
        try validate(attributes, label: label)
        return try withConnection { connection throws(SecretServiceFailure) in
            let pairs = attributes.sorted { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) }
            return try create(pairs, label: label, value: value, on: connection)
        }
    }

    /// Replaces the secret of `item` in place (its attributes and label
    /// stay); throws ``KeychainError/itemNotFound`` when it was deleted
    /// meanwhile. A locked item is unlocked first when ``prompts`` allows.
    public func setSecret(_ value: [UInt8], of item: AttributeItem) throws(KeychainError) {
        try withConnection { connection throws(SecretServiceFailure) in
            try Self.lockedNamed(item.id) { () throws(SecretServiceFailure) in
                try requireUnlocked(item, on: connection)
                try setSecret(value, at: item.id, on: connection)
            }
        }
    }

    /// Deletes `item`; one deleted meanwhile is no error. A locked item is
    /// unlocked first when ``prompts`` allows.
    public func delete(_ item: AttributeItem) throws(KeychainError) {
        try withConnection { connection throws(SecretServiceFailure) in
            try Self.lockedNamed(item.id) { () throws(SecretServiceFailure) in
                try requireUnlocked(item, on: connection)
                try deleteItem(at: item.id, on: connection)
            }
        }
    }

    /// Throws, naming `item`, when it was locked when found and still is
    /// (it may have been unlocked since, by the user or by this backend's
    /// prompt): one question to the service, for locked items only.
    private func requireUnlocked(_ item: AttributeItem, on connection: SecretServiceConnection) throws(SecretServiceFailure) {
        guard item.isLocked else { return }
        if try connection.item(at: item.id)?.isLocked == true {
            throw SecretServiceFailure.locked([item.id], "the item is")
        }
    }

    /// Runs `body`, naming `path` as what must be unlocked when the
    /// service answers that it is locked.
    private static func lockedNamed<R>(
        _ path: String, _ body: () throws(SecretServiceFailure) -> R
    ) throws(SecretServiceFailure) -> R {
        do throws(SecretServiceFailure) {
            return try body()
        } catch let failure where failure.error == .interactionNotAllowed && failure.unlocking.isEmpty && failure.detail == nil {
            throw SecretServiceFailure.locked([path], "the item is")
        }
    }

}

extension SecretServiceConnection {

    /// The item at `path` as the service describes it (one `GetAll`);
    /// `nil` when it no longer exists.
    func item(at path: String) throws(SecretServiceFailure) -> AttributeItem? {
        let request = try methodCall(path, SecretServiceNames.Properties.interface, SecretServiceNames.Properties.getAll)
        try request.append(SecretServiceNames.Item.interface)
        let reply: BusMessage
        do throws(SecretServiceFailure) {
            reply = try call(request)
        } catch let failure where failure.error == .itemNotFound {
            return nil
        }
        var attributes: [String: String] = [:]
        var label = ""
        var created: UInt64 = 0
        var modified: UInt64 = 0
        var locked = false
        try reply.forEachProperty { name throws(SecretServiceFailure) in
            switch name {
            case SecretServiceNames.Item.attributes:
                attributes = try reply.enter("v", "a{ss}") { () throws(SecretServiceFailure) in try reply.readDictionary() }
            case SecretServiceNames.Item.label:
                label = try reply.enter("v", "s") { () throws(SecretServiceFailure) in try reply.readString() }
            case SecretServiceNames.Item.created:
                created = try reply.enter("v", "t") { () throws(SecretServiceFailure) in try reply.readUInt64() }
            case SecretServiceNames.Item.modified:
                modified = try reply.enter("v", "t") { () throws(SecretServiceFailure) in try reply.readUInt64() }
            case SecretServiceNames.Item.locked:
                locked = try reply.enter("v", "b") { () throws(SecretServiceFailure) in try reply.readBool() }
            default:
                try reply.skip("v")
            }
        }
        return AttributeItem(
            id: path, attributes: attributes, label: label, created: created, modified: modified, isLocked: locked)
    }

    /// Sets the label of the item at `path`.
    func setLabel(_ label: String, ofItemAt path: String) throws(SecretServiceFailure) {
        let request = try methodCall(path, SecretServiceNames.Properties.interface, SecretServiceNames.Properties.set)
        try request.append(SecretServiceNames.Item.interface)
        try request.append(SecretServiceNames.Item.label)
        try request.container("v", "s") { () throws(SecretServiceFailure) in try request.append(label) }
        _ = try call(request)
    }
}
