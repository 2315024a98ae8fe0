// SPDX-License-Identifier: MIT
#if canImport(Glibc)
import Glibc
#endif
import KeychainKit
import Testing

/// Listing with labels and times, and setting labels, on every backend.
@Suite("Item information")
struct ItemInfoTests {

    @Test(arguments: Backend.allCases)
    func itemsCarryLabelsAndTimesWithoutSecrets(_ backend: Backend) throws {
        let interface = try backend.makeInterface()
        let keychain = Keychain(interface: interface)
        let service = uniqueService()
        let before = UInt64(time(nil))
        for account in ["b", "a"] {
            try keychain.updateValue("v", forKey: KeychainAttributes(account: account, service: service))
        }
        interface.reset()
        let items = try keychain.items(inService: service)
        #expect(items.map(\.account) == ["a", "b"])
        #expect(!interface.calls.contains(.read), "no secret read")
        let a = try #require(items.first)
        if backend == .kernel {
            #expect(a.label == nil && a.created == nil && a.modified == nil, "the kernel keyring keeps none")
        } else {
            #expect(a.label == "Password for 'a' on '\(service)'")
            let created = try #require(a.created), modified = try #require(a.modified)
            #expect(created >= before && modified >= created && modified <= UInt64(time(nil)))
        }
        for account in ["a", "b"] { try keychain.removeValue(forKey: KeychainAttributes(account: account, service: service)) }
        #expect(try keychain.items(inService: service).isEmpty)
    }

    @Test(arguments: Backend.allCases)
    func labelsCanBeSet(_ backend: Backend) throws {
        let keychain = Keychain(interface: try backend.makeInterface())
        let key = uniqueKey()
        try keychain.updateValue("v", forKey: key)
        if backend == .kernel {
            #expect(throws: KeychainError.unknownError(code: 95, message: "this keychain keeps no labels")) {
                try keychain.setLabel("x", forKey: key)
            }
        } else {
            try keychain.setLabel("My API token", forKey: key)
            #expect(try keychain.items(inService: key.service).first?.label == "My API token")
            #expect(try keychain.value(forKey: key) == "v", "the value is unchanged")
            try keychain.updateValue("w", forKey: key)
            #expect(try keychain.items(inService: key.service).first?.label == "My API token", "an update keeps the label")
        }
        try keychain.removeValue(forKey: key)
        if backend != .kernel {
            #expect(throws: KeychainError.itemNotFound) { try keychain.setLabel("x", forKey: key) }
        }
        #expect(throws: KeychainError.invalidArgument) { try keychain.setLabel("a\0b", forKey: key) }
        #expect(throws: KeychainError.invalidArgument) { try keychain.items(inService: "") }
    }
}
