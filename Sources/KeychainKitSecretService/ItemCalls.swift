// SPDX-License-Identifier: MIT
import KeychainKitBus

/// The Secret Service calls that create items and read, replace or delete
/// their secrets, each checking what the service answered.
extension SecretServiceClient {

    private typealias Names = SecretServiceNames

    /// Told of each item path a write touched (`deleted` for a deletion),
    /// as soon as the service answered, so that the watcher of changes made
    /// elsewhere can tell the echoes of our own writes.
    package typealias TouchedItem = (_ path: String, _ deleted: Bool) -> Void

    /// The object path of `collection`: itself when it is a path, else its
    /// alias's (`/org/freedesktop/secrets/aliases/<alias>`).
    static func objectPath(ofCollection collection: String) -> String {
        collection.hasPrefix("/") ? collection : Names.aliasPath(collection)
    }

    /// Creates an item of `attributes` and `label` holding `value` in
    /// `collection` (an alias or an object path), with `replace` set unless
    /// the service matches loosely (``matchesLoosely``): the service then
    /// replaces, atomically, an item whose attributes include these.
    /// Completes a confirmation prompt (KeePassXC) within `limit`
    /// microseconds; a locked collection (gnome-keyring's `IsLocked`,
    /// KeePassXC's unlock-and-create prompt) is a failure naming it.
    /// Returns the created item's object path.
    @discardableResult
    package func create(
        _ attributes: some Sequence<(key: String, value: String)>, label: String, value: [UInt8],
        in collection: String, confirmingWithin limit: UInt64, touched: TouchedItem
    ) throws(SecretServiceFailure) -> String {
        var path = Self.objectPath(ofCollection: collection)
        let reply: ServiceMessage
        do throws(SecretServiceFailure) {
            reply = try createItem(attributes, label: label, value: value, in: path, of: collection)
        } catch let failure where failure.error == .itemNotFound {
            // No collection object answered at that path: resolve the
            // alias ourselves and try its collection once; never report
            // a missing collection as a missing item.
            path = try resolvedCollectionPath(collection)
            reply = try createItem(attributes, label: label, value: value, in: path, of: collection)
        } catch let failure where failure.error == .interactionNotAllowed && failure.unlocking.isEmpty {
            throw SecretServiceFailure.locked([try realCollectionPath(collection)], "the collection is")
        }
        let item = try reply.readString(as: "o")
        let prompt = try reply.readString(as: "o")
        guard prompt != Names.noObject else {
            try Names.requireServiceObjects([item])
            touched(item, false)
            return item
        }
        try Names.requireServiceObjects([prompt])
        // KeePassXC: a confirmation, or, when its database is locked, an
        // unlock that creates the item once it is done. The collection's
        // (or its alias's) Locked tells which; the alias is resolved only
        // to name what must be unlocked.
        if try isLocked(path) {
            dismiss(prompt)  // never shown
            throw SecretServiceFailure.locked([try realCollectionPath(collection)], "the collection is")
        }
        // Completed, the prompt names the item created once confirmed,
        // which the reply could not name.
        guard let completed = try confirm(prompt, atMost: limit) else { return item }
        let created = try completed.enter("v", "o") { () throws(SecretServiceFailure) in
            try completed.readString(as: "o")
        }
        try Names.requireServiceObjects([created])
        touched(created, false)
        return created
    }

    /// Calls `CreateItem` on the collection at `path`, which names
    /// `collection` or its resolved alias (see ``create(_:label:value:in:confirmingWithin:touched:)``).
    private func createItem(
        _ attributes: some Sequence<(key: String, value: String)>, label: String, value: [UInt8], in path: String,
        of collection: String
    ) throws(SecretServiceFailure) -> ServiceMessage {
        let request = try methodCall(path, Names.Collection.interface, Names.Collection.createItem)
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
        try session.append(value, to: request)
        // Replace an item with these attributes, atomically; not on a
        // service that matches loosely, which may replace another key's.
        try request.append(!matchesLoosely)
        do throws(SecretServiceFailure) {
            return try change { () throws(SecretServiceFailure) in try call(request) }
        } catch let failure where failure.error == .itemNotFound && path != Self.objectPath(ofCollection: collection) {
            throw Self.noCollection("no collection at \(path)")
        }
    }

    /// The object path of `collection` itself, never an alias's.
    func realCollectionPath(_ collection: String) throws(SecretServiceFailure) -> String {
        collection.hasPrefix("/") ? collection : try resolvedCollectionPath(collection)
    }

    /// The object path the alias `collection` names, as the service resolves it.
    private func resolvedCollectionPath(_ collection: String) throws(SecretServiceFailure) -> String {
        guard !collection.hasPrefix("/") else { throw Self.noCollection("no collection at \(collection)") }
        let request = try methodCall(Names.servicePath, Names.Service.interface, Names.Service.readAlias)
        try request.append(collection)
        let path = try call(request).readString(as: "o")
        guard path != Names.noObject else { throw Self.noCollection("the alias '\(collection)' names no collection") }
        guard path != Self.objectPath(ofCollection: collection) else { throw Self.noCollection("no collection at \(path)") }
        try Names.requireServiceObjects([path])
        return path
    }

    private static func noCollection(_ message: String) -> SecretServiceFailure {
        SecretServiceFailure(.unknownError(code: -1, message: message))
    }

    /// The secret of the item at `path`.
    ///
    /// An empty secret is believed only once the item is seen, after it,
    /// to exist and be unlocked: KWallet (5.103) answers with an empty
    /// secret, not an error, a GetSecret that was on its way while the item
    /// was deleted (measured: most reads racing a delete) and a GetSecret
    /// of a locked item (measured: a locked git credential read as an
    /// empty password).
    package func secret(at path: String) throws(SecretServiceFailure) -> [UInt8] {
        try secret(from: try call(try secretRequest(at: path)), at: path)
    }

    /// The `GetSecret` call for the item at `path`, in this client's session.
    func secretRequest(at path: String) throws(SecretServiceFailure) -> ServiceMessage {
        let request = try methodCall(path, Names.Item.interface, Names.Item.getSecret)
        try request.append(session.path, as: "o")
        return request
    }

    /// The secret `reply` (the answer to ``secretRequest(at:)``) carries;
    /// an empty one is told apart from a locked item's.
    func secret(from reply: ServiceMessage, at path: String) throws(SecretServiceFailure) -> [UInt8] {
        let value = try session.readSecret(from: reply)
        if value.isEmpty {
            guard let item = try item(at: path) else { throw SecretServiceFailure(.itemNotFound) }
            if item.isLocked { throw SecretServiceFailure.locked([path], "the item is") }
        }
        return value
    }

    /// The secrets of the items at `paths`, asked for in one `GetSecrets`
    /// call; an item the answer leaves out (deleted or locked meanwhile,
    /// or a service without `GetSecrets`) or gives an empty secret is read
    /// alone (``secret(at:)``), and its failure is its own. No answer in
    /// time, or a lost connection, throws for all. Paths the
    /// service adds that were not asked for are ignored, a server fault
    /// noted.
    package func secrets(at paths: [String]) throws(SecretServiceFailure) -> [String: Result<[UInt8], SecretServiceFailure>] {
        var secrets: [String: Result<[UInt8], SecretServiceFailure>] = [:]
        guard !paths.isEmpty else { return secrets }
        let asked = Set(paths)
        var values: [String: [UInt8]] = [:]
        var foreign = 0
        let request = try methodCall(Names.servicePath, Names.Service.interface, Names.Service.getSecrets)
        try request.append(objectPaths: paths)
        try request.append(session.path, as: "o")
        do throws(SecretServiceFailure) {
            let reply = try call(request)
            reply.markSensitive()
            try reply.forEachEntry("o(oayays)") { () throws(SecretServiceFailure) in
                let path = try reply.readString(as: "o")
                var value = try session.readSecret(from: reply)
                if asked.contains(path) && values[path] == nil && !value.isEmpty {
                    values[path] = value
                } else {
                    if !asked.contains(path) { foreign += 1 }
                    value.wipe()
                }
            }
        } catch {
            for path in values.keys { values[path]?.wipe() }
            values = [:]
            if Self.failsEveryItem(error) { throw error }
            // No GetSecrets, or it refused the batch: each is read alone.
        }
        if foreign > 0 {
            note("the Secret Service answered GetSecrets with \(foreign) item(s) not asked for (a server fault); they were ignored")
        }
        for path in paths where secrets[path] == nil {
            if let value = values.removeValue(forKey: path) {
                secrets[path] = .success(value)
                continue
            }
            do throws(SecretServiceFailure) {
                secrets[path] = .success(try secret(at: path))
            } catch let failure where !Self.failsEveryItem(failure) {
                secrets[path] = .failure(failure)
            }
        }
        return secrets
    }

    /// Whether `failure` is the service's or the bus's (no answer in time,
    /// the connection lost), not one item's: it ends the operation, with
    /// its own words.
    private static func failsEveryItem(_ failure: SecretServiceFailure) -> Bool {
        failure.connectionLost || failure.error == .serviceUnavailable
    }

    /// Replaces the secret of the item at `path`, and announces it: the
    /// services send no signal for `SetSecret`, so other processes' watchers
    /// hear our own (``SecretServiceNames/Changes``).
    package func setSecret(_ value: [UInt8], at path: String, touched: TouchedItem) throws(SecretServiceFailure) {
        let request = try methodCall(path, Names.Item.interface, Names.Item.setSecret)
        try session.append(value, to: request)
        _ = try change { () throws(SecretServiceFailure) in try call(request) }
        touched(path, false)
        try onBus { () throws(BusFailure) in
            let announcement = try bus.signal(Names.Changes.path, Names.Changes.interface, Names.Changes.secretChanged)
            try announcement.append(path, as: "o")
            try bus.send(announcement)
        }
    }

    /// Deletes the item at `path`, completing a confirmation prompt within
    /// `limit` microseconds; one deleted meanwhile is no error.
    package func deleteItem(at path: String, confirmingWithin limit: UInt64, touched: TouchedItem) throws(SecretServiceFailure) {
        do throws(SecretServiceFailure) {
            let request = try methodCall(path, Names.Item.interface, Names.Item.delete)
            let reply = try change { () throws(SecretServiceFailure) in try call(request) }
            touched(path, true)
            let prompt = try reply.readString(as: "o")
            if prompt != Names.noObject { try Names.requireServiceObjects([prompt]) }
            try confirm(prompt, atMost: limit)
        } catch let failure where failure.error == .itemNotFound {
            return
        }
    }
}
