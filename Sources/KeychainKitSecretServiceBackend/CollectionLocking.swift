// SPDX-License-Identifier: MIT
import KeychainKitCore
import KeychainKitSecretService

/// Unlocking and locking a collection on request: what a terminal user over
/// SSH needs (the login did not unlock the keyring and no dialog can
/// appear), and a headless service given the password by systemd.
extension SecretServiceKeychainInterface {

    /// Unlocks the collection `name` names — an alias (`"default"`), a
    /// collection's name (`"login"`) or object path; `nil`: ``collection``,
    /// this handle's — with its `password`, without a dialog, where the
    /// service takes a password over the bus (gnome-keyring and oo7-daemon
    /// do, through gnome-keyring's private `UnlockWithMasterPassword`). The
    /// password crosses the bus in the transfer session (encrypted unless
    /// ``transfer`` let it be plain) and is wiped from `password` before
    /// this returns, whatever happens.
    ///
    /// A collection already unlocked is left as it is (its password is not
    /// checked). Elsewhere (KWallet, KeePassXC) the service's own unlock
    /// prompt is shown when ``prompts`` allows it.
    ///
    /// Throws ``KeychainError/wrongMasterKey`` when the service refused the
    /// password (the collection stays locked), ``KeychainError/itemNotFound``
    /// when there is no such collection, ``KeychainError/interactionNotAllowed``
    /// when the service takes no password and prompts are not allowed (or
    /// nobody answered its prompt), ``KeychainError/userCanceled`` when the
    /// prompt was dismissed, ``KeychainError/invalidArgument`` for an empty
    /// name.
    public func unlock(collection name: String? = nil, password: inout [UInt8]) throws(KeychainError) {
        defer { password.wipe() }
        let name = try Self.collectionName(name ?? collection)
        try withConnection { connection throws(SecretServiceFailure) in
            let client = connection.client
            let path = try client.collectionPath(named: name)
            guard try client.lockedCollection(path, named: name) else { return }
            guard try client.takesMasterPassword() else {
                throw SecretServiceFailure(
                    .interactionNotAllowed,
                    detail: "this Secret Service takes no password over the bus (gnome-keyring and oo7-daemon do): "
                        + "unlock '\(name)' in the service's own window, or allow prompts to show its dialog",
                    unlocking: [path])
            }
            try client.unlock(path, password: password)
            connection.cache.apply(.everything)
        }
    }

    /// Unlocks the collection `name` names (as above) through the service's
    /// own unlock prompt, when ``prompts`` allows it; no password is given.
    /// Throws ``KeychainError/interactionNotAllowed`` when the collection
    /// is locked and prompts are not allowed or nobody answered.
    public func unlock(collection name: String? = nil) throws(KeychainError) {
        let name = try Self.collectionName(name ?? collection)
        try withConnection { connection throws(SecretServiceFailure) in
            let path = try connection.client.collectionPath(named: name)
            guard try connection.client.lockedCollection(path, named: name) else { return }
            throw SecretServiceFailure.locked([path], "the collection is")
        }
    }

    /// Locks the collection `name` names (as above; `nil`: this handle's),
    /// completing the confirmation a service may ask for (KeePassXC).
    /// Reads of its items then say ``KeychainError/interactionNotAllowed``
    /// until it is unlocked. Throws ``KeychainError/itemNotFound`` when
    /// there is no such collection.
    public func lock(collection name: String? = nil) throws(KeychainError) {
        let name = try Self.collectionName(name ?? collection)
        try withConnection { connection throws(SecretServiceFailure) in
            let path = try connection.client.collectionPath(named: name)
            try connection.client.lock(path, confirmingWithin: confirmationLimit)
            connection.cache.apply(.everything)
        }
    }

    /// Whether the collection `name` names (as for
    /// ``unlock(collection:password:)``; `nil`: this handle's) is locked.
    /// Throws ``KeychainError/itemNotFound`` when there is no such
    /// collection.
    public func isLocked(collection name: String? = nil) throws(KeychainError) -> Bool {
        let name = try Self.collectionName(name ?? collection)
        return try withConnection { connection throws(SecretServiceFailure) in
            try connection.client.lockedCollection(try connection.client.collectionPath(named: name), named: name)
        }
    }

    /// Whether the service takes a collection's password over the bus, so
    /// that ``unlock(collection:password:)`` needs no dialog (gnome-keyring
    /// and oo7-daemon: gnome-keyring's private `UnlockWithMasterPassword`).
    public func takesPasswords() throws(KeychainError) -> Bool {
        try withConnection { connection throws(SecretServiceFailure) in try connection.client.takesMasterPassword() }
    }

    /// `name`, checked (``invalidCollectionReason(_:)``).
    private static func collectionName(_ name: String) throws(KeychainError) -> String {
        guard invalidCollectionReason(name) == nil else { throw KeychainError.invalidArgument }
        return name
    }
}
