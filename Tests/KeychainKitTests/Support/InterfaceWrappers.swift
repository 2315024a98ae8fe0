// SPDX-License-Identifier: MIT
import KeychainKit

/// The storage primitives, by name, as the wrappers below record them.
enum StorageCall: Equatable, Sendable {
    case read, update, insert, delete, list
}

/// Forwards to a real backend and records every storage call.
final class CountingInterface: KeychainInterfaceProtocol, Sendable {

    let base: any KeychainInterfaceProtocol
    private let log = Protected<[StorageCall]>([])

    init(_ base: any KeychainInterfaceProtocol) {
        self.base = base
    }

    /// The calls since the last `reset()`.
    var calls: [StorageCall] { log.withLock { $0 } }

    func reset() { log.withLock { $0 = [] } }

    private func record(_ call: StorageCall) { log.withLock { $0.append(call) } }

    func readItem(_ key: KeychainAttributes) throws(KeychainError) -> [UInt8]? {
        record(.read)
        return try base.readItem(key)
    }

    func updateItem(_ key: KeychainAttributes, value: [UInt8]) throws(KeychainError) {
        record(.update)
        try base.updateItem(key, value: value)
    }

    func insertItem(_ key: KeychainAttributes, value: [UInt8]) throws(KeychainError) {
        record(.insert)
        try base.insertItem(key, value: value)
    }

    func deleteItem(_ key: KeychainAttributes) throws(KeychainError) {
        record(.delete)
        try base.deleteItem(key)
    }

    func accounts(inService service: String) throws(KeychainError) -> [String] {
        record(.list)
        return try base.accounts(inService: service)
    }

    func itemInfo(inService service: String) throws(KeychainError) -> [KeychainItemInfo] {
        try base.itemInfo(inService: service)
    }

    func setLabel(_ label: String, forKey key: KeychainAttributes) throws(KeychainError) {
        try base.setLabel(label, forKey: key)
    }

    func makeOutsideChangeSource() -> (any OutsideChangeSource)? {
        base.makeOutsideChangeSource()
    }
}

/// Forwards to a real backend, but can fail chosen calls, and can let
/// "another writer" insert a value just before our insert.
final class ScriptedInterface: KeychainInterfaceProtocol, Sendable {

    let base: any KeychainInterfaceProtocol

    private struct Script {
        var failures: [StorageCall: KeychainError] = [:]
        var competingInsert: [UInt8]?
    }

    private let script = Protected(Script())

    init(_ base: any KeychainInterfaceProtocol) {
        self.base = base
    }

    /// Makes every call of the kind `call` throw `error` (or succeed again, for `nil`).
    func fail(_ call: StorageCall, with error: KeychainError?) {
        script.withLock { $0.failures[call] = error }
    }

    /// Before our next insert, another writer stores `value` under the same
    /// key, and that insert answers as a backend that refuses to replace
    /// does: ``KeychainError/duplicateItem``.
    func competeOnNextInsert(with value: [UInt8]) {
        script.withLock { $0.competingInsert = value }
    }

    private func failure(for call: StorageCall) -> KeychainError? {
        script.withLock { $0.failures[call] }
    }

    func readItem(_ key: KeychainAttributes) throws(KeychainError) -> [UInt8]? {
        if let error = failure(for: .read) { throw error }
        return try base.readItem(key)
    }

    func updateItem(_ key: KeychainAttributes, value: [UInt8]) throws(KeychainError) {
        if let error = failure(for: .update) { throw error }
        try base.updateItem(key, value: value)
    }

    func insertItem(_ key: KeychainAttributes, value: [UInt8]) throws(KeychainError) {
        if let error = failure(for: .insert) { throw error }
        let competing: [UInt8]? = script.withLock { script in
            defer { script.competingInsert = nil }
            return script.competingInsert
        }
        if let competing {
            try base.insertItem(key, value: competing)
            throw .duplicateItem
        }
        try base.insertItem(key, value: value)
    }

    func deleteItem(_ key: KeychainAttributes) throws(KeychainError) {
        if let error = failure(for: .delete) { throw error }
        try base.deleteItem(key)
    }

    func accounts(inService service: String) throws(KeychainError) -> [String] {
        if let error = failure(for: .list) { throw error }
        return try base.accounts(inService: service)
    }

    func makeOutsideChangeSource() -> (any OutsideChangeSource)? {
        base.makeOutsideChangeSource()
    }
}
