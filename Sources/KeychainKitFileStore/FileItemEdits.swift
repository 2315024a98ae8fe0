// SPDX-License-Identifier: MIT
import KeychainKitCore
import KeychainKitSystem

/// The file's items as a server holds them (`keychainkitd`): every item,
/// whatever its attributes, read and changed under the file store's rules
/// (the writers' lock, the newest version, an atomic durable replace).
extension FileKeychainInterface {

    /// One change ``editItems(_:)`` makes, by index in the items it was given.
    package enum ItemEdit {
        case append(KeyringFileItem)
        case replace(Int, KeyringFileItem)
        /// Removes the items at these indices (after the other edits).
        case remove([Int])
    }

    /// Runs `body` on the newest version's items (`nil`: an item another
    /// master sealed) and that version's number, which changes whenever
    /// the items may have.
    /// `checkingForChanges` false: the version read last, without looking
    /// at the file again, for a caller that looked during the same request.
    package func readItems<R>(
        checkingForChanges: Bool = true, _ body: ([KeyringFileItem?], UInt64) -> R
    ) throws(KeychainError) -> R {
        FailureDetail.set(nil)
        do throws(FileStoreError) {
            return try state.withLock { state throws(FileStoreError) in
                if checkingForChanges || state.contents == nil { try refresh(&state) }
                return body(state.contents!.opened, state.generation)
            }
        } catch {
            FailureDetail.set(error.detail)
            throw error.error
        }
    }

    /// Makes the edits `body` chooses on the newest version's items, and
    /// writes the file; `false` when `body` chose none (nothing written).
    /// `body` may run more than once (when a program that takes no lock
    /// replaced the file meanwhile).
    @discardableResult
    package func editItems(_ body: ([KeyringFileItem?]) -> [ItemEdit]) throws(KeychainError) -> Bool {
        var edited = true
        do throws(KeychainError) {
            try writing { contents, key throws(FileStoreError) in
                let edits = body(contents.opened)
                // Not found is how a write says "nothing changed": the
                // contents are kept as they were and nothing is written.
                guard !edits.isEmpty else {
                    edited = false
                    throw FileStoreError(.itemNotFound)
                }
                var removed: [Int] = []
                for edit in edits {
                    switch edit {
                    case let .append(item): try contents.append(item, key: key)
                    case let .replace(index, item): try contents.replace(index, with: item, key: key)
                    case let .remove(indices): removed += indices
                    }
                }
                contents.remove(Array(Set(removed)))
            }
        } catch .itemNotFound where !edited {
            return false
        }
        return true
    }

    /// Writes the file as it is, an empty keyring when there is none, so
    /// that it exists before its first item (a collection just made).
    package func writeFile() throws(KeychainError) {
        try writing { _, _ throws(FileStoreError) in }
    }

    /// Seals every item the file's key opens again under `master`, with a
    /// fresh salt, and uses `master` from then on (the file's password
    /// changed: gnome-keyring's `ChangeWithMasterPassword`). Items another
    /// master sealed are kept as they are. One write: a reader sees the
    /// old file or the new one.
    package func changeMaster(to master: [UInt8]) throws(KeychainError) {
        guard !master.isEmpty else { throw .invalidArgument }
        var sealing: KeyringFileKey?
        let secret = SecretBuffer(copying: master)
        try writing({ contents, _ throws(FileStoreError) in
            let fresh = try KeyringFile.empty(now: Self.now)
            let key = try secret.withUnsafeBytes { bytes throws(FileStoreError) in
                try KeyringFileKey(master: bytes, salt: fresh.salt, iterations: fresh.iterations)
            }
            for index in contents.opened.indices {
                if let item = contents.opened[index] { contents.file.items[index] = try key.seal(item) }
            }
            contents.file.salt = fresh.salt
            contents.file.iterations = fresh.iterations
            sealing = key
        }, written: { state in
            // Under the same lock as the write: no call of this handle
            // derives a key from the old master for the new salt.
            self.master.replace(with: secret)
            state.key = sealing
        })
    }

    /// How many items the file at `path` holds, read without a key (0 when
    /// it does not exist): what a locked collection can say of itself.
    package static func sealedItemCount(at path: String) throws(KeychainError) -> Int {
        do throws(FileStoreError) {
            guard let (bytes, _, _) = try KeyringFileSystem.read(KeyringFileSystem.absolute(path)) else { return 0 }
            do throws(FileStoreFault) { return try KeyringFile(parsing: bytes).items.count } catch {
                throw FileStoreError(error, in: path)
            }
        } catch {
            throw error.error
        }
    }
}
