// SPDX-License-Identifier: MIT
import KeychainKit

#if canImport(Glibc)
import Glibc
#endif

/// A collection as the daemon serves it: its store, and a mirror of its
/// items' public parts (attributes, label, times; never secrets) that
/// gives each item a stable number — its object path — and answers
/// searches from an index of attribute values, not a walk.
///
/// The mirror follows the store: when the store's version changed (our
/// write, or another program's file), items are matched to the numbers
/// they had — unchanged, then by creation time and attributes, then by
/// creation time and label — and the rest are new or gone. Those changes
/// are what the collection's signals announce.
final class ServedCollection {

    /// The collection's object path element.
    let name: String
    var label: String
    let created: UInt64
    private(set) var modified: UInt64
    let store: CollectionStore

    /// What the mirror knows of one item.
    struct Entry {
        var index: Int
        /// Its attributes, without the content type.
        var attributes: [String: String]
        var label: String
        var created: UInt64
        var modified: UInt64
        var contentType: String
        /// A digest of the secret (this process's hash: it tells a change
        /// and nothing else).
        var secretDigest: Int
    }

    /// A change of the items, for the collection's signals.
    enum Change: Equatable {
        case created(UInt32)
        case deleted(UInt32)
        case changed(UInt32)
    }

    /// The attribute oo7 keeps an item's content type in (the keyring
    /// file has no field for it), hidden from `Attributes`.
    static let contentTypeAttribute = "xdg:content-type"
    static let defaultContentType = "text/plain"

    private(set) var entries: [UInt32: Entry] = [:]
    private var numberOfIndex: [UInt32] = []
    private var byAttribute: [String: Set<UInt32>] = [:]
    private var generation: UInt64?
    private var nextNumber: UInt32 = 1
    /// Whether the mirror was ever filled (a store locked from the start
    /// shows numbered items with nothing known of them).
    private var known = false

    init(name: String, label: String, store: CollectionStore, created: UInt64) {
        self.name = name
        self.label = label
        self.store = store
        self.created = created
        self.modified = created
    }

    var path: String { ObjectPath.collection(name).path }

    func itemPath(_ number: UInt32) -> String { ObjectPath.item(collection: name, number: number).path }

    var isLocked: Bool { store.isLocked }

    /// Every item's number, in the store's order.
    func numbers() -> [UInt32] {
        if !known && isLocked { return (0..<UInt32(clamping: store.lockedItemCount())).map { $0 + 1 } }
        return numberOfIndex
    }

    /// Whether `number` names an item.
    func contains(_ number: UInt32) -> Bool {
        if !known && isLocked { return number >= 1 && number <= store.lockedItemCount() }
        return entries[number] != nil
    }

    /// The numbers of the items holding every one of `attributes`; a
    /// locked collection whose items were never read answers all of them.
    func search(_ attributes: [String: String]) -> [UInt32] {
        if !known && isLocked { return numbers() }
        guard let first = attributes.first else { return numberOfIndex }
        var found = byAttribute[Self.indexKey(first.key, first.value)] ?? []
        for (name, value) in attributes.dropFirst() where !found.isEmpty {
            found.formIntersection(byAttribute[Self.indexKey(name, value)] ?? [])
        }
        return found.sorted()
    }

    // MARK: Following the store

    /// Brings the mirror to the store's version; the changes it found.
    func sync() throws(ServiceError) -> [Change] {
        guard !isLocked else { return [] }
        return try store.read { items, version in
            if version == generation { return [] }
            generation = version
            return reconcile(items)
        }
    }

    private func reconcile(_ items: [KeyringFileItem?]) -> [Change] {
        known = true
        var fresh: [(index: Int, entry: Entry)] = []
        for (index, item) in items.enumerated() {
            guard let item else { continue }
            var attributes = item.attributes
            let contentType = attributes.removeValue(forKey: Self.contentTypeAttribute) ?? Self.defaultContentType
            var hasher = Hasher()
            hasher.combine(item.secret)
            fresh.append((index, Entry(index: index, attributes: attributes, label: item.label, created: item.created,
                                       modified: item.modified, contentType: contentType, secretDigest: hasher.finalize())))
        }
        var unmatchedOld = entries
        var assigned = [UInt32?](repeating: nil, count: fresh.count)
        var changes: [Change] = []
        // Unchanged, then changed in place (same creation and attributes,
        // or same creation and label), matched in number order.
        let passes: [(Entry, Entry) -> Bool] = [
            { $0.created == $1.created && $0.attributes == $1.attributes && $0.label == $1.label
                && $0.modified == $1.modified && $0.secretDigest == $1.secretDigest && $0.contentType == $1.contentType },
            { $0.created == $1.created && $0.attributes == $1.attributes },
            { $0.created == $1.created && $0.label == $1.label },
        ]
        for (pass, same) in passes.enumerated() {
            guard !unmatchedOld.isEmpty else { break }
            var candidates: [String: [UInt32]] = [:]
            for number in unmatchedOld.keys.sorted() {
                candidates[Self.passKey(pass, unmatchedOld[number]!), default: []].append(number)
            }
            for position in fresh.indices where assigned[position] == nil {
                let key = Self.passKey(pass, fresh[position].entry)
                guard var numbers = candidates[key],
                      let found = numbers.firstIndex(where: { same(unmatchedOld[$0]!, fresh[position].entry) }) else { continue }
                let number = numbers.remove(at: found)
                candidates[key] = numbers
                assigned[position] = number
                unmatchedOld[number] = nil
                if pass > 0 { changes.append(.changed(number)) }
            }
        }
        for number in unmatchedOld.keys.sorted() { changes.append(.deleted(number)) }
        var newEntries: [UInt32: Entry] = [:]
        numberOfIndex = []
        byAttribute = [:]
        for position in fresh.indices {
            let number: UInt32
            if let known = assigned[position] {
                number = known
            } else {
                number = nextNumber
                nextNumber += 1
                changes.append(.created(number))
            }
            let entry = fresh[position].entry
            newEntries[number] = entry
            numberOfIndex.append(number)
            for (name, value) in entry.attributes { byAttribute[Self.indexKey(name, value), default: []].insert(number) }
        }
        entries = newEntries
        if !changes.isEmpty { modified = Self.now }
        return changes
    }

    /// Where in `items` the item the mirror knows as `entry` is now: at
    /// its index if that item is still it, else found by creation and
    /// attributes (another program changed the file meanwhile).
    private static func locate(_ entry: Entry, in items: [KeyringFileItem?]) -> Int? {
        func isIt(_ item: KeyringFileItem?) -> Bool {
            guard let item else { return false }
            var attributes = item.attributes
            attributes[contentTypeAttribute] = nil
            return item.created == entry.created && attributes == entry.attributes
        }
        if entry.index < items.count && isIt(items[entry.index]) { return entry.index }
        return items.firstIndex(where: isIt)
    }

    // MARK: Reading and changing items

    /// The secret of item `number` and its content type.
    func secret(of number: UInt32) throws(ServiceError) -> (value: [UInt8], contentType: String) {
        guard let entry = entries[number] else { throw ServiceError.noSuchObject(itemPath(number)) }
        let value: [UInt8]? = try store.read { items, _ in Self.locate(entry, in: items).map { items[$0]!.secret } }
        guard let value else { throw ServiceError.noSuchObject(itemPath(number)) }
        return (value, entry.contentType)
    }

    /// Creates an item, or with `replace` gives the first item holding
    /// every one of these attributes the new attributes, label, secret and
    /// content type, keeping its path and creation time (gnome-keyring's
    /// rule, which secret-tool and libsecret's clients were written
    /// against; oo7-daemon replaces only an item of exactly these
    /// attributes, at a new path); its number and the changes made.
    func createItem(
        attributes: [String: String], label: String, secret: [UInt8], contentType: String, replace: Bool
    ) throws(ServiceError) -> (number: UInt32, changes: [Change]) {
        var stored = attributes
        if contentType != Self.defaultContentType { stored[Self.contentTypeAttribute] = contentType }
        var written: (index: Int, created: UInt64)?
        let now = Self.now
        try store.edit { items in
            let existing = replace ? items.firstIndex { item in
                guard let item else { return false }
                return attributes.allSatisfy { item.attributes[$0.key] == $0.value }
            } : nil
            if let existing, let old = items[existing] {
                written = (existing, old.created)
                return [.replace(existing, KeyringFileItem(attributes: stored, label: label, created: old.created, modified: now, secret: secret))]
            }
            written = (items.count, now)
            return [.append(KeyringFileItem(attributes: stored, label: label, created: now, modified: now, secret: secret))]
        }
        let changes = try sync()
        guard let written, let number = numberOfIndexIfPresent(written.index) else {
            throw ServiceError(name: "org.freedesktop.DBus.Error.Failed", message: "the item was written but could not be found again")
        }
        return (number, changes)
    }

    /// Changes item `number` with `change`; the changes made.
    func update(_ number: UInt32, _ change: @escaping (inout KeyringFileItem) -> Void) throws(ServiceError) -> [Change] {
        guard let entry = entries[number] else { throw ServiceError.noSuchObject(itemPath(number)) }
        var found = false
        try store.edit { items in
            guard let index = Self.locate(entry, in: items), var item = items[index] else { return [] }
            found = true
            change(&item)
            item.modified = Self.now
            return [.replace(index, item)]
        }
        guard found else { throw ServiceError.noSuchObject(itemPath(number)) }
        return try sync()
    }

    /// Deletes item `number`; the changes made.
    func delete(_ number: UInt32) throws(ServiceError) -> [Change] {
        guard let entry = entries[number] else { throw ServiceError.noSuchObject(itemPath(number)) }
        try store.edit { items in Self.locate(entry, in: items).map { [.remove([$0])] } ?? [] }
        return try sync()
    }

    /// Locks the store; the mirror keeps what it knows of the items
    /// (their attributes stay searchable, as in gnome-keyring), never a
    /// secret.
    func lock() {
        store.lock()
        generation = nil
    }

    /// Unlocks with `master`; the changes the fresh read found.
    func unlock(master: [UInt8]) throws(ServiceError) -> [Change] {
        try store.unlock(master: master)
        return try sync()
    }

    /// The number of the item at `index` of the store.
    private func numberOfIndexIfPresent(_ index: Int) -> UInt32? {
        entries.first { $0.value.index == index }?.key
    }

    private static func indexKey(_ name: String, _ value: String) -> String { name + "\u{0}" + value }

    private static func passKey(_ pass: Int, _ entry: Entry) -> String {
        pass == 2 ? "\(entry.created)\u{0}\(entry.label)" : "\(entry.created)\u{0}" + entry.attributes.sorted { $0.key < $1.key }
            .map { "\($0.key)\u{0}\($0.value)" }.joined(separator: "\u{1}")
    }

    static var now: UInt64 { UInt64(max(0, time(nil))) }
}
