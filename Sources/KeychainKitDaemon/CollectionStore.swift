// SPDX-License-Identifier: MIT
import KeychainKitCore
import KeychainKitFileStore

/// Where a collection's items live: a keyring file (``FileCollectionStore``)
/// or memory (``MemoryCollectionStore``, the `session` collection).
protocol CollectionStore: AnyObject {
    /// Whether the items cannot be read until an unlock.
    var isLocked: Bool { get }
    /// How many items a locked store holds (their contents unknown).
    func lockedItemCount() -> Int
    /// Runs `body` on the items (`nil`: an item another master sealed)
    /// and their version's number. Only when unlocked. `checkingForChanges`
    /// false: the version read last, for a call that has read it already.
    func read<R>(checkingForChanges: Bool, _ body: ([KeyringFileItem?], UInt64) -> R) throws(ServiceError) -> R
    /// Makes the edits `body` chooses on the newest items; `false` when
    /// it chose none. Only when unlocked.
    @discardableResult
    func edit(_ body: ([KeyringFileItem?]) -> [FileKeychainInterface.ItemEdit]) throws(ServiceError) -> Bool
    /// Forgets the key and every secret held.
    func lock()
    /// Unlocks with `master`; ``ServiceError/denied(_:)`` when it opens
    /// none of the items.
    func unlock(master: [UInt8]) throws(ServiceError)
}

/// A collection in a keyring file, through the file store (its lock, its
/// atomic durable writes, its reading of other programs' changes).
final class FileCollectionStore: CollectionStore {
    let path: String
    private var file: FileKeychainInterface?

    /// Opens the file at `path` with `master` (a source the file store
    /// knows); a store with no master starts locked.
    init(path: String, master: FileKeychainMaster?) throws(ServiceError) {
        self.path = path
        guard let master else { return }
        do throws(KeychainError) {
            file = try FileKeychainInterface(path: path, master: master)
        } catch {
            throw ServiceError.store(error, detail: FileKeychainInterface.openFailureDetail)
        }
    }

    var isLocked: Bool { file == nil }

    func lockedItemCount() -> Int {
        (try? FileKeychainInterface.sealedItemCount(at: path)) ?? 0
    }

    func read<R>(checkingForChanges: Bool, _ body: ([KeyringFileItem?], UInt64) -> R) throws(ServiceError) -> R {
        guard let file else { throw ServiceError.isLocked(path) }
        do throws(KeychainError) { return try file.readItems(checkingForChanges: checkingForChanges, body) } catch {
            throw ServiceError.store(error, detail: file.failureDetail(for: error))
        }
    }

    func edit(_ body: ([KeyringFileItem?]) -> [FileKeychainInterface.ItemEdit]) throws(ServiceError) -> Bool {
        guard let file else { throw ServiceError.isLocked(path) }
        do throws(KeychainError) { return try file.editItems(body) } catch {
            throw ServiceError.store(error, detail: file.failureDetail(for: error))
        }
    }

    /// Writes the file now, so that the collection outlives a restart
    /// before its first item.
    func writeFile() throws(ServiceError) {
        guard let file else { throw ServiceError.isLocked(path) }
        do throws(KeychainError) { try file.writeFile() } catch {
            throw ServiceError.store(error, detail: file.failureDetail(for: error))
        }
    }

    func lock() {
        file = nil  // its deinit wipes what it held
    }

    /// Seals the file again under `master`, once `original` proved to be
    /// its password (the store is left unlocked).
    func changeMaster(from original: [UInt8], to master: [UInt8]) throws(ServiceError) {
        if let file {
            do throws(KeychainError) {
                _ = try FileKeychainInterface(path: path, master: .secret(original))
            } catch .wrongMasterKey {
                throw ServiceError.denied("the original password opens none of \(path)'s items")
            } catch {
                throw ServiceError.store(error, detail: FileKeychainInterface.openFailureDetail)
            }
            do throws(KeychainError) { try file.changeMaster(to: master) } catch {
                throw ServiceError.store(error, detail: file.failureDetail(for: error))
            }
        } else {
            try unlock(master: original)
            try changeMaster(from: original, to: master)
        }
    }

    func unlock(master: [UInt8]) throws(ServiceError) {
        do throws(KeychainError) {
            file = try FileKeychainInterface(path: path, master: .secret(master))
        } catch .wrongMasterKey {
            throw ServiceError.denied("the password opens none of \(path)'s items")
        } catch {
            throw ServiceError.store(error, detail: FileKeychainInterface.openFailureDetail)
        }
    }
}

/// The `session` collection: in memory until the daemon ends; locking it
/// only hides it, and unlocking needs no password.
final class MemoryCollectionStore: CollectionStore {
    private var items: [KeyringFileItem?] = []
    private var generation: UInt64 = 0
    private(set) var isLocked = false

    func lockedItemCount() -> Int { items.count }

    func read<R>(checkingForChanges: Bool, _ body: ([KeyringFileItem?], UInt64) -> R) throws(ServiceError) -> R {
        guard !isLocked else { throw ServiceError.isLocked("the session collection") }
        return body(items, generation)
    }

    func edit(_ body: ([KeyringFileItem?]) -> [FileKeychainInterface.ItemEdit]) throws(ServiceError) -> Bool {
        guard !isLocked else { throw ServiceError.isLocked("the session collection") }
        let edits = body(items)
        guard !edits.isEmpty else { return false }
        var bytes = self.bytes
        for edit in edits {
            switch edit {
            case let .append(item): bytes += Self.size(of: item)
            case let .replace(index, item): bytes += Self.size(of: item) - (items[index].map(Self.size) ?? 0)
            case .remove: break
            }
        }
        guard bytes <= ServerLimits.sessionCollectionBytes else {
            throw ServiceError.limit("the session collection holds at most \(ServerLimits.sessionCollectionBytes >> 20) MiB")
        }
        var removed: Set<Int> = []
        for edit in edits {
            switch edit {
            case let .append(item): items.append(item)
            case let .replace(index, item): items[index] = item
            case let .remove(indices): removed.formUnion(indices)
            }
        }
        for index in removed.sorted(by: >) { items.remove(at: index) }
        self.bytes = items.reduce(0) { $0 + ($1.map(Self.size) ?? 0) }
        generation &+= 1
        return true
    }

    /// What the items hold, in bytes (secrets, attributes, labels).
    private var bytes = 0

    private static func size(of item: KeyringFileItem) -> Int {
        item.secret.count + item.label.utf8.count + item.attributes.reduce(0) { $0 + $1.key.utf8.count + $1.value.utf8.count }
    }

    func lock() { isLocked = true }

    func unlock(master: [UInt8]) throws(ServiceError) { isLocked = false }
}
