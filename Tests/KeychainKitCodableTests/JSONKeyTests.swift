// SPDX-License-Identifier: MIT
import KeychainKit
import KeychainKitCodable
import Testing

struct Session: Codable, Equatable, Sendable {
    var token: String
    var expires: Int
}

extension KeychainKey where Value == Session {
    static func session(_ service: String) -> KeychainKey { KeychainKey(json: "session", service: service) }
}

/// Codable values as JSON, in memory (the coding is backend-independent;
/// the bytes are what every backend stores).
@Suite("Codable values")
struct JSONKeyTests {

    private func service(_ name: String = #function) -> String { "kktest.codable.\(name.prefix { $0.isLetter })" }

    @Test func aCodableValueRoundTripsAsSortedJSON() throws {
        let keychain = Keychain(interface: InMemoryKeychainInterface())
        let key = KeychainKey<Session>.session(service())
        try keychain.set(Session(token: "t", expires: 9), for: key)
        #expect(try keychain.value(for: key) == Session(token: "t", expires: 9))
        // Other tools read plain JSON text.
        #expect(try keychain.value(forKey: key.attributes) == #"{"expires":9,"token":"t"}"#)
        try keychain.set(nil, for: key)
        #expect(try keychain.value(for: key) == nil)
    }

    @Test func bytesThatAreNotThisTypeReadAsAbsent() throws {
        let keychain = Keychain(interface: InMemoryKeychainInterface())
        let key = KeychainKey<Session>.session(service())
        try keychain.updateValue(#"{"token":"t"}"#, forKey: key.attributes)  // an older version's shape
        #expect(try keychain.value(for: key) == nil)
        #expect(try keychain.contains(key.attributes))
        try keychain.set(Session(token: "new", expires: 1), for: key)
        #expect(try keychain.value(for: key)?.token == "new")
    }

    @Test func aValueJSONCannotHoldIsAnInvalidArgument() throws {
        let keychain = Keychain(interface: InMemoryKeychainInterface())
        let key = KeychainKey<Double>(json: "ratio", service: service())
        #expect(throws: KeychainError.invalidArgument) { try keychain.set(.nan, for: key) }
        #expect(try !keychain.contains(key.attributes))
    }

    @Test func textKeysStayRawUTF8WithThisProductImported() throws {
        let keychain = Keychain(interface: InMemoryKeychainInterface())
        let text = KeychainKey<String>("text", service: service())  // not KeychainKey(json:)
        try keychain.set("plain", for: text)
        #expect(try keychain.data(forKey: text.attributes) == Array("plain".utf8))
    }

    @Test func keychainStorageTakesACodableKey() throws {
        let keychain = Keychain(interface: InMemoryKeychainInterface())
        let storage = KeychainStorage(KeychainKey<Session>.session(service()), in: keychain)
        storage.wrappedValue = Session(token: "s", expires: 2)
        #expect(storage.wrappedValue == Session(token: "s", expires: 2))
    }
}
