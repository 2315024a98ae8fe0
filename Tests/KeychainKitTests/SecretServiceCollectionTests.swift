// SPDX-License-Identifier: MIT
import KeychainKit
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// A collection that does not exist is an error of its own, never "no item".
@Suite("Secret Service: collections")
struct SecretServiceCollectionTests {

    @Test(arguments: ["/org/freedesktop/secrets/collection/kktest_missing", "kktest_missing_alias"])
    func creatingInAMissingCollectionIsNotItemNotFound(_ collection: String) throws {
        try requirePrivateKeyring()
        let keychain = Keychain(interface: SecretServiceKeychainInterface(collection: collection))
        let key = uniqueKey()
        do {
            try keychain.updateValue("v", forKey: key)
            Issue.record("a write into a missing collection succeeded")
        } catch {
            guard case let .unknownError(_, message) = error else {
                Issue.record("expected unknownError, got \(error)")
                return
            }
            #expect(message.contains("collection"), "the message says what is missing: \(message)")
        }
        #expect(try keychain.value(forKey: key) == nil, "nothing was stored")
    }

    @Test func deletingACollectionTellsTheObserversOfItsItems() throws {
        try requirePrivateKeyring()
        let admin = try SecretServiceAdmin()
        let collection = try admin.createCollection(label: "kktest-observed", password: "kktest")
        let writer = Keychain(interface: SecretServiceKeychainInterface(collection: collection))
        let observer = Keychain(), key = uniqueKey(), elsewhere = uniqueKey("elsewhere")
        try writer.updateValue("in the collection", forKey: key)
        try observer.updateValue("in the default collection", forKey: elsewhere)
        let log = ChangeLog()
        _ = observer.addObserver(forKey: key) { log.append($0) }
        _ = observer.addObserver(forKey: elsewhere) { log.append($0) }
        try admin.deleteCollection(collection)
        #expect(log.waitFor(1, of: key) == [.deleted])
        #expect(try observer.value(forKey: key) == nil)
        usleep(300_000)
        #expect(log.events(of: elsewhere).isEmpty, "items of other collections are not told")
        observer.removeAllObservers()
        try observer.removeValue(forKey: elsewhere)
    }
}
