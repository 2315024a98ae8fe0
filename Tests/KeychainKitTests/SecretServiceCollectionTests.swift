import KeychainKit
import Testing

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
}
