// SPDX-License-Identifier: MIT
import KeychainKitCore
import KeychainKitSecretService

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
        try search(attributes, readingSecretOfOne: false).items
    }

    /// ``items(matching:)``; when the search finds one unlocked item and
    /// nothing locked, on gnome-keyring or a service of its interface, its
    /// secret is asked for along with its properties and kept only if the
    /// item passes the check (``VerifiedSearch/secretOfOne``).
    public func itemsReadingSecretOfOne(
        matching attributes: [String: String]
    ) throws(KeychainError) -> (items: [AttributeItem], secretOfOne: [UInt8]?) {
        try search(attributes, readingSecretOfOne: true)
    }

    private func search(
        _ attributes: [String: String], readingSecretOfOne: Bool
    ) throws(KeychainError) -> (items: [AttributeItem], secretOfOne: [UInt8]?) {
        try validate(attributes)
        return try withConnection { connection throws(SecretServiceFailure) in
            try requireNoHiddenCollections(on: connection)
            // A listing: any number of matches.
            var found = try connection.client.verifiedSearch(attributes, cap: nil, readingSecretOfOne: readingSecretOfOne)
            var secretOfOne = found.secretOfOne
            found.secretOfOne = nil
            defer { secretOfOne?.value.wipe() }
            if found.unlocked.isEmpty && found.lockedPaths.isEmpty {
                try requireNoHiddenCollections(on: connection, asking: true)
            }
            if !found.withheldLocked.isEmpty { throw SecretServiceFailure.locked(found.withheldLocked, "the item is") }
            let items = (found.unlocked + found.locked).sorted(by: AttributeItem.newestFirst)
            guard let one = secretOfOne, items.map(\.id) == [one.path] else { return (items, nil) }
            secretOfOne = nil  // handed on: the caller wipes it
            return (items, one.value)
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
                    return try connection.client.secret(at: item.id)
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
            let pairs = attributes.sorted { $0.key.precedesByUTF8($1.key) }
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
    private func requireUnlocked(_ item: AttributeItem, on connection: KeyedConnection) throws(SecretServiceFailure) {
        guard item.isLocked else { return }
        if try connection.client.item(at: item.id)?.isLocked == true {
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
