// SPDX-License-Identifier: MIT
// Another package's program, using KeychainKit as a Swift user does: its
// manifest (written by run.sh) depends on this repository by path and on the
// products README names; this file imports them and nothing internal.
//
//   Consumer memory
//   Consumer secret-service SERVICE ACCOUNT VALUE
//
// Each writes, reads back, updates and removes a string and a Codable value
// (KeychainKitCodable's JSON), through the synchronous API and the async
// one, and checks every answer. On the Secret Service (only the private
// keyring of scripts/with-secret-service.sh) it also reads and removes the
// item SERVICE/ACCOUNT that run.sh stored with secret-tool, and leaves one
// item, handoff, for run.sh to find with secret-tool.
// Prints each mismatch and exits 1 on any; 2 on a usage error.
import Foundation
import KeychainKit
import KeychainKitCodable

struct Session: Codable, Equatable {
    var token: String
    var expires: Int
    var scopes: [String]
}

extension KeychainKey where Value == Session {
    static let session = KeychainKey(json: "session", service: "com.example.consumer")
}

let service = "com.example.consumer"
var failures: [String] = []

@MainActor
func expect<T: Equatable>(_ what: String, _ actual: T?, _ expected: T?) {
    func describe(_ value: T?) -> String { value.map { "\($0)" } ?? "nil" }
    if actual != expected {
        failures.append("\(what): got \(describe(actual)), expected \(describe(expected))")
    }
}

/// The synchronous API: strings, subscripts and a Codable value.
@MainActor
func roundTrip<Interface>(_ keychain: Keychain<Interface>) {
    let key = KeychainAttributes(account: "token", service: service)
    do {
        try keychain.updateValue("first", forKey: key)
        expect("value after the first write", try keychain.value(forKey: key), "first")
        try keychain.updateValue("second ✓", forKey: key)
        expect("value after the update", try keychain.value(forKey: key), "second ✓")
        expect("contains after the update", try keychain.contains(key), true)
        expect("accounts in \(service)", try keychain.accounts(inService: service), ["token"])
        try keychain.removeValue(forKey: key)
        expect("value after the removal", try keychain.value(forKey: key), nil)

        // The subscripts: nil removes.
        let plain: KeychainAttributes = "consumer-plain"
        keychain[plain] = "p"
        expect("subscript after a write", keychain[plain], "p")
        keychain[plain] = nil
        expect("subscript after nil", keychain[plain, default: "absent"], "absent")

        // A Codable value, stored as JSON with sorted keys.
        let session = Session(token: "t-1", expires: 1_900_000_000, scopes: ["read", "write"])
        try keychain.set(session, for: .session)
        expect("Codable value read back", try keychain.value(for: .session), session)
        expect("Codable value as stored", try keychain.value(forKey: KeychainKey<Session>.session.attributes),
               #"{"expires":1900000000,"scopes":["read","write"],"token":"t-1"}"#)
        try keychain.set(nil, for: .session)
        expect("Codable value after set(nil)", try keychain.value(for: .session), nil)
    } catch {
        failures.append("threw \(error)")
    }
}

/// The async API (what an async context calls): a Codable value again.
@MainActor
func asyncRoundTrip<Interface>(_ keychain: Keychain<Interface>) async {
    let session = Session(token: "t-2", expires: 1_900_000_001, scopes: [])
    do {
        try await keychain.set(session, for: .session)
        expect("async: Codable value read back", try await keychain.value(for: .session), session)
        try await keychain.set(nil, for: .session)
        expect("async: Codable value after set(nil)", try await keychain.value(for: .session), nil)
    } catch {
        failures.append("async: threw \(error)")
    }
}

let arguments = Array(CommandLine.arguments.dropFirst())
switch arguments.first {
case "memory" where arguments.count == 1:
    let keychain = Keychain(interface: InMemoryKeychainInterface())
    roundTrip(keychain)
    await asyncRoundTrip(keychain)
case "secret-service" where arguments.count == 4:
    // Never the user's own keyring.
    guard ProcessInfo.processInfo.environment["KEYCHAINKIT_TEST_KEYRING"] == "private" else {
        print("Consumer: secret-service runs only inside scripts/with-secret-service.sh")
        exit(2)
    }
    let keychain = Keychain()
    roundTrip(keychain)
    await asyncRoundTrip(keychain)
    let seeded = KeychainAttributes(account: arguments[2], service: arguments[1])
    do {
        expect("the item secret-tool stored", try keychain.value(forKey: seeded), arguments[3])
        try keychain.removeValue(forKey: seeded)
        try keychain.updateValue("from the consumer", forKey: KeychainAttributes(account: "handoff", service: service))
    } catch {
        failures.append("threw \(error) on secret-tool's item or the handoff")
    }
default:
    print("usage: Consumer memory | Consumer secret-service SERVICE ACCOUNT VALUE")
    exit(2)
}

for failure in failures {
    print("FAIL \(arguments[0]): \(failure)")
}
if !failures.isEmpty {
    exit(1)
}
print("ok \(arguments[0])")
