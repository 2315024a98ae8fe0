// SPDX-License-Identifier: MIT
import KeychainKit
import Testing

/// The Secret Service backend remembers where a key's item is (or that it
/// has none) between calls; these tests prove that changes made by other
/// processes and connections are still seen by the very next read.
@Suite("Secret Service: fresh reads across processes")
struct SecretServiceFreshnessTests {

    /// A keychain and a key whose item path (or absence) it has cached.
    private func primed(_ value: String?) throws -> (Keychain<SecretServiceKeychainInterface>, KeychainAttributes) {
        try requirePrivateKeyring()
        let keychain = Keychain(interface: SecretServiceKeychainInterface())
        let key = KeychainAttributes(account: "fresh", service: uniqueService())
        if let value { try keychain.updateValue(value, forKey: key) }
        #expect(try keychain.value(forKey: key) == value)
        #expect(try keychain.value(forKey: key) == value, "second read, from the cache")
        return (keychain, key)
    }

    @Test func anItemCreatedByAnotherProcessIsSeen() throws {
        let (keychain, key) = try primed(nil)
        try run(["secret-tool", "store", "--label=x", "service", key.service, "username", key.account], input: "created elsewhere")
        #expect(try keychain.value(forKey: key) == "created elsewhere")
    }

    @Test func anItemDeletedByAnotherProcessIsSeen() throws {
        let (keychain, key) = try primed("ours")
        #expect(try run(["secret-tool", "clear", "service", key.service, "username", key.account]).status == 0)
        #expect(try keychain.value(forKey: key) == nil)
    }

    @Test func aValueReplacedInPlaceByAnotherConnectionIsSeen() throws {
        let (keychain, key) = try primed("ours")
        let other = Keychain(interface: SecretServiceKeychainInterface())
        try other.updateValue("replaced elsewhere", forKey: key)  // SetSecret on the same item
        #expect(try keychain.value(forKey: key) == "replaced elsewhere")
    }

    @Test func aNewerDuplicateWrittenByAnotherToolIsSeen() throws {
        let (keychain, key) = try primed("ours")
        try run(["sleep", "1.1"])  // Modified has a resolution of one second
        // secret-tool's items carry another xdg:schema: it adds a second item.
        try run(["secret-tool", "store", "--label=x", "service", key.service, "username", key.account], input: "newer")
        #expect(try keychain.value(forKey: key) == "newer")
        try keychain.updateValue("ours again", forKey: key)
        #expect(try run(["secret-tool", "lookup", "service", key.service, "username", key.account]).stdout == "ours again")
    }

    @Test func aLockedCollectionIsNotServedFromTheCache() throws {
        try requirePrivateKeyring()
        let admin = try SecretServiceAdmin()
        let password = "cache-lock-\(UInt32.random(in: 0...UInt32.max))"
        let collection = try admin.createCollection(label: "kktest-cache-lock", password: password)
        defer { try? admin.deleteCollection(collection) }
        let keychain = Keychain(interface: SecretServiceKeychainInterface(collection: collection))
        let key = uniqueKey()
        try keychain.updateValue("v", forKey: key)
        #expect(try keychain.value(forKey: key) == "v")
        try admin.lock(collection)
        #expect(throws: KeychainError.interactionNotAllowed) { try keychain.value(forKey: key) }
        #expect(throws: KeychainError.interactionNotAllowed) { try keychain.updateValue("w", forKey: key) }
        try admin.unlock(collection, password: password)
        #expect(try keychain.value(forKey: key) == "v")
    }
}
