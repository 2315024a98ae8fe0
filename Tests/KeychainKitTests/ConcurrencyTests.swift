// SPDX-License-Identifier: MIT
import Dispatch
import KeychainKit
import Testing

/// Many threads on one keychain, and on separate keychains over one
/// backend: no crash, no torn value, every attempt observed.
@Suite("Concurrency")
struct ConcurrencyTests {

    static func operations(_ backend: Backend) -> Int { backend == .memory ? 10_000 : 100 }
    static let threads = 8
    static let accounts = ["a", "b", "c", "d"]

    /// Every thread sets, reads and removes keys shared by all threads;
    /// values name their key, so a read of another key's value (or a
    /// mixture) is detected. Every error is unexpected: across separate
    /// keychains too, an insert that collides with another writer's replaces
    /// its value, so no update can lose a race to a remover.
    static func hammer(
        _ keychains: [Keychain<CountingInterface>], service: String, operations: Int
    ) -> (torn: Int, unexpected: Int, attempts: Int) {
        let torn = Counter(), unexpected = Counter(), attempts = Counter()
        DispatchQueue.concurrentPerform(iterations: threads) { thread in
            let keychain = keychains[thread % keychains.count]
            var generator = SystemRandomNumberGenerator()
            for index in 0..<operations {
                let account = accounts[Int.random(in: 0..<accounts.count, using: &generator)]
                let key = KeychainAttributes(account: account, service: service)
                do throws(KeychainError) {
                    switch Int.random(in: 0..<10, using: &generator) {
                    case 0..<4:
                        attempts.increment()
                        try keychain.updateValue("\(account):\(thread):\(index)", forKey: key)
                    case 4..<5:
                        attempts.increment()
                        try keychain.removeValue(forKey: key)
                    default:
                        if let value = try keychain.value(forKey: key) {
                            let parts = value.split(separator: ":")
                            if parts.count != 3 || parts[0] != account { torn.increment() }
                        }
                    }
                } catch {
                    unexpected.increment()
                }
            }
        }
        return (torn.value, unexpected.value, attempts.value)
    }

    @Test(arguments: Backend.allCases)
    func oneKeychainManyThreads(_ backend: Backend) throws {
        let keychain = Keychain(interface: try backend.makeInterface())
        let service = uniqueService()
        let observed = Counter()
        for account in Self.accounts {
            _ = keychain.addObserver(forKey: KeychainAttributes(account: account, service: service)) { _ in observed.increment() }
        }
        let result = Self.hammer([keychain], service: service, operations: Self.operations(backend))
        #expect(result.torn == 0)
        #expect(result.unexpected == 0)
        #expect(observed.value == result.attempts, "every mutation attempt was observed once")
    }

    @Test(arguments: Backend.allCases)
    func separateKeychainsOneBackend(_ backend: Backend) throws {
        let interface = try backend.makeInterface()
        let keychains = (0..<4).map { _ in Keychain(interface: interface) }
        let result = Self.hammer(keychains, service: uniqueService(), operations: Self.operations(backend))
        #expect(result.torn == 0)
        #expect(result.unexpected == 0)
    }

    @Test func separateSecretServiceConnections() throws {
        try requirePrivateKeyring()
        let keychains = (0..<4).map { _ in Keychain(interface: CountingInterface(SecretServiceKeychainInterface())) }
        let service = uniqueService()
        let result = Self.hammer(keychains, service: service, operations: 50)
        #expect(result.torn == 0)
        #expect(result.unexpected == 0)
        let admin = try SecretServiceAdmin()
        for account in Self.accounts {
            #expect(try admin.itemCount(service: service, account: account) <= 1, "at most one item per key")
        }
    }
}
