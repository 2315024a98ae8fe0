/// What the last search found for a key: its item's object path, or that it
/// has none, each tagged with the Secret Service's change count at the
/// time. An entry is used only while that count is unchanged, that is while
/// the service announced no item, collection or owner change since, so a
/// read through the cache is as fresh as a search.
final class ItemPathCache: Sendable {

    enum Entry: Sendable, Equatable {
        case item(path: String)
        case absent
    }

    /// Entries kept at most; beyond, the cache starts over.
    static let capacity = 4096

    private let entries = Locked<[KeychainAttributes: (entry: Entry, changes: UInt32)]>([:])

    /// The entry of `key`, if recorded while the change count was `changes`.
    func lookup(_ key: KeychainAttributes, changes: UInt32) -> Entry? {
        entries.withLock { entries in
            guard let found = entries[key], found.changes == changes else { return nil }
            return found.entry
        }
    }

    /// Records `entry` for `key`, found by a search that began at `changes`.
    func store(_ entry: Entry, for key: KeychainAttributes, changes: UInt32) {
        entries.withLock { entries in
            if entries.count >= Self.capacity { entries.removeAll(keepingCapacity: true) }
            entries[key] = (entry, changes)
        }
    }

    func forget(_ key: KeychainAttributes) {
        _ = entries.withLock { $0.removeValue(forKey: key) }
    }
}
