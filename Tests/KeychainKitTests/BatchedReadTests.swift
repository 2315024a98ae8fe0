// SPDX-License-Identifier: MIT
import KeychainKit
import Testing

/// `Keychain.data(forAccounts:inService:)`: what `data(forKey:)` gives for
/// each account, read together.
@Suite("Batched reads")
struct BatchedReadTests {

    /// Each account's result next to its single read: same value, same
    /// absence, same error.
    private func expectAgreement(
        _ keychain: Keychain<some KeychainInterfaceProtocol>, _ accounts: [String], in service: String
    ) throws {
        let batch = try keychain.data(forAccounts: accounts, inService: service)
        #expect(batch.count == accounts.count)
        for (account, result) in zip(accounts, batch) {
            let alone = Result { () throws(KeychainError) in
                try keychain.data(forKey: KeychainAttributes(account: account, service: service))
            }
            #expect(result == alone, "account \(account.debugDescription)")
        }
    }

    @Test(arguments: Backend.allCases)
    func eachAccountGetsWhatItsSingleReadGets(_ backend: Backend) throws {
        let keychain = Keychain(interface: try backend.makeInterface())
        let service = uniqueService()
        try keychain.updateData([0x61, 0, 0x62], forKey: KeychainAttributes(account: "nul", service: service))
        try keychain.updateData([0xff, 0xfe], forKey: KeychainAttributes(account: "binary", service: service))
        try keychain.updateValue("empty account", forKey: KeychainAttributes(account: "", service: service))
        try keychain.updateValue("composed", forKey: KeychainAttributes(account: "caf\u{e9}", service: service))
        try keychain.updateValue("elsewhere", forKey: KeychainAttributes(account: "other", service: uniqueService()))
        let accounts = ["nul", "missing", "binary", "", "cafe\u{301}", "caf\u{e9}", "other", "nul"]
        try expectAgreement(keychain, accounts, in: service)
        let batch = try keychain.data(forAccounts: accounts, inService: service)
        #expect(try batch[0].get() == [0x61, 0, 0x62])
        #expect(try batch[1].get() == nil)
        #expect(try batch[4].get() == nil, "canonically equal is not the same account")
        #expect(try batch[5].get() == Array("composed".utf8))
        #expect(try batch[6].get() == nil, "another service's account")
        for account in ["nul", "binary", "", "caf\u{e9}"] {
            try keychain.removeValue(forKey: KeychainAttributes(account: account, service: service))
        }
    }

    @Test(arguments: Backend.allCases)
    func invalidAccountsFailAloneAnInvalidServiceFailsAll(_ backend: Backend) throws {
        let keychain = Keychain(interface: try backend.makeInterface())
        let service = uniqueService()
        try keychain.updateValue("v", forKey: KeychainAttributes(account: "good", service: service))
        let batch = try keychain.data(forAccounts: ["good", "bad\u{0}nul", "good"], inService: service)
        #expect(try batch[0].get() == Array("v".utf8))
        #expect(batch[1] == .failure(.invalidArgument))
        #expect(try batch[2].get() == Array("v".utf8))
        #expect(throws: KeychainError.invalidArgument) { try keychain.data(forAccounts: ["good"], inService: "") }
        #expect(try keychain.data(forAccounts: [], inService: service).isEmpty)
        try keychain.removeValue(forKey: KeychainAttributes(account: "good", service: service))
    }

    @Test(arguments: Backend.allCases)
    func manyMoreAccountsThanCallsInFlight(_ backend: Backend) throws {
        let keychain = Keychain(interface: try backend.makeInterface())
        let service = uniqueService()
        let stored = (0..<150).map { "acct-\($0)" }
        for account in stored {
            try keychain.updateValue("value of \(account)", forKey: KeychainAttributes(account: account, service: service))
        }
        let asked = (0..<160).reversed().map { "acct-\($0)" }
        let batch = try keychain.data(forAccounts: asked, inService: service)
        for (account, result) in zip(asked, batch) {
            let want = stored.contains(account) ? Array("value of \(account)".utf8) : nil
            #expect(try result.get() == want, "\(account)")
        }
        for account in stored { try keychain.removeValue(forKey: KeychainAttributes(account: account, service: service)) }
    }

    @Test func lockedItemsAreInteractionNotAllowedAbsentOnesAbsent() throws {
        try requirePrivateKeyring()
        let admin = try SecretServiceAdmin()
        let password = "lockable-\(UInt32.random(in: 0...UInt32.max))"
        let collection = try admin.createCollection(label: "kktest-batch-lockable", password: password)
        defer { try? admin.deleteCollection(collection) }
        let keychain = Keychain(interface: SecretServiceKeychainInterface(collection: collection, prompts: .never))
        let service = uniqueService()
        try keychain.updateValue("in the locked one", forKey: KeychainAttributes(account: "locked", service: service))
        let elsewhere = Keychain(interface: SecretServiceKeychainInterface(collection: "session"))
        try elsewhere.updateValue("readable", forKey: KeychainAttributes(account: "open", service: service))
        defer { try? elsewhere.removeValue(forKey: KeychainAttributes(account: "open", service: service)) }

        try admin.lock(collection)
        let batch = try keychain.data(forAccounts: ["locked", "open", "absent"], inService: service)
        #expect(batch[0] == .failure(.interactionNotAllowed), "locked is never absent")
        #expect(try batch[1].get() == Array("readable".utf8), "one locked item does not hide the others")
        #expect(try batch[2].get() == nil, "gnome-keyring shows a locked collection's items: absent is provable")
        try expectAgreement(keychain, ["locked", "open", "absent"], in: service)

        try admin.unlock(collection, password: password)
        #expect(try keychain.data(forAccounts: ["locked"], inService: service)[0].get() == Array("in the locked one".utf8))
    }
}
