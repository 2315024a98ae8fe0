// SPDX-License-Identifier: MIT
import KeychainKitBus
import KeychainKitSecretService
import KeychainKitSystem
#if canImport(Glibc)
import Glibc
#endif

/// The Collection and Item interfaces, and the properties of every object.
extension SecretServer {

    // MARK: Collection

    func answerCollection(_ call: BusMessage, _ member: String, _ collection: ServedCollection) throws(ServiceError) {
        switch member {
        case SecretServiceNames.Collection.searchItems:
            try expect(call, "a{ss}")
            let attributes = try arguments(call) { message throws(BusFailure) in try message.readDictionary() }
            try announce(collection, try collection.sync())
            let paths = collection.search(attributes).map(collection.itemPath)
            try reply(call) { message throws(BusFailure) in try message.append(objectPaths: paths) }
        case SecretServiceNames.Collection.createItem:
            try expect(call, "a{sv}(oayays)b")
            var label = ""
            var attributes: [String: String] = [:]
            try arguments(call) { message throws(BusFailure) in
                try message.readProperties { name, type throws(BusFailure) in
                    switch (name, type) {
                    case (SecretServiceNames.Item.labelProperty, "s"): label = try message.readString()
                    case (SecretServiceNames.Item.attributesProperty, "a{ss}"): attributes = try message.readDictionary()
                    default: return false
                    }
                    return true
                }
            }
            var secret = try readSecret(call)
            defer { secret.value.wipe() }
            let replace = try arguments(call) { message throws(BusFailure) in try message.readBool() }
            try checkText(label: label, attributes: attributes)
            guard !collection.isLocked else { throw ServiceError.isLocked(collection.path) }
            try announce(collection, try collection.sync())
            guard collection.numbers().count < ServerLimits.itemsPerCollection else {
                throw ServiceError.limit("at most \(ServerLimits.itemsPerCollection) items a collection")
            }
            let (number, changes) = try collection.createItem(
                attributes: attributes, label: label, secret: secret.value, contentType: secret.contentType, replace: replace)
            try announce(collection, changes)
            try reply(call) { message throws(BusFailure) in
                try message.append(collection.itemPath(number), as: "o")
                try message.append(ObjectPath.none, as: "o")
            }
        case SecretServiceNames.Collection.delete:
            try expect(call, "")
            if let store = collection.store as? FileCollectionStore, unlink(store.path) != 0 && errno != ENOENT {
                throw ServiceError(name: BusNames.BusError.failed, message: "\(store.path) could not be removed")
            }
            collection.lock()
            removeCollection(collection.name)
            emit(ObjectPath.root, SecretServiceNames.Service.interface, SecretServiceNames.Service.collectionDeleted, collection.path)
            try reply(call) { message throws(BusFailure) in try message.append(ObjectPath.none, as: "o") }
        default:
            throw ServiceError.unknownMethod(SecretServiceNames.Collection.interface, member)
        }
    }

    // MARK: Item

    func answerItem(_ call: BusMessage, _ member: String, _ collection: ServedCollection, _ number: UInt32) throws(ServiceError) {
        switch member {
        case SecretServiceNames.Item.getSecret:
            try expect(call, "o")
            let sessionPath = try arguments(call) { message throws(BusFailure) in try message.readString(as: "o") }
            let session = try session(sessionPath, of: call)
            let found = try unlockedItem(collection, number)
            var secret = try found.secret(of: number)
            defer { secret.value.wipe() }
            try reply(call) { message throws(BusFailure) in try session.append(secret.value, contentType: secret.contentType, to: message) }
        case SecretServiceNames.Item.setSecret:
            try expect(call, "(oayays)")
            var secret = try readSecret(call)
            defer { secret.value.wipe() }
            let value = SecretBuffer(copying: secret.value), contentType = secret.contentType
            try announce(collection, try unlockedItem(collection, number).update(number) { item in
                item.secret = value
                if contentType == ServedCollection.defaultContentType {
                    item.attributes[ServedCollection.contentTypeAttribute] = nil
                } else {
                    item.attributes[ServedCollection.contentTypeAttribute] = contentType
                }
            })
            try reply(call) { _ throws(BusFailure) in }
        case SecretServiceNames.Item.delete:
            try expect(call, "")
            try announce(collection, try unlockedItem(collection, number).delete(number))
            try reply(call) { message throws(BusFailure) in try message.append(ObjectPath.none, as: "o") }
        default:
            throw ServiceError.unknownMethod(SecretServiceNames.Item.interface, member)
        }
    }

    /// The item's collection, unlocked and up to date, holding it still.
    private func unlockedItem(_ collection: ServedCollection, _ number: UInt32) throws(ServiceError) -> ServedCollection {
        guard !collection.isLocked else { throw ServiceError.isLocked(collection.itemPath(number)) }
        try announce(collection, try collection.sync())
        guard collection.contains(number) else { throw ServiceError.noSuchObject(collection.itemPath(number)) }
        return collection
    }

    /// Refuses labels and attributes past the limits.
    func checkText(label: String, attributes: [String: String]) throws(ServiceError) {
        guard attributes.count <= ServerLimits.attributesPerItem else {
            throw ServiceError.limit("at most \(ServerLimits.attributesPerItem) attributes an item")
        }
        let largest = ([label] + attributes.keys + attributes.values).map(\.utf8.count).max() ?? 0
        guard largest <= ServerLimits.largestText else {
            throw ServiceError.limit("labels, attribute names and values of at most \(ServerLimits.largestText) bytes")
        }
        guard attributes[ServedCollection.contentTypeAttribute] == nil else {
            throw ServiceError.invalidArguments("\(ServedCollection.contentTypeAttribute) is the secret's content type, not an attribute")
        }
    }

    // MARK: Properties

    func answerProperties(_ call: BusMessage, _ member: String, of object: ObjectPath) throws(ServiceError) {
        switch member {
        case BusNames.Properties.get:
            try expect(call, "ss")
            let (interface, name) = try arguments(call) { message throws(BusFailure) in (try message.readString(), try message.readString()) }
            guard let value = try properties(of: object, interface).first(where: { $0.name == name })?.value else {
                throw ServiceError.invalidArguments("no property \(name) of \(interface) here")
            }
            try reply(call) { message throws(BusFailure) in try message.append(variant: value) }
        case BusNames.Properties.getAll:
            try expect(call, "s")
            let interface = try arguments(call) { message throws(BusFailure) in try message.readString() }
            let values = try properties(of: object, interface)
            try reply(call) { message throws(BusFailure) in try message.append(properties: values) }
        case BusNames.Properties.set:
            try expect(call, "ssv")
            try set(call, of: object)
            try reply(call) { _ throws(BusFailure) in }
        default:
            throw ServiceError.unknownMethod(BusNames.Properties.interface, member)
        }
    }

    /// The properties of `object` in `interface` (none for another interface).
    private func properties(of object: ObjectPath, _ interface: String) throws(ServiceError) -> [(name: String, value: BusValue)] {
        switch (object, interface) {
        case (.service, SecretServiceNames.Service.interface):
            return [(SecretServiceNames.Service.collectionsProperty, .objectPaths(sortedCollections().map(\.path)))]
        case (.collection, SecretServiceNames.Collection.interface), (.alias, SecretServiceNames.Collection.interface):
            let collection = collection(of: object)!
            try announce(collection, try collection.sync())
            return [
                (SecretServiceNames.Collection.itemsProperty, .objectPaths(collection.numbers().map(collection.itemPath))),
                (SecretServiceNames.Collection.label, .string(collection.label)),
                (SecretServiceNames.Collection.lockedProperty, .bool(collection.isLocked)),
                (SecretServiceNames.Collection.created, .uint64(collection.created)),
                (SecretServiceNames.Collection.modified, .uint64(collection.modified)),
            ]
        case let (.item(name, number), SecretServiceNames.Item.interface):
            let collection = collections[name]!
            try announce(collection, try collection.sync())
            let entry = collection.entries[number]
            return [
                (SecretServiceNames.Item.locked, .bool(collection.isLocked)),
                (SecretServiceNames.Item.attributes, .dictionary(entry?.attributes.sorted { $0.key < $1.key }.map { ($0.key, $0.value) } ?? [])),
                (SecretServiceNames.Item.label, .string(entry?.label ?? "")),
                (SecretServiceNames.Item.created, .uint64(entry?.created ?? 0)),
                (SecretServiceNames.Item.modified, .uint64(entry?.modified ?? 0)),
            ]
        default:
            return []
        }
    }

    /// `Properties.Set`: a collection's label, an item's label or attributes.
    private func set(_ call: BusMessage, of object: ObjectPath) throws(ServiceError) {
        let (interface, name) = try arguments(call) { message throws(BusFailure) in (try message.readString(), try message.readString()) }
        switch (object, interface, name) {
        case (.collection, SecretServiceNames.Collection.interface, SecretServiceNames.Collection.label),
             (.alias, SecretServiceNames.Collection.interface, SecretServiceNames.Collection.label):
            let label = try arguments(call) { message throws(BusFailure) in
                try message.enterContainer("v", "s")
                return try message.readString()
            }
            try checkText(label: label, attributes: [:])
            let collection = collection(of: object)!
            collection.label = label
            emitPropertiesChanged(collection.path, SecretServiceNames.Collection.interface, [SecretServiceNames.Collection.label: .string(label)])
            emit(ObjectPath.root, SecretServiceNames.Service.interface, SecretServiceNames.Service.collectionChanged, collection.path)
        case let (.item(collectionName, number), SecretServiceNames.Item.interface, SecretServiceNames.Item.label):
            let label = try arguments(call) { message throws(BusFailure) in
                try message.enterContainer("v", "s")
                return try message.readString()
            }
            try checkText(label: label, attributes: [:])
            let collection = try unlockedItem(collections[collectionName]!, number)
            try announce(collection, try collection.update(number) { $0.label = label })
        case let (.item(collectionName, number), SecretServiceNames.Item.interface, SecretServiceNames.Item.attributes):
            let attributes = try arguments(call) { message throws(BusFailure) in
                try message.enterContainer("v", "a{ss}")
                return try message.readDictionary()
            }
            try checkText(label: "", attributes: attributes)
            let collection = try unlockedItem(collections[collectionName]!, number)
            try announce(collection, try collection.update(number) { item in
                let contentType = item.attributes[ServedCollection.contentTypeAttribute]
                item.attributes = attributes
                item.attributes[ServedCollection.contentTypeAttribute] = contentType
            })
        default:
            throw ServiceError(name: BusNames.BusError.propertyReadOnly, message: "\(interface).\(name) cannot be set here")
        }
    }
}
