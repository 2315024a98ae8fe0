// SPDX-License-Identifier: MIT
import KeychainKit
import Testing

/// A locked collection is never "absent": every operation reports
/// `interactionNotAllowed`, and the items are there again after unlocking.
@Suite("Secret Service: locked collection")
struct SecretServiceLockedTests {

    @Test func lockedItemsAreInteractionNotAllowedNeverAbsent() throws {
        try requirePrivateKeyring()
        let admin = try SecretServiceAdmin()
        let password = "lockable-\(UInt32.random(in: 0...UInt32.max))"
        let collection = try admin.createCollection(label: "kktest-lockable", password: password)
        defer { try? admin.deleteCollection(collection) }

        let keychain = Keychain(interface: SecretServiceKeychainInterface(collection: collection))
        let key = uniqueKey()
        let fresh = uniqueKey("fresh")
        try keychain.updateValue("before lock", forKey: key)

        try admin.lock(collection)
        #expect(throws: KeychainError.interactionNotAllowed) { try keychain.value(forKey: key) }
        #expect(throws: KeychainError.interactionNotAllowed) { try keychain.data(forKey: key) }
        #expect(throws: KeychainError.interactionNotAllowed) { try keychain.updateValue("during lock", forKey: key) }
        #expect(throws: KeychainError.interactionNotAllowed) { try keychain.removeValue(forKey: key) }
        #expect(throws: KeychainError.interactionNotAllowed, "creating in a locked collection") {
            try keychain.updateValue("new", forKey: fresh)
        }
        #expect(keychain[key] == nil, "the subscript discards the error")
        #expect(try keychain.contains(key), "a locked item exists")
        #expect(try admin.itemCount(service: key.service, account: key.account) == 1, "nothing was removed")

        try admin.unlock(collection, password: password)
        #expect(try keychain.value(forKey: key) == "before lock", "the same keychain works again after unlocking")
        #expect(try keychain.value(forKey: fresh) == nil)
        try keychain.removeValue(forKey: key)
    }

    /// gnome-keyring lists a locked collection's items, so an empty locked
    /// collection hides nothing: a key absent everywhere is absent, not
    /// locked (found in CI: a lone test with an empty locked login keyring
    /// was refused its reads from the session collection).
    @Test func anEmptyLockedCollectionOnGnomeKeyringHidesNothing() throws {
        try requirePrivateKeyring()
        let admin = try SecretServiceAdmin()
        let password = "empty-\(UInt32.random(in: 0...UInt32.max))"
        let empty = try admin.createCollection(label: "kktest-empty-locked", password: password)
        defer { try? admin.deleteCollection(empty) }
        try admin.lock(empty)
        let keychain = Keychain(interface: SecretServiceKeychainInterface(prompts: .never))
        let key = uniqueKey()
        #expect(try keychain.value(forKey: key) == nil)
        #expect(try !keychain.contains(key))
        try keychain.updateValue("v", forKey: key)
        #expect(try keychain.value(forKey: key) == "v")
        try keychain.removeValue(forKey: key)
    }
}
