// SPDX-License-Identifier: MIT
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
            state.attributeItems.values.map(\.item).filter { $0.includes(attributes) }.sorted(by: AttributeItem.newestFirst)
        }
    }

    public func secret(of item: AttributeItem) throws(KeychainError) -> [UInt8]? {
        try access { state throws(KeychainError) in state.attributeItems[item.id]?.secret }
    }

    @discardableResult
    public func createItem(attributes: [String: String], label: String, value: [UInt8]) throws(KeychainError) -> String {
        try validate(attributes, label: label)
        return try access { state throws(KeychainError) in
            // As the Secret Service's replace: an item whose attributes
            // include these is replaced.
            if let replaced = state.attributeItems.values.first(where: { $0.item.includes(attributes) }) {
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

    static var now: UInt64 { UInt64(max(0, time(nil))) }
}
