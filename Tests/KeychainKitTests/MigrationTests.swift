// SPDX-License-Identifier: MIT
import KeychainKit
import Testing

/// A backend whose reads of one account fail, as a locked item's do.
final class OneLockedAccount: KeychainInterfaceProtocol, Sendable {
    let base: any KeychainInterfaceProtocol
    let account: String
    init(_ base: any KeychainInterfaceProtocol, locking account: String) {
        self.base = base
        self.account = account
    }
    func readItem(_ key: KeychainAttributes) throws(KeychainError) -> [UInt8]? {
        if key.account == account { throw .interactionNotAllowed }
        return try base.readItem(key)
    }
    func updateItem(_ key: KeychainAttributes, value: [UInt8]) throws(KeychainError) { try base.updateItem(key, value: value) }
    func insertItem(_ key: KeychainAttributes, value: [UInt8]) throws(KeychainError) { try base.insertItem(key, value: value) }
    func deleteItem(_ key: KeychainAttributes) throws(KeychainError) { try base.deleteItem(key) }
    func accounts(inService service: String) throws(KeychainError) -> [String] { try base.accounts(inService: service) }
}

@Suite("Migration")
struct MigrationTests {

    @Test(arguments: Backend.allCases)
    func aServiceMovesToANewNameOnceAndAgainIsNothing(_ backend: Backend) throws {
        let keychain = Keychain(interface: try backend.makeInterface())
        let old = uniqueService("old"), new = uniqueService("new")
        for (account, value) in [("a", "1"), ("b", "2"), ("", "empty account")] {
            try keychain.updateValue(value, forKey: KeychainAttributes(account: account, service: old))
        }
        let report = try keychain.migrate(service: old, to: new)
        #expect(report.moved.sorted() == ["", "a", "b"] && report.isComplete)
        #expect(try keychain.accounts(inService: old).isEmpty)
        #expect(try keychain.value(forKey: KeychainAttributes(account: "b", service: new)) == "2")
        #expect(try keychain.value(forKey: KeychainAttributes(account: "", service: new)) == "empty account")
        #expect(try keychain.migrate(service: old, to: new) == KeychainMigration(), "again: nothing to do")
        for account in ["", "a", "b"] { try keychain.removeValue(forKey: KeychainAttributes(account: account, service: new)) }
    }

    @Test(arguments: Backend.allCases)
    func anInterruptedRunIsFinishedAndConflictsAreLeftAlone(_ backend: Backend) throws {
        let keychain = Keychain(interface: try backend.makeInterface())
        let old = uniqueService("old"), new = uniqueService("new")
        let copied = KeychainAttributes(account: "copied", service: old)
        let clash = KeychainAttributes(account: "clash", service: old)
        try keychain.updateValue("same", forKey: copied)
        try keychain.updateValue("same", forKey: KeychainAttributes(account: "copied", service: new))  // the copy an earlier run made
        try keychain.updateValue("mine", forKey: clash)
        try keychain.updateValue("theirs", forKey: KeychainAttributes(account: "clash", service: new))
        let report = try keychain.migrate(service: old, to: new)
        #expect(report.alreadyThere == ["copied"] && report.conflicting == ["clash"] && !report.isComplete)
        #expect(try !keychain.contains(copied))
        #expect(try keychain.value(forKey: clash) == "mine" && keychain.value(forKey: KeychainAttributes(account: "clash", service: new)) == "theirs")
        for key in [clash, KeychainAttributes(account: "clash", service: new), KeychainAttributes(account: "copied", service: new)] {
            try keychain.removeValue(forKey: key)
        }
    }

    @Test(arguments: Backend.allCases)
    func itemsMoveBetweenKeychains(_ backend: Backend) throws {
        let destination = Keychain(interface: try backend.makeInterface())
        let memory = Keychain(interface: InMemoryKeychainInterface())
        let service = uniqueService()
        try memory.updateData([0, 1, 2, 0xff], forKey: KeychainAttributes(account: "bytes", service: service))
        let report = try destination.migrate(service: service, from: memory)
        #expect(report.moved == ["bytes"])
        #expect(try destination.data(forKey: KeychainAttributes(account: "bytes", service: service)) == [0, 1, 2, 0xff])
        #expect(try memory.accounts(inService: service).isEmpty)
        try destination.removeValue(forKey: KeychainAttributes(account: "bytes", service: service))
    }

    @Test func anUnreadableItemStaysAndIsReported() throws {
        let store = InMemoryKeychainInterface()
        let source = Keychain(interface: OneLockedAccount(InMemoryKeychainInterface(sharingItemsWith: store), locking: "locked"))
        let keychain = Keychain(interface: store)
        try keychain.updateValue("x", forKey: KeychainAttributes(account: "locked", service: "old"))
        try keychain.updateValue("y", forKey: KeychainAttributes(account: "open", service: "old"))
        let report = try keychain.migrate(service: "old", from: source, to: "new")
        #expect(report.moved == ["open"] && report.failed == ["locked": .interactionNotAllowed])
        #expect(try keychain.value(forKey: KeychainAttributes(account: "locked", service: "old")) == "x")
        #expect(try !keychain.contains(KeychainAttributes(account: "locked", service: "new")))
    }

    /// One store behind a wrapper that does not say so (its identity is
    /// unknown): the move runs, and loses nothing.
    @Test func twoKeychainsOnOneStoreNeverLoseTheValue() throws {
        let store = InMemoryKeychainInterface()
        let keychain = Keychain(interface: store)
        let sameItems = Keychain(interface: CountingInterface(InMemoryKeychainInterface(sharingItemsWith: store)))
        try keychain.updateValue("kept", forKey: KeychainAttributes(account: "a", service: "s"))
        let report = try keychain.migrate(service: "s", from: sameItems)
        #expect(report.alreadyThere == ["a"])
        #expect(try keychain.value(forKey: KeychainAttributes(account: "a", service: "s")) == "kept")
    }

    @Test func aServiceOntoItselfIsRefused() throws {
        let store = InMemoryKeychainInterface()
        let keychain = Keychain(interface: store)
        #expect(throws: KeychainError.invalidArgument) { try keychain.migrate(service: "s") }
        #expect(throws: KeychainError.invalidArgument) {
            try keychain.migrate(service: "s", from: Keychain(interface: InMemoryKeychainInterface(sharingItemsWith: store)))
        }
        #expect(throws: KeychainError.invalidArgument) {
            try Keychain(interface: KernelKeyringInterface(keyring: .session))
                .migrate(service: "s", from: Keychain(interface: KernelKeyringInterface(keyring: .session)))
        }
    }

    /// Stores are compared, not kinds of keychain: two separate in-memory
    /// stores, or the kernel's session and persistent keyrings, are two.
    @Test func aServiceMovesBetweenTwoStoresOfOneKind() throws {
        let source = Keychain(interface: InMemoryKeychainInterface())
        let keychain = Keychain(interface: InMemoryKeychainInterface())
        try source.updateValue("v", forKey: KeychainAttributes(account: "a", service: "s"))
        let report = try keychain.migrate(service: "s", from: source)
        #expect(report.moved == ["a"])
        #expect(try keychain.value(forKey: KeychainAttributes(account: "a", service: "s")) == "v")
        #expect(try source.accounts(inService: "s").isEmpty)
        #expect(KernelKeyringInterface(keyring: .session).storeIdentity != KernelKeyringInterface(keyring: .persistent).storeIdentity)
        #expect(SecretServiceKeychainInterface(collection: "session").storeIdentity == SecretServiceKeychainInterface().storeIdentity,
                "one Secret Service, whatever the collection")
    }

    @Test func anUnlistableSourceMovesNothing() throws {
        let source = InMemoryKeychainInterface()
        let keychain = Keychain(interface: InMemoryKeychainInterface())
        source.simulateFailure(.serviceUnavailable)
        #expect(throws: KeychainError.serviceUnavailable) {
            try keychain.migrate(service: "s", from: Keychain(interface: source), to: "t")
        }
    }
}
