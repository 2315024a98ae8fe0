// SPDX-License-Identifier: MIT
import KeychainKitBus
import KeychainKitCore

/// The Secret Service calls that need no transfer session: searches and
/// items' properties, for the backend and the watcher of changes made
/// elsewhere alike.
extension SecretServiceClient {

    private typealias Names = SecretServiceNames

    /// The items whose attributes include `attributes`, in every collection:
    /// those readable now, and those in locked collections, as the service
    /// says (see ``verifiedSearch(_:cap:)`` for what may be acted on).
    package func searchItems(
        _ attributes: some Sequence<(key: String, value: String)>
    ) throws(SecretServiceFailure) -> (unlocked: [String], locked: [String]) {
        let reply = try call(try searchRequest(attributes))
        return (try reply.readObjectPaths(), try reply.readObjectPaths())
    }

    /// What ``searchItems(_:)`` finds for each of `searches`, asked
    /// together (one `SearchItems` each, sent at once), merged: every item
    /// once, unlocked when any search listed it so. A failure of any
    /// search throws.
    package func searchItems(
        each searches: [[(key: String, value: String)]]
    ) throws(SecretServiceFailure) -> (unlocked: [String], locked: [String]) {
        var requests: [ServiceMessage] = []
        for attributes in searches { requests.append(try searchRequest(attributes)) }
        var unlocked: [String] = [], locked: [String] = []
        var seen = Set<String>()
        var lockedPaths: [String] = []
        for answer in try calls(requests) {
            let reply = try answer.get()
            for path in try reply.readObjectPaths() where seen.insert(path).inserted { unlocked.append(path) }
            lockedPaths += try reply.readObjectPaths()
        }
        for path in lockedPaths where seen.insert(path).inserted { locked.append(path) }
        return (unlocked, locked)
    }

    private func searchRequest(
        _ attributes: some Sequence<(key: String, value: String)>
    ) throws(SecretServiceFailure) -> ServiceMessage {
        let request = try methodCall(Names.servicePath, Names.Service.interface, Names.Service.searchItems)
        try request.append(dictionary: attributes)
        return request
    }

    /// The reply `(v)` to getting the item property `name` of the item at `path`.
    func itemProperty(_ name: String, at path: String) throws(SecretServiceFailure) -> ServiceMessage {
        try call(try propertyRequest(name, at: path))
    }

    /// The attributes of the item at `path`; `nil` when it no longer exists.
    package func itemAttributes(at path: String) throws(SecretServiceFailure) -> [String: String]? {
        try Self.attributes(from: Result { () throws(SecretServiceFailure) in try itemProperty(Names.Item.attributes, at: path) })
    }

    /// The attributes of the items at `paths`, in order, as
    /// ``itemAttributes(at:)`` gives each, asked for together (one `Get`
    /// each, sent at once): a service that finds an item by a walk over
    /// all of them (gnome-keyring) answers it several times faster than a
    /// `GetAll`. A failure is that item's; one that ends the connection or
    /// the operation's time throws.
    func itemAttributes(at paths: [String]) throws(SecretServiceFailure) -> [Result<[String: String]?, SecretServiceFailure>] {
        var requests: [ServiceMessage] = []
        for path in paths { requests.append(try propertyRequest(Names.Item.attributes, at: path)) }
        return try calls(requests).map { (reply) throws(SecretServiceFailure) in
            let attributes = Result { () throws(SecretServiceFailure) in try Self.attributes(from: reply) }
            if case let .failure(failure) = attributes, failure.connectionLost { throw failure }
            return attributes
        }
    }

    private func propertyRequest(_ name: String, at path: String) throws(SecretServiceFailure) -> ServiceMessage {
        let request = try methodCall(path, Names.Properties.interface, Names.Properties.get)
        try request.append(Names.Item.interface)
        try request.append(name)
        return request
    }

    /// The attributes in the `reply` to getting them; `nil` when the item
    /// no longer exists.
    private static func attributes(
        from answer: Result<ServiceMessage, SecretServiceFailure>
    ) throws(SecretServiceFailure) -> [String: String]? {
        let reply: ServiceMessage
        do throws(SecretServiceFailure) {
            reply = try answer.get()
        } catch let failure where failure.error == .itemNotFound {
            return nil
        }
        return try reply.enter("v", "a{ss}") { () throws(SecretServiceFailure) in try reply.readDictionary() }
    }

    /// When the item at `path` was last modified, in seconds since the
    /// epoch, as the service says.
    package func itemModified(at path: String) throws(SecretServiceFailure) -> UInt64 {
        let reply = try itemProperty(Names.Item.modified, at: path)
        return try reply.enter("v", "t") { () throws(SecretServiceFailure) in try reply.readUInt64() }
    }

    /// The item at `path` as the service describes it (one `GetAll`);
    /// `nil` when it no longer exists.
    package func item(at path: String) throws(SecretServiceFailure) -> AttributeItem? {
        try Self.item(at: path, from: Result { () throws(SecretServiceFailure) in try call(try itemRequest(at: path)) })
    }

    /// The items at `paths`, in order, as ``item(at:)`` gives each, asked
    /// for together (``BusConnection/calls(_:whileTheyTravel:)``): one round trip's latency
    /// for all. A failure is that item's (a locked one's attributes
    /// withheld); one that ends the connection or the operation's time
    /// throws.
    package func items(at paths: [String]) throws(SecretServiceFailure) -> [Result<AttributeItem?, SecretServiceFailure>] {
        var requests: [ServiceMessage] = []
        for path in paths { requests.append(try itemRequest(at: path)) }
        let replies = try calls(requests)
        return try zip(paths, replies).map { (path, reply) throws(SecretServiceFailure) in
            let item = Result { () throws(SecretServiceFailure) in try Self.item(at: path, from: reply) }
            if case let .failure(failure) = item, failure.connectionLost { throw failure }
            return item
        }
    }

    private func itemRequest(at path: String) throws(SecretServiceFailure) -> ServiceMessage {
        let request = try methodCall(path, Names.Properties.interface, Names.Properties.getAll)
        try request.append(Names.Item.interface)
        return request
    }

    /// The item at `path` from the `reply` to its `GetAll`; `nil` when it
    /// no longer exists.
    private static func item(
        at path: String, from answer: Result<ServiceMessage, SecretServiceFailure>
    ) throws(SecretServiceFailure) -> AttributeItem? {
        let reply: ServiceMessage
        do throws(SecretServiceFailure) {
            reply = try answer.get()
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
            case Names.Item.attributes:
                attributes = try reply.enter("v", "a{ss}") { () throws(SecretServiceFailure) in try reply.readDictionary() }
            case Names.Item.label:
                label = try reply.enter("v", "s") { () throws(SecretServiceFailure) in try reply.readString() }
            case Names.Item.created:
                created = try reply.enter("v", "t") { () throws(SecretServiceFailure) in try reply.readUInt64() }
            case Names.Item.modified:
                modified = try reply.enter("v", "t") { () throws(SecretServiceFailure) in try reply.readUInt64() }
            case Names.Item.locked:
                locked = try reply.enter("v", "b") { () throws(SecretServiceFailure) in try reply.readBool() }
            default:
                try reply.skip("v")
            }
        }
        return AttributeItem(
            id: path, attributes: attributes, label: label, created: created, modified: modified, isLocked: locked)
    }

    /// Sets the label of the item at `path`.
    package func setLabel(_ label: String, ofItemAt path: String) throws(SecretServiceFailure) {
        let request = try methodCall(path, Names.Properties.interface, Names.Properties.set)
        try request.append(Names.Item.interface)
        try request.append(Names.Item.label)
        try request.container("v", "s") { () throws(SecretServiceFailure) in try request.append(label) }
        _ = try change { () throws(SecretServiceFailure) in try call(request) }
    }
}
