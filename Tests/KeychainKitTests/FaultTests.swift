// SPDX-License-Identifier: MIT
import Dispatch
import Foundation
import KeychainKit
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Faults against a real daemon: each test has a bus and a gnome-keyring of
/// its own, kills them, and checks that calls fail within a bound with a
/// documented error, that nothing acknowledged is lost, and that the same
/// keychain works again once the service is back.
@Suite("Faults")
struct FaultTests {

    /// Calls must fail within this bound when the service dies (the
    /// interface's timeout is 5 s; a dead service is noticed at once).
    static let bound: Duration = .seconds(2)

    static func expectFailsFast(
        _ keychain: Keychain<SecretServiceKeychainInterface>, _ key: KeychainAttributes,
        with expected: KeychainError, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        let elapsed = ContinuousClock().measure {
            #expect(throws: expected, sourceLocation: sourceLocation) { try keychain.value(forKey: key) }
            #expect(throws: expected, sourceLocation: sourceLocation) { try keychain.updateValue("x", forKey: key) }
            #expect(throws: expected, sourceLocation: sourceLocation) { try keychain.removeValue(forKey: key) }
        }
        #expect(elapsed < bound * 3, "three calls took \(elapsed)", sourceLocation: sourceLocation)
    }

    @Test func daemonKilledThenRestartedSameKeychainWorksAgain() throws {
        let service = try PrivateSecretService()
        let keychain = Keychain(interface: SecretServiceKeychainInterface(busAddress: service.address))
        let key = uniqueKey()
        try keychain.updateValue("before the crash", forKey: key)
        #expect(try keychain.value(forKey: key) == "before the crash")

        service.killDaemon()
        Self.expectFailsFast(keychain, key, with: .serviceUnavailable)

        try service.startDaemon()
        #expect(try keychain.value(forKey: key) == "before the crash", "the same keychain, reconnected")
        try keychain.updateValue("after the crash", forKey: key)
        #expect(try keychain.value(forKey: key) == "after the crash")
    }

    @Test func aRestartedServiceTellsEachObserverOnce() throws {
        let service = try PrivateSecretService()
        let keychain = Keychain(interface: SecretServiceKeychainInterface(busAddress: service.address))
        let first = uniqueKey("first"), second = uniqueKey("second")
        try keychain.updateValue("kept", forKey: first)
        let log = ChangeLog()
        _ = keychain.addObserver(forKey: first) { log.append($0) }
        _ = keychain.addObserver(forKey: second) { log.append($0) }
        service.killDaemon()
        try service.startDaemon()
        #expect(log.waitFor(1, of: first) == [.changed])
        #expect(log.waitFor(1, of: second) == [.changed])
        usleep(400_000)
        #expect(log.events(of: first) == [.changed] && log.events(of: second) == [.changed], "once each")
        keychain.removeAllObservers()
    }

    @Test func acknowledgedWritesSurviveSIGKILL() throws {
        let service = try PrivateSecretService()
        let keychain = Keychain(interface: SecretServiceKeychainInterface(busAddress: service.address))
        let serviceName = uniqueService()
        let count = 1000
        for index in 0..<count {
            try keychain.updateValue("value-\(index)-ü", forKey: KeychainAttributes(account: "k\(index)", service: serviceName))
        }
        service.killDaemon()
        try service.startDaemon()
        var lost: [Int] = []
        for index in 0..<count {
            let value = try keychain.value(forKey: KeychainAttributes(account: "k\(index)", service: serviceName))
            if value != "value-\(index)-ü" { lost.append(index) }
        }
        #expect(lost.isEmpty, "\(lost.count) of \(count) acknowledged writes lost, first: \(lost.prefix(5))")
    }

    @Test func busGoneIsUnavailableFast() throws {
        let service = try PrivateSecretService()
        let keychain = Keychain(interface: SecretServiceKeychainInterface(busAddress: service.address))
        let key = uniqueKey()
        try keychain.updateValue("v", forKey: key)
        service.killDaemon()
        service.killBus()
        Self.expectFailsFast(keychain, key, with: .serviceUnavailable)
    }

    @Test func daemonKilledDuringConcurrentCalls() throws {
        let service = try PrivateSecretService()
        let keychain = Keychain(interface: SecretServiceKeychainInterface(busAddress: service.address))
        let serviceName = uniqueService()
        let outcomes = Counter()
        let unexpected = Counter()
        // Four threads work while a fifth kills the daemon under them.
        DispatchQueue.concurrentPerform(iterations: 5) { thread in
            if thread == 4 {
                usleep(50_000)
                service.killDaemon()
                return
            }
            for index in 0..<200 {
                let key = KeychainAttributes(account: "t\(thread)-\(index % 5)", service: serviceName)
                do throws(KeychainError) {
                    try keychain.updateValue("v\(index)", forKey: key)
                    _ = try keychain.value(forKey: key)
                } catch .serviceUnavailable {
                } catch {
                    unexpected.increment()
                }
                outcomes.increment()
            }
        }
        #expect(outcomes.value == 800, "every call returned")
        #expect(unexpected.value == 0, "only serviceUnavailable while the daemon was down")
        try service.startDaemon()
        try keychain.updateValue("back", forKey: KeychainAttributes(account: "after", service: serviceName))
        #expect(try keychain.value(forKey: KeychainAttributes(account: "after", service: serviceName)) == "back")
    }

    @Test func aDaemonThatStopsAnsweringCostsOneTimeoutThenRecovers() throws {
        let service = try PrivateSecretService()
        let timeout: Duration = .milliseconds(500)
        let keychain = Keychain(interface: SecretServiceKeychainInterface(busAddress: service.address, timeout: timeout))
        let key = uniqueKey()
        try keychain.updateValue("before", forKey: key)
        let other = uniqueKey("other")  // not remembered: the call must reach the daemon
        service.freezeDaemon(true)
        let elapsed = ContinuousClock().measure {
            #expect(throws: KeychainError.serviceUnavailable) { try keychain.value(forKey: other) }
        }
        #expect(elapsed >= timeout && elapsed < timeout * 4, "a stuck daemon costs one timeout, not more: \(elapsed)")
        service.freezeDaemon(false)
        #expect(try keychain.value(forKey: key) == "before", "the same keychain works once the daemon answers again")
    }
}
