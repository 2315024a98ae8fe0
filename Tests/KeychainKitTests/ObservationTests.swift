// SPDX-License-Identifier: MIT
import KeychainKit
import Observation

import Testing

/// Counts the `onChange` calls of one `withObservationTracking` registration,
/// and records what storage held at that moment.
final class TrackingProbe: Sendable {
    private let state = Protected<(fired: Int, storedAtNotification: [[UInt8]?])>((0, []))

    var fired: Int { state.withLock { $0.fired } }
    var storedAtNotification: [[UInt8]?] { state.withLock { $0.storedAtNotification } }

    /// Tracks the reads `apply` makes; on change, reads `key` straight from `interface`.
    func track(
        _ apply: () -> Void,
        peeking key: KeychainAttributes? = nil,
        in interface: (any KeychainInterfaceProtocol)? = nil
    ) {
        withObservationTracking(apply) { [self] in
            let stored = key.flatMap { try? interface?.readItem($0) }
            state.withLock {
                $0.fired += 1
                $0.storedAtNotification.append(stored)
            }
        }
    }
}

/// Counts the invalidations of what `apply` reads, tracking it again at
/// each (Observation's tracking fires once), until stopped.
final class RetrackingProbe: Sendable {
    private let state = Protected<(fired: Int, stopped: Bool)>((0, false))

    var fired: Int { state.withLock { $0.fired } }

    func reset() { state.withLock { $0.fired = 0 } }

    func stop() { state.withLock { $0.stopped = true } }

    func track(_ apply: @escaping @Sendable () -> Void) {
        withObservationTracking(apply) { [self] in
            guard !state.withLock({ $0.fired += 1; return $0.stopped }) else { return }
            track(apply)
        }
    }
}

@Suite("Observation")
struct ObservationTests {

    @Test(arguments: Backend.allCases)
    func aWriteToAnotherKeyDoesNotNotify(_ backend: Backend) throws {
        let keychain = Keychain(interface: try backend.makeInterface())
        let service = uniqueService()
        let a = KeychainAttributes(account: "a", service: service)
        let b = KeychainAttributes(account: "b", service: service)
        let probe = TrackingProbe()
        probe.track { _ = keychain[b] }
        try keychain.updateValue("x", forKey: a)
        try keychain.removeValue(forKey: a)
        #expect(probe.fired == 0)
        try keychain.updateValue("y", forKey: b)
        #expect(probe.fired == 1)
    }

    @Test(arguments: Backend.allCases)
    func everyReadAPITracks(_ backend: Backend) throws {
        let keychain = Keychain(interface: try backend.makeInterface())
        let key = uniqueKey()
        let reads: [(String, () -> Void)] = [
            ("subscript", { _ = keychain[key] }),
            ("default subscript", { _ = keychain[key, default: "d"] }),
            ("value(forKey:)", { _ = try? keychain.value(forKey: key) }),
            ("data(forKey:)", { _ = try? keychain.data(forKey: key) }),
        ]
        for (name, read) in reads {
            let probe = TrackingProbe()
            probe.track(read)
            try keychain.updateValue(name, forKey: key)
            #expect(probe.fired == 1, "\(name)")
        }
    }

    @Test(arguments: Backend.allCases)
    func equalValueWritesNotify(_ backend: Backend) throws {
        let keychain = Keychain(interface: try backend.makeInterface())
        let key = uniqueKey()
        try keychain.updateValue("same", forKey: key)
        let probe = TrackingProbe()
        probe.track { _ = keychain[key] }
        try keychain.updateValue("same", forKey: key)
        #expect(probe.fired == 1)
    }

    @Test(arguments: Backend.allCases)
    func absentRemovalsNotify(_ backend: Backend) throws {
        let keychain = Keychain(interface: try backend.makeInterface())
        let key = uniqueKey()
        let probe = TrackingProbe()
        probe.track { _ = keychain[key] }
        try keychain.removeValue(forKey: key)
        #expect(probe.fired == 1)
    }

    @Test(arguments: Backend.allCases)
    func failedOperationsNotify(_ backend: Backend) throws {
        let scripted = ScriptedInterface(try backend.makeInterface())
        let keychain = Keychain(interface: scripted)
        let key = uniqueKey()
        scripted.fail(.update, with: .interactionNotAllowed)
        scripted.fail(.delete, with: .interactionNotAllowed)

        let probe = TrackingProbe()
        probe.track { _ = keychain[key] }
        #expect(throws: KeychainError.interactionNotAllowed) { try keychain.updateValue("v", forKey: key) }
        #expect(probe.fired == 1)

        let second = TrackingProbe()
        second.track { _ = keychain[key] }
        #expect(throws: KeychainError.interactionNotAllowed) { try keychain.removeValue(forKey: key) }
        #expect(second.fired == 1)

        let third = TrackingProbe()
        third.track { _ = keychain[key] }
        keychain[key] = "discarded"
        #expect(third.fired == 1, "a subscript write that fails still notifies")
    }

    @Test(arguments: Backend.allCases)
    func notificationComesBeforeTheMutation(_ backend: Backend) throws {
        let interface = try backend.makeInterface()
        let keychain = Keychain(interface: interface)
        let key = uniqueKey()
        try keychain.updateValue("old", forKey: key)

        let probe = TrackingProbe()
        probe.track({ _ = keychain[key] }, peeking: key, in: interface)
        try keychain.updateValue("new", forKey: key)
        #expect(probe.storedAtNotification == [Array("old".utf8)])

        let removal = TrackingProbe()
        removal.track({ _ = keychain[key] }, peeking: key, in: interface)
        try keychain.removeValue(forKey: key)
        #expect(removal.storedAtNotification == [Array("new".utf8)])
    }

    @Test(arguments: Backend.allCases)
    func otherInstancesDoNotNotify(_ backend: Backend) throws {
        let interface = try backend.makeInterface()
        let keychain = Keychain(interface: interface)
        let other = Keychain(interface: interface)
        let key = uniqueKey()
        let probe = TrackingProbe()
        probe.track { _ = keychain[key] }
        try other.updateValue("external", forKey: key)
        #expect(probe.fired == 0)
        #expect(keychain[key] == "external")
    }
}
