#if canImport(Glibc)
import Glibc
#endif

/// Items addressed by attributes, in memory: the semantics of the Secret
/// Service's (``SecretServiceKeychainInterface``'s) for tests and programs
/// that need no persistence, shared by interfaces sharing items. They are
/// apart from the keyed items, and nothing is ever locked (but
/// ``InMemoryKeychainInterface/simulateFailure(_:)`` applies).
extension InMemoryKeychainInterface: AttributeItemStore {

    public func items(matching attributes: [String: String]) throws(KeychainError) -> [AttributeItem] {
        try validate(attributes)
        return try access { state throws(KeychainError) in
            state.attributeItems.values.map(\.item)
                .filter { Self.includes($0.attributes, attributes) }
                .sorted { a, b in a.modified != b.modified ? a.modified > b.modified : Self.created(b.id, before: a.id) }
        }
    }

    public func secret(of item: AttributeItem) throws(KeychainError) -> [UInt8]? {
        try access { state throws(KeychainError) in state.attributeItems[item.id]?.secret }
    }

    @discardableResult
    public func createItem(attributes: [String: String], label: String, value: [UInt8]) throws(KeychainError) -> String {
        try validate(attributes)
        guard !label.utf8.contains(0) else { throw .invalidArgument }
        return try access { state throws(KeychainError) in
            // As the Secret Service's replace: an item whose attributes
            // include these is replaced.
            if let replaced = state.attributeItems.values.first(where: { Self.includes($0.item.attributes, attributes) }) {
                state.attributeItems[replaced.item.id]?.secret.wipe()
                state.attributeItems[replaced.item.id] = nil
            }
            let id = "memory/\(state.nextAttributeItem)"
            state.nextAttributeItem += 1
            let now = Self.now
            let item = AttributeItem(id: id, attributes: attributes, label: label, created: now, modified: now, isLocked: false)
            state.attributeItems[id] = (item, value)
            return id
        }
    }

    public func setSecret(_ value: [UInt8], of item: AttributeItem) throws(KeychainError) {
        try access { state throws(KeychainError) in
            guard let stored = state.attributeItems[item.id] else { throw .itemNotFound }
            state.attributeItems[item.id]?.secret.wipe()
            let changed = AttributeItem(
                id: item.id, attributes: stored.item.attributes, label: stored.item.label, created: stored.item.created,
                modified: Self.now, isLocked: false)
            state.attributeItems[item.id] = (changed, value)
        }
    }

    public func delete(_ item: AttributeItem) throws(KeychainError) {
        try access { state throws(KeychainError) in
            state.attributeItems[item.id]?.secret.wipe()
            state.attributeItems[item.id] = nil
        }
    }

    /// Whether `attributes` hold every one of `wanted` (values by bytes).
    private static func includes(_ attributes: [String: String], _ wanted: [String: String]) -> Bool {
        wanted.allSatisfy { name, value in attributes[name].map { $0.utf8.elementsEqual(value.utf8) } ?? false }
    }

    /// Creation order of two ids ("memory/<n>").
    private static func created(_ a: String, before b: String) -> Bool {
        a.utf8.count != b.utf8.count ? a.utf8.count < b.utf8.count : a.utf8.lexicographicallyPrecedes(b.utf8)
    }

    static var now: UInt64 { UInt64(max(0, time(nil))) }
}
