// SPDX-License-Identifier: MIT
import KeychainKit
import Testing

/// Items written by other tools are ours to read and overwrite, and ours are theirs.
@Suite("Secret Service interop")
struct SecretServiceInteropTests {

    @Test func weReadWhatSecretToolStored() throws {
        try requirePrivateKeyring()
        let service = uniqueService()
        let stored = try run(["secret-tool", "store", "--label=from secret-tool", "service", service, "username", "alice"],
                             input: "s3cret from secret-tool")
        #expect(stored.status == 0, "\(stored.stderr)")
        let keychain = Keychain()
        #expect(try keychain.value(forKey: KeychainAttributes(account: "alice", service: service)) == "s3cret from secret-tool")
    }

    @Test func secretToolFindsWhatWeStored() throws {
        let keychain = Keychain()
        try requirePrivateKeyring()
        let service = uniqueService()
        try keychain.updateValue("ours ✓", forKey: KeychainAttributes(account: "bob", service: service))
        let lookup = try run(["secret-tool", "lookup", "service", service, "username", "bob"])
        #expect(lookup.status == 0, "\(lookup.stderr)")
        #expect(lookup.stdout == "ours ✓")
    }

    @Test func overwritingASecretToolItemLeavesOneItem() throws {
        try requirePrivateKeyring()
        let admin = try SecretServiceAdmin()
        let service = uniqueService()
        try run(["secret-tool", "store", "--label=theirs", "service", service, "username", "carol"], input: "old")
        let keychain = Keychain()
        let key = KeychainAttributes(account: "carol", service: service)
        try keychain.updateValue("new", forKey: key)
        #expect(try admin.itemCount(service: service, account: "carol") == 1)
        #expect(try run(["secret-tool", "lookup", "service", service, "username", "carol"]).stdout == "new")
        try keychain.removeValue(forKey: key)
        #expect(try admin.itemCount(service: service, account: "carol") == 0)
        #expect(try run(["secret-tool", "lookup", "service", service, "username", "carol"]).status != 0)
    }

    @Test func itemsCarryTheSharedAttributesAndLabel() throws {
        try requirePrivateKeyring()
        let admin = try SecretServiceAdmin()
        let service = uniqueService()
        let keychain = Keychain()
        try keychain.updateValue("value-not-in-metadata", forKey: KeychainAttributes(account: "dave", service: service))
        try keychain.updateValue("value-not-in-metadata-2", forKey: KeychainAttributes(account: "dave", service: service))
        let items = try admin.attributes(service: service, account: "dave")
        #expect(items == [[
            "service": service,
            "username": "dave",
            "xdg:schema": SecretServiceKeychainInterface.schemaName,
            "Label": "Password for 'dave' on '\(service)'",
        ]], "one item, and no secret in its label or attributes")
    }

    @Test func duplicatesLeftByOtherToolsReadTheNewestAndAreAllRemoved() throws {
        try requirePrivateKeyring()
        let admin = try SecretServiceAdmin()
        let service = uniqueService()
        // Two items for one key: secret-tool stores a distinct item per attribute set.
        try run(["secret-tool", "store", "--label=a", "service", service, "username", "erin", "extra", "1"], input: "older")
        try run(["sleep", "1.1"])  // Modified has a resolution of one second
        try run(["secret-tool", "store", "--label=b", "service", service, "username", "erin", "extra", "2"], input: "newer")
        #expect(try admin.itemCount(service: service, account: "erin") == 2)
        let keychain = Keychain()
        let key = KeychainAttributes(account: "erin", service: service)
        #expect(try keychain.value(forKey: key) == "newer")
        try keychain.removeValue(forKey: key)
        #expect(try admin.itemCount(service: service, account: "erin") == 0)
    }

    @Test func aWriteCollapsesDuplicatesOtherToolsLeftIntoOneItem() throws {
        try requirePrivateKeyring()
        let admin = try SecretServiceAdmin()
        let service = uniqueService()
        for extra in ["1", "2", "3"] {
            try run(["secret-tool", "store", "--label=dup", "service", service, "username", "frank", "extra", extra],
                    input: "theirs \(extra)")
        }
        #expect(try admin.itemCount(service: service, account: "frank") == 3)
        let keychain = Keychain()
        let key = KeychainAttributes(account: "frank", service: service)
        try keychain.updateValue("ours", forKey: key)
        #expect(try admin.itemCount(service: service, account: "frank") == 1)
        #expect(try run(["secret-tool", "lookup", "service", service, "username", "frank"]).stdout == "ours")
        #expect(try keychain.value(forKey: key) == "ours")
        try keychain.removeValue(forKey: key)
    }

    @Test func sessionCollectionIsUsable() throws {
        try requirePrivateKeyring()
        let keychain = Keychain(interface: SecretServiceKeychainInterface(collection: "session"))
        let key = uniqueKey()
        try keychain.updateValue("volatile", forKey: key)
        #expect(try keychain.value(forKey: key) == "volatile")
        #expect(try Keychain().value(forKey: key) == "volatile", "found by a default-collection keychain too")
        try keychain.removeValue(forKey: key)
    }
}
