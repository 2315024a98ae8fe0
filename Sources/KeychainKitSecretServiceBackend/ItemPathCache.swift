// SPDX-License-Identifier: MIT
import KeychainKitCore

/// What searches found for keys — each key's item path, or that it has
/// none — kept current by the service's change signals.
///
/// A change signal names an item path only:
/// - `ItemDeleted(P)`: the key whose item was P is forgotten.
/// - `ItemCreated(P)` of a path whose key is known (our own create, a
///   replace in place): that key is forgotten unless P is its item already.
///   Of an unknown path: the item may belong to any key (a new item, or a
///   duplicate another tool made for a key we know), so nothing may be
///   answered until the path is *resolved* — its attributes read — or the
///   cache starts over.
/// - `ItemChanged(P)`: P's attributes may now name another key: its key is
///   forgotten and P is unresolved.
/// - Anything else (collections created, deleted, locked or unlocked;
///   the service's owner): start over.
///
/// Bounded: past ``capacity`` keys it starts over, so reading millions of
/// distinct keys costs constant memory. Not thread-safe: it belongs to one
/// connection, used under that connection's lock.
struct ItemPathCache {

    enum Entry: Equatable {
        case item(path: String)
        case absent
    }

    /// A change the service announced.
    enum Change: Equatable {
        case itemCreated(path: String)
        case itemDeleted(path: String)
        case itemChanged(path: String)
        case everything
    }

    /// Keys kept at most.
    static let capacity = 4096

    /// Unresolved created paths worth resolving; beyond, start over.
    static let resolvableCount = 8

    private var entries: [KeychainAttributes: Entry] = [:]
    private var keyOfPath: [String: KeychainAttributes] = [:]

    /// Created or changed paths whose key is unknown.
    private(set) var unresolved: Set<String> = []

    /// The locked collections that hide their items from searches, as last
    /// found; `nil` when not known. Any collection signal (the services
    /// announce each lock and unlock) makes it unknown.
    var hiddenCollections: [String]?

    /// The service's collections, as last listed; `nil` when not known.
    /// Any collection signal makes it unknown.
    var collections: [String]?

    /// The entry of `key`, when it can be trusted: no unresolved path.
    func lookup(_ key: KeychainAttributes) -> Entry? {
        unresolved.isEmpty ? entries[key] : nil
    }

    /// Whether `key` has an entry, trusted or waiting for resolution.
    func hasEntry(_ key: KeychainAttributes) -> Bool {
        entries[key] != nil
    }

    /// Records what a search for `key` found: its readable items (the
    /// chosen one first) or none.
    mutating func store(_ key: KeychainAttributes, chosen: String?, all paths: [String]) {
        if entries.count >= Self.capacity && entries[key] == nil || keyOfPath.count >= 2 * Self.capacity {
            startOver()
        }
        entries[key] = chosen.map { .item(path: $0) } ?? .absent
        for path in paths {
            keyOfPath[path] = key
            unresolved.remove(path)
        }
    }

    mutating func forget(_ key: KeychainAttributes) {
        entries.removeValue(forKey: key)
    }

    /// Records that the unresolved `path` belongs to `key` (`nil`: the item
    /// is gone, or carries no key of ours).
    mutating func resolve(_ path: String, as key: KeychainAttributes?) {
        unresolved.remove(path)
        guard let key else { return }
        keyOfPath[path] = key
        if entries[key] != .item(path: path) { entries.removeValue(forKey: key) }
    }

    /// Applies a change the service announced.
    mutating func apply(_ change: Change) {
        switch change {
        case let .itemCreated(path):
            if let key = keyOfPath[path] {
                if entries[key] != .item(path: path) { entries.removeValue(forKey: key) }
            } else {
                markUnresolved(path)
            }
        case let .itemDeleted(path):
            unresolved.remove(path)
            if let key = keyOfPath.removeValue(forKey: path), entries[key] == .item(path: path) {
                entries.removeValue(forKey: key)
            }
        case let .itemChanged(path):
            if let key = keyOfPath.removeValue(forKey: path) { entries.removeValue(forKey: key) }
            markUnresolved(path)
        case .everything:
            startOver()
        }
    }

    private mutating func markUnresolved(_ path: String) {
        unresolved.insert(path)
        if unresolved.count > Self.resolvableCount { startOver() }
    }

    private mutating func startOver() {
        entries.removeAll(keepingCapacity: true)
        keyOfPath.removeAll(keepingCapacity: true)
        unresolved.removeAll()
        hiddenCollections = nil
        collections = nil
    }
}
