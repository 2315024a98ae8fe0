/// What the last search found for each key: its item's object path, or
/// that it has none, each tagged with the connection's change count
/// (``BusConnection/changes``) at the time the search was sent. An entry
/// answers only while that count is unchanged, that is while the service
/// announced no item, collection or owner change since.
///
/// Bounded: at ``capacity`` entries it starts over, so reading millions of
/// distinct keys costs constant memory. Not thread-safe: it belongs to one
/// connection, used under that connection's lock.
struct ItemPathCache {

    enum Entry: Equatable {
        case item(path: String)
        case absent
    }

    /// Entries kept at most.
    static let capacity = 4096

    private var entries: [KeychainAttributes: (entry: Entry, changes: UInt64)] = [:]

    /// The entry of `key`, if recorded while the change count was `changes`.
    func lookup(_ key: KeychainAttributes, changes: UInt64) -> Entry? {
        guard let found = entries[key], found.changes == changes else { return nil }
        return found.entry
    }

    /// Records `entry` for `key`, found by a search sent at `changes`.
    mutating func store(_ entry: Entry, for key: KeychainAttributes, changes: UInt64) {
        if entries.count >= Self.capacity && entries[key] == nil { entries.removeAll(keepingCapacity: true) }
        entries[key] = (entry, changes)
    }

    mutating func forget(_ key: KeychainAttributes) {
        entries.removeValue(forKey: key)
    }
}
