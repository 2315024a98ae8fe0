// SPDX-License-Identifier: MIT
import KeychainKitBus
import KeychainKitFileStore
import KeychainKitSystem
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

        /// What the mirror knows of `item`, at `index` of the store.
        init(_ item: KeyringFileItem, at index: Int) {
            self.index = index
            var attributes = item.attributes
            contentType = attributes.removeValue(forKey: ServedCollection.contentTypeAttribute) ?? ServedCollection.defaultContentType
            self.attributes = attributes
            label = item.label
            created = item.created
            modified = item.modified
            var hasher = Hasher()
            item.secret.withUnsafeBytes { hasher.combine(bytes: $0) }
            secretDigest = hasher.finalize()
        }
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
    /// The number of the item at each index of the store (`nil`: an item
    /// another master sealed, not served).
    private var numberAtIndex: [UInt32?] = []
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
        return numberAtIndex.compactMap { $0 }
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
        guard let first = attributes.first else { return numbers() }
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
        return try store.read(checkingForChanges: true) { items, version in
            if version == generation { return [] }
            generation = version
            return reconcile(items)
        }
    }

    private func reconcile(_ items: [KeyringFileItem?]) -> [Change] {
        known = true
        var fresh: [(index: Int, entry: Entry)] = []
        for (index, item) in items.enumerated() {
            if let item { fresh.append((index, Entry(item, at: index))) }
        }
        var unmatchedOld = entries
        var assigned = [UInt32?](repeating: nil, count: fresh.count)
        var changes: [Change] = []
        // Unchanged (most items, after a write of ours), then changed in
        // place: the same creation and attributes, or the same creation
        // and label. Each pass looks candidates up by a hash of what it
        // compares; ties go to the lowest number.
        for pass in MatchPass.allCases {
            guard !unmatchedOld.isEmpty else { break }
            var candidates: [MatchKey: [UInt32]] = [:]
            for number in unmatchedOld.keys.sorted() {
                candidates[pass.key(unmatchedOld[number]!), default: []].append(number)
            }
            for position in fresh.indices where assigned[position] == nil {
                let key = pass.key(fresh[position].entry)
                guard var numbers = candidates[key],
                      let found = numbers.firstIndex(where: { pass.same(unmatchedOld[$0]!, fresh[position].entry) })
                else { continue }
                let number = numbers.remove(at: found)
                candidates[key] = numbers
                assigned[position] = number
                unmatchedOld[number] = nil
                if pass != .unchanged { changes.append(.changed(number)) }
            }
        }
        for number in unmatchedOld.keys.sorted() { changes.append(.deleted(number)) }
        var newEntries: [UInt32: Entry] = [:]
        numberAtIndex = [UInt32?](repeating: nil, count: items.count)
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
            numberAtIndex[entry.index] = number
            index(entry.attributes, of: number)
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

    /// The secret of item `number` and its content type, from the version
    /// the mirror follows: callers ``sync()`` first, in the same call.
    func secret(of number: UInt32) throws(ServiceError) -> (value: [UInt8], contentType: String) {
        guard let entry = entries[number] else { throw ServiceError.noSuchObject(itemPath(number)) }
        let value: [UInt8]? = try store.read(checkingForChanges: false) { items, _ in Self.locate(entry, in: items).map { items[$0]!.secret.bytes } }
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
        var writtenIndex = 0
        let now = Self.now
        let kept = SecretBuffer(copying: secret)
        let changes = try edit { items in
            let existing = replace ? items.firstIndex { item in
                guard let item else { return false }
                return attributes.allSatisfy { item.attributes[$0.key] == $0.value }
            } : nil
            if let existing, let old = items[existing] {
                writtenIndex = existing
                return [.replace(existing, KeyringFileItem(attributes: stored, label: label, created: old.created, modified: now, secret: kept))]
            }
            writtenIndex = items.count
            return [.append(KeyringFileItem(attributes: stored, label: label, created: now, modified: now, secret: kept))]
        }
        guard writtenIndex < numberAtIndex.count, let number = numberAtIndex[writtenIndex] else {
            throw ServiceError(name: BusNames.BusError.failed, message: "the item was written but could not be found again")
        }
        return (number, changes)
    }

    /// Changes item `number` with `change`; the changes made.
    func update(_ number: UInt32, _ change: @escaping (inout KeyringFileItem) -> Void) throws(ServiceError) -> [Change] {
        guard let entry = entries[number] else { throw ServiceError.noSuchObject(itemPath(number)) }
        var found = false
        let changes = try edit { items in
            guard let index = Self.locate(entry, in: items), var item = items[index] else { return [] }
            found = true
            change(&item)
            item.modified = Self.now
            return [.replace(index, item)]
        }
        guard found else { throw ServiceError.noSuchObject(itemPath(number)) }
        return changes
    }

    /// Deletes item `number`; the changes made.
    func delete(_ number: UInt32) throws(ServiceError) -> [Change] {
        guard let entry = entries[number] else { throw ServiceError.noSuchObject(itemPath(number)) }
        return try edit { items in Self.locate(entry, in: items).map { [.remove([$0])] } ?? [] }
    }

    /// Makes the edits `body` chooses in the store, and brings the mirror
    /// along: by the edits themselves when the store's version moved by
    /// this write alone (no hashing of every item: a write costs the
    /// file's, not the mirror's, size), else by reading it all again.
    private func edit(_ body: @escaping ([KeyringFileItem?]) -> [FileKeychainInterface.ItemEdit]) throws(ServiceError) -> [Change] {
        var changes = try sync()
        let before = generation
        var made: [FileKeychainInterface.ItemEdit] = []
        guard try store.edit({ items in
            made = body(items)
            return made
        }) else { return changes }
        let after: UInt64 = try store.read(checkingForChanges: true) { _, version in version }
        guard let before, after == before &+ 1 else { return changes + (try sync()) }
        generation = after
        changes += apply(made)
        modified = Self.now
        return changes
    }

    /// The mirror after `edits` of the version it holds, as the store
    /// makes them: replaces and appends in order, then the removals.
    private func apply(_ edits: [FileKeychainInterface.ItemEdit]) -> [Change] {
        var changes: [Change] = []
        var removed: Set<Int> = []
        for edit in edits {
            switch edit {
            case let .append(item):
                let number = nextNumber
                nextNumber += 1
                numberAtIndex.append(number)
                entries[number] = Entry(item, at: numberAtIndex.count - 1)
                index(entries[number]!.attributes, of: number)
                changes.append(.created(number))
            case let .replace(at, item):
                guard let number = numberAtIndex[at] else { continue }
                unindex(entries[number]!.attributes, of: number)
                entries[number] = Entry(item, at: at)
                index(entries[number]!.attributes, of: number)
                changes.append(.changed(number))
            case let .remove(indices):
                removed.formUnion(indices)
            }
        }
        for at in removed.sorted(by: >) {
            if let number = numberAtIndex[at], let entry = entries.removeValue(forKey: number) {
                unindex(entry.attributes, of: number)
                changes.append(.deleted(number))
            }
            numberAtIndex.remove(at: at)
        }
        if !removed.isEmpty {
            for (at, number) in numberAtIndex.enumerated() { if let number { entries[number]!.index = at } }
        }
        return changes
    }

    private func index(_ attributes: [String: String], of number: UInt32) {
        for (name, value) in attributes { byAttribute[Self.indexKey(name, value), default: []].insert(number) }
    }

    private func unindex(_ attributes: [String: String], of number: UInt32) {
        for (name, value) in attributes { byAttribute[Self.indexKey(name, value)]?.remove(number) }
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

    private static func indexKey(_ name: String, _ value: String) -> String { name + "\u{0}" + value }

    /// How the mirror matches an item read to one it knew.
    private enum MatchPass: CaseIterable {
        case unchanged, sameAttributes, sameLabel

        func key(_ entry: Entry) -> MatchKey {
            switch self {
            case .unchanged: MatchKey(created: entry.created, digest: entry.secretDigest, label: entry.label, attributes: nil)
            case .sameAttributes: MatchKey(created: entry.created, digest: 0, label: nil, attributes: entry.attributes)
            case .sameLabel: MatchKey(created: entry.created, digest: 0, label: entry.label, attributes: nil)
            }
        }

        func same(_ a: Entry, _ b: Entry) -> Bool {
            switch self {
            case .unchanged:
                a.created == b.created && a.attributes == b.attributes && a.label == b.label && a.modified == b.modified
                    && a.secretDigest == b.secretDigest && a.contentType == b.contentType
            case .sameAttributes: a.created == b.created && a.attributes == b.attributes
            case .sameLabel: a.created == b.created && a.label == b.label
            }
        }
    }

    /// What a match pass looks candidates up by.
    private struct MatchKey: Hashable {
        let created: UInt64
        let digest: Int
        let label: String?
        let attributes: [String: String]?
    }

    static var now: UInt64 { UInt64(max(0, time(nil))) }
}
