// SPDX-License-Identifier: MIT
import KeychainKit

import Testing

/// Collects the changes an observer hears.
@Suite("Observer registry")
struct ObserverRegistryTests {

    @Test(arguments: Backend.allCases)
    func observersHearEveryAttemptWithItsOutcome(_ backend: Backend) throws {
        let scripted = ScriptedInterface(try backend.makeInterface())
        let keychain = Keychain(interface: scripted)
        let key = uniqueKey()
        let log = ChangeLog()
        _ = keychain.addObserver(forKey: key) { log.append($0) }

        try keychain.updateValue("a", forKey: key)
        try keychain.updateValue("a", forKey: key)
        try keychain.removeValue(forKey: key)
        try keychain.removeValue(forKey: key)
        scripted.fail(.update, with: .interactionNotAllowed)
        #expect(throws: KeychainError.interactionNotAllowed) { try keychain.updateValue("b", forKey: key) }
        #expect(throws: KeychainError.invalidArgument) {
            try keychain.updateValue("b", forKey: KeychainAttributes(account: key.account, service: ""))
        }
        _ = try keychain.value(forKey: key)

        #expect(log.all == [
            KeychainChange(key: key, event: .update, error: nil),
            KeychainChange(key: key, event: .update, error: nil),
            KeychainChange(key: key, event: .remove, error: nil),
            KeychainChange(key: key, event: .remove, error: nil),
            KeychainChange(key: key, event: .update, error: .interactionNotAllowed),
        ], "every mutation attempt on the key, none for reads or other keys")
    }

    @Test(arguments: Backend.allCases)
    func attemptsWithAnUnusableKeyNotifyNobody(_ backend: Backend) throws {
        let keychain = Keychain(interface: try backend.makeInterface())
        let invalid = KeychainAttributes(account: "a\u{0}b", service: uniqueService())
        let log = ChangeLog()
        _ = keychain.addObserver(forKey: invalid) { log.append($0) }
        #expect(throws: KeychainError.invalidArgument) { try keychain.updateValue("v", forKey: invalid) }
        #expect(throws: KeychainError.invalidArgument) { try keychain.removeValue(forKey: invalid) }
        #expect(log.all.isEmpty, "as in the C API, a rejected call is no attempt")
    }

    @Test(arguments: Backend.allCases)
    func observersRunAfterTheAttempt(_ backend: Backend) throws {
        let interface = try backend.makeInterface()
        let keychain = Keychain(interface: interface)
        let key = uniqueKey()
        let seen = Protected<[[UInt8]?]>([])
        _ = keychain.addObserver(forKey: key) { _ in
            let stored = try? interface.readItem(key)
            seen.withLock { $0.append(stored) }
        }
        try keychain.updateValue("v", forKey: key)
        try keychain.removeValue(forKey: key)
        #expect(seen.withLock { $0 } == [Array("v".utf8), nil])
    }

    @Test(arguments: Backend.allCases)
    func removedObserversAreNotCalled(_ backend: Backend) throws {
        let keychain = Keychain(interface: try backend.makeInterface())
        let key = uniqueKey()
        let log = ChangeLog()
        let token = keychain.addObserver(forKey: key) { log.append($0) }
        #expect(keychain.removeObserver(token))
        #expect(!keychain.removeObserver(token), "a token is removed once")
        try keychain.updateValue("v", forKey: key)
        #expect(log.all.isEmpty)
    }

    @Test(arguments: Backend.allCases)
    func callbacksMayReenterTheKeychainAndCancelThemselves(_ backend: Backend) throws {
        let keychain = Keychain(interface: try backend.makeInterface())
        let key = uniqueKey()
        let readBack = Protected<[String?]>([])
        let token = Protected<KeychainObservationToken?>(nil)
        let registered = keychain.addObserver(forKey: key) { change in
            let value = try? keychain.value(forKey: change.key)
            readBack.withLock { $0.append(value) }
            if let mine = token.withLock({ $0 }) {
                #expect(keychain.removeObserver(mine))
            }
        }
        token.withLock { $0 = registered }
        try keychain.updateValue("first", forKey: key)
        try keychain.updateValue("second", forKey: key)
        #expect(readBack.withLock { $0 } == ["first"], "called once, then cancelled itself")
    }

    @Test(arguments: Backend.allCases)
    func aCallbackMayWriteTheKeyItObserves(_ backend: Backend) throws {
        let keychain = Keychain(interface: try backend.makeInterface())
        let key = uniqueKey()
        let calls = Protected(0)
        _ = keychain.addObserver(forKey: key) { change in
            let depth = calls.withLock { $0 += 1; return $0 }
            if depth == 1 { try? keychain.updateValue("from callback", forKey: change.key) }
        }
        try keychain.updateValue("outer", forKey: key)
        #expect(calls.withLock { $0 } == 2)
        #expect(try keychain.value(forKey: key) == "from callback")
    }

    @Test func observersOfOtherKeysAreUntouched() throws {
        let keychain = Keychain(interface: InMemoryKeychainInterface())
        let service = uniqueService()
        let log = ChangeLog()
        for index in 0..<1000 {
            _ = keychain.addObserver(forKey: KeychainAttributes(account: "other\(index)", service: service)) { log.append($0) }
        }
        let key = KeychainAttributes(account: "mine", service: service)
        let mine = ChangeLog()
        _ = keychain.addObserver(forKey: key) { mine.append($0) }
        try keychain.updateValue("v", forKey: key)
        #expect(log.all.isEmpty)
        #expect(mine.all.count == 1)
    }

    @Test func handlersAreReleasedWhenRemoved() throws {
        final class Tracked: Sendable {
            let counter: Counter
            init(_ counter: Counter) { self.counter = counter }
            deinit { counter.increment() }
        }
        let counter = Counter()
        let keychain = Keychain(interface: InMemoryKeychainInterface())
        let key = uniqueKey()
        var tokens: [KeychainObservationToken] = []
        for _ in 0..<3 {
            let tracked = Tracked(counter)
            tokens.append(keychain.addObserver(forKey: key) { _ in _ = tracked })
        }
        #expect(counter.value == 0)
        keychain.removeObserver(tokens[0])
        #expect(counter.value == 1)
        keychain.removeAllObservers()
        #expect(counter.value == 3)
        #expect(!keychain.removeObserver(tokens[1]))
    }
}

final class Counter: Sendable {
    private let count = Protected(0)
    var value: Int { count.withLock { $0 } }
    func increment() { count.withLock { $0 += 1 } }
}
