// SPDX-License-Identifier: MIT
import KeychainKit
import Observation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Observers hear changes another interface (another process, on the Secret
/// Service) makes, once each, and their own writes only as such.
@Suite("Changes made elsewhere")
struct OutsideChangeTests {

    @Test(arguments: Backend.hearingOthers)
    func anotherInterfacesWritesReachObservers(_ backend: Backend) throws {
        let (mine, theirs) = try backend.makeInterfacePair()
        let keychain = Keychain(interface: mine), other = Keychain(interface: theirs)
        let key = uniqueKey(), unrelated = uniqueKey("unrelated")
        let log = ChangeLog()
        _ = keychain.addObserver(forKey: key) { log.append($0) }

        try other.updateValue("created elsewhere", forKey: key)
        #expect(log.waitFor(1, of: key) == [.changed])
        #expect(try keychain.value(forKey: key) == "created elsewhere")
        try other.updateValue("updated elsewhere", forKey: key)
        #expect(log.waitFor(2, of: key) == [.changed, .changed])
        try other.removeValue(forKey: key)
        #expect(log.waitFor(3, of: key) == [.changed, .changed, .deleted])

        try other.updateValue("another key", forKey: unrelated)
        try keychain.updateValue("mine", forKey: key)
        try keychain.removeValue(forKey: key)
        usleep(400_000)
        #expect(log.events(of: key) == [.changed, .changed, .deleted, .update, .remove],
                "own writes once, as attempts; another key not at all")
        #expect(log.all.allSatisfy { $0.key == key && $0.error == nil })
        try other.removeValue(forKey: unrelated)
        keychain.removeAllObservers()
    }

    @Test func secretToolsWritesReachObservers() throws {
        try requirePrivateKeyring()
        let keychain = Keychain()
        let key = uniqueKey()
        let log = ChangeLog()
        _ = keychain.addObserver(forKey: key) { log.append($0) }
        let attributes = ["service", key.service, "username", key.account]
        try run(["secret-tool", "store", "--label=x"] + attributes, input: "created by secret-tool")
        #expect(log.waitFor(1, of: key) == [.changed])
        try run(["secret-tool", "store", "--label=x"] + attributes, input: "replaced by secret-tool")
        #expect(log.waitFor(2, of: key) == [.changed, .changed])
        #expect(try keychain.value(forKey: key) == "replaced by secret-tool")
        try run(["secret-tool", "clear"] + attributes)
        #expect(log.waitFor(3, of: key) == [.changed, .changed, .deleted])
        keychain.removeAllObservers()
    }

    @Test(arguments: Backend.hearingOthers)
    func observationHearsChangesMadeElsewhereToObservedKeys(_ backend: Backend) throws {
        let (mine, theirs) = try backend.makeInterfacePair()
        let keychain = Keychain(interface: mine), other = Keychain(interface: theirs)
        let key = uniqueKey()
        let log = ChangeLog()
        let token = keychain.addObserver(forKey: key) { log.append($0) }
        let probe = TrackingProbe()
        probe.track { _ = keychain[key] }
        try other.updateValue("elsewhere", forKey: key)
        log.waitFor(1, of: key)
        #expect(probe.fired == 1)
        keychain.removeObserver(token)
        try other.removeValue(forKey: key)
    }

    @Test(arguments: Backend.hearingOthers)
    func nothingIsHeardOnceTheLastObserverIsGone(_ backend: Backend) throws {
        let (mine, theirs) = try backend.makeInterfacePair()
        let keychain = Keychain(interface: mine), other = Keychain(interface: theirs)
        let key = uniqueKey()
        let log = ChangeLog()
        let token = keychain.addObserver(forKey: key) { log.append($0) }
        try other.updateValue("1", forKey: key)
        log.waitFor(1, of: key)
        #expect(keychain.removeObserver(token))
        try other.updateValue("2", forKey: key)
        try other.removeValue(forKey: key)
        usleep(400_000)
        #expect(log.events(of: key) == [.changed])
    }

    @Test(arguments: Backend.allCases)
    func aHandlerMayRemoveItselfAndTheKeychainMayGoWhileHandlersRun(_ backend: Backend) throws {
        let (mine, theirs) = try backend.makeInterfacePair()
        var keychain: Keychain<CountingInterface>? = Keychain(interface: mine)
        let other = Keychain(interface: theirs)
        let key = uniqueKey()
        let log = ChangeLog()
        let tokens = Protected<[KeychainObservationToken]>([])
        let token = keychain!.addObserver(forKey: key) { [weak keychain] change in
            usleep(100_000)
            log.append(change)
            if let keychain, let own = tokens.withLock({ $0.first }) { keychain.removeObserver(own) }
        }
        tokens.withLock { $0 = [token] }
        try other.updateValue("1", forKey: key)
        log.waitFor(1, of: key)
        try other.updateValue("2", forKey: key)
        usleep(50_000)
        keychain = nil  // its delivery thread ends, a running handler included
        try other.removeValue(forKey: key)
        #expect(log.events(of: key).count <= 2)
    }
}
