// SPDX-License-Identifier: MIT
import KeychainKit
import Testing

@Suite("Reference semantics")
struct ReferenceSemanticsTests {

    @Test(arguments: Backend.allCases)
    func insertReadUpdateRemove(_ backend: Backend) throws {
        let keychain = Keychain(interface: try backend.makeInterface())
        let key = uniqueKey()
        #expect(try keychain.value(forKey: key) == nil)
        try keychain.updateValue("first", forKey: key)
        #expect(try keychain.value(forKey: key) == "first")
        try keychain.updateValue("second", forKey: key)
        #expect(try keychain.value(forKey: key) == "second")
        try keychain.removeValue(forKey: key)
        #expect(try keychain.value(forKey: key) == nil)
    }

    @Test(arguments: Backend.allCases)
    func containsTellsPresenceWithoutReadingTheValue(_ backend: Backend) throws {
        let interface = try backend.makeInterface()
        let keychain = Keychain(interface: interface)
        let key = uniqueKey(), bytes = uniqueKey("bytes")
        #expect(try keychain.contains(key) == false)
        #expect(try keychain.contains(key) == false, "a remembered absence is confirmed, not assumed")
        try keychain.updateValue("v", forKey: key)
        #expect(try keychain.contains(key) == true)
        try interface.insertItem(bytes, value: [0xff, 0xfe])
        #expect(try keychain.contains(bytes) == true, "a value that is not UTF-8 exists")
        #expect(try keychain.value(forKey: bytes) == nil)
        try keychain.removeValue(forKey: key)
        try keychain.removeValue(forKey: bytes)
        #expect(try keychain.contains(key) == false)
        #expect(throws: KeychainError.invalidArgument) {
            try keychain.contains(KeychainAttributes(account: key.account, service: ""))
        }
    }

    @Test(arguments: Backend.allCases)
    func removingAnAbsentItemSucceeds(_ backend: Backend) throws {
        let keychain = Keychain(interface: try backend.makeInterface())
        try keychain.removeValue(forKey: uniqueKey())
    }

    @Test(arguments: Backend.allCases)
    func keysAreIndependent(_ backend: Backend) throws {
        let keychain = Keychain(interface: try backend.makeInterface())
        let service = uniqueService()
        let a = KeychainAttributes(account: "a", service: service)
        let b = KeychainAttributes(account: "b", service: service)
        let otherService = KeychainAttributes(account: "a", service: uniqueService())
        try keychain.updateValue("A", forKey: a)
        try keychain.updateValue("B", forKey: b)
        try keychain.updateValue("C", forKey: otherService)
        #expect(try keychain.value(forKey: a) == "A")
        #expect(try keychain.value(forKey: b) == "B")
        #expect(try keychain.value(forKey: otherService) == "C")
        try keychain.removeValue(forKey: a)
        #expect(try keychain.value(forKey: b) == "B")
        #expect(try keychain.value(forKey: otherService) == "C")
    }

    @Test(arguments: Backend.allCases)
    func subscripts(_ backend: Backend) throws {
        let keychain = Keychain(interface: try backend.makeInterface())
        let key = uniqueKey()
        #expect(keychain[key] == nil)
        #expect(keychain[key, default: "light"] == "light")
        keychain[key] = "dark"
        #expect(keychain[key] == "dark")
        #expect(keychain[key, default: "light"] == "dark")
        keychain[key] = nil
        #expect(keychain[key] == nil)
        #expect(try keychain.value(forKey: key) == nil)
    }

    @Test(arguments: Backend.allCases)
    func subscriptsDiscardErrorsThrowingMethodsDoNot(_ backend: Backend) throws {
        let scripted = ScriptedInterface(try backend.makeInterface())
        let keychain = Keychain(interface: scripted)
        let key = uniqueKey()
        try keychain.updateValue("kept", forKey: key)
        scripted.fail(.read, with: .interactionNotAllowed)
        #expect(keychain[key] == nil)
        #expect(keychain[key, default: "fallback"] == "fallback")
        #expect(throws: KeychainError.interactionNotAllowed) { try keychain.value(forKey: key) }
        scripted.fail(.update, with: .interactionNotAllowed)
        keychain[key] = "lost"  // discarded, no crash
        #expect(throws: KeychainError.interactionNotAllowed) { try keychain.updateValue("lost", forKey: key) }
        scripted.fail(.read, with: nil)
        #expect(try keychain.value(forKey: key) == "kept")
    }

    // MARK: Operation cost

    @Test(arguments: Backend.allCases)
    func operationCost(_ backend: Backend) throws {
        let counting = CountingInterface(try backend.makeInterface())
        let keychain = Keychain(interface: counting)
        let key = uniqueKey()

        try keychain.updateValue("new", forKey: key)
        #expect(counting.calls == [.update, .insert], "inserting an absent item costs two calls")

        counting.reset()
        try keychain.updateValue("changed", forKey: key)
        #expect(counting.calls == [.update], "updating an existing item costs one call")

        counting.reset()
        try keychain.updateValue("changed", forKey: key)
        #expect(counting.calls == [.update], "an equal-value write still reaches storage")

        counting.reset()
        _ = try keychain.value(forKey: key)
        #expect(counting.calls == [.read])

        counting.reset()
        try keychain.removeValue(forKey: key)
        #expect(counting.calls == [.delete])

        counting.reset()
        try keychain.removeValue(forKey: key)
        #expect(counting.calls == [.delete], "removing an absent item costs one call and succeeds")
    }

    @Test(arguments: Backend.allCases)
    func insertCollisionRetriesTheUpdateOnce(_ backend: Backend) throws {
        let scripted = ScriptedInterface(try backend.makeInterface())
        let counting = CountingInterface(scripted)
        let keychain = Keychain(interface: counting)
        let key = uniqueKey()

        scripted.competeOnNextInsert(with: Array("theirs".utf8))
        try keychain.updateValue("ours", forKey: key)
        #expect(counting.calls == [.update, .insert, .update])
        #expect(try keychain.value(forKey: key) == "ours")
    }

    @Test(arguments: Backend.allCases)
    func insertingOverAnotherWritersItemReplacesItsValue(_ backend: Backend) throws {
        let interface = try backend.makeInterface()
        let key = uniqueKey()
        try interface.insertItem(key, value: Array("theirs".utf8))
        try interface.insertItem(key, value: Array("ours".utf8))
        #expect(try interface.readItem(key) == Array("ours".utf8))
        if backend == .secretService {
            #expect(try SecretServiceAdmin().itemCount(service: key.service, account: key.account) == 1)
        }
    }

    @Test(arguments: Backend.allCases)
    func theFinalUpdatesErrorPropagates(_ backend: Backend) throws {
        let scripted = ScriptedInterface(try backend.makeInterface())
        let counting = CountingInterface(scripted)
        let keychain = Keychain(interface: counting)
        let key = uniqueKey()

        scripted.fail(.update, with: .itemNotFound)
        scripted.fail(.insert, with: .duplicateItem)
        #expect(throws: KeychainError.itemNotFound) { try keychain.updateValue("x", forKey: key) }
        #expect(counting.calls == [.update, .insert, .update], "the update is retried exactly once")
    }

    @Test(arguments: Backend.allCases)
    func insertErrorsOtherThanDuplicatePropagate(_ backend: Backend) throws {
        let scripted = ScriptedInterface(try backend.makeInterface())
        let counting = CountingInterface(scripted)
        let keychain = Keychain(interface: counting)
        scripted.fail(.insert, with: .interactionNotAllowed)
        #expect(throws: KeychainError.interactionNotAllowed) { try keychain.updateValue("x", forKey: uniqueKey()) }
        #expect(counting.calls == [.update, .insert])
    }

    @Test(arguments: Backend.allCases)
    func removalErrorsPropagate(_ backend: Backend) throws {
        let scripted = ScriptedInterface(try backend.makeInterface())
        let keychain = Keychain(interface: scripted)
        scripted.fail(.delete, with: .serviceUnavailable)
        #expect(throws: KeychainError.serviceUnavailable) { try keychain.removeValue(forKey: uniqueKey()) }
    }

    // MARK: Freshness

    @Test(arguments: Backend.allCases)
    func readsAreFresh(_ backend: Backend) throws {
        let interface = try backend.makeInterface()
        let keychain = Keychain(interface: interface)
        let other = Keychain(interface: interface)
        let key = uniqueKey()
        #expect(try keychain.value(forKey: key) == nil)
        try other.updateValue("external", forKey: key)
        #expect(try keychain.value(forKey: key) == "external", "a missing item is not cached")
        try interface.updateItem(key, value: Array("direct".utf8))
        #expect(try keychain.value(forKey: key) == "direct", "a value is not cached")
        try interface.deleteItem(key)
        #expect(try keychain.value(forKey: key) == nil)
    }

    @Test(arguments: Backend.allCases)
    func errorsAreNotCached(_ backend: Backend) throws {
        let scripted = ScriptedInterface(try backend.makeInterface())
        let keychain = Keychain(interface: scripted)
        let key = uniqueKey()
        try keychain.updateValue("v", forKey: key)
        scripted.fail(.read, with: .interactionNotAllowed)
        #expect(throws: KeychainError.interactionNotAllowed) { try keychain.value(forKey: key) }
        scripted.fail(.read, with: nil)
        #expect(try keychain.value(forKey: key) == "v")
    }

    // MARK: Values

    @Test(arguments: Backend.allCases)
    func invalidUTF8ReadsAsAbsentAndIsReplacedByTheNextWrite(_ backend: Backend) throws {
        let interface = try backend.makeInterface()
        let keychain = Keychain(interface: interface)
        let key = uniqueKey()
        let invalid: [UInt8] = [0xff, 0xfe, 0x00, 0x41]
        try interface.insertItem(key, value: invalid)
        #expect(try keychain.value(forKey: key) == nil)
        #expect(keychain[key] == nil)
        #expect(try keychain.data(forKey: key) == invalid, "the bytes API returns it as is")
        try keychain.updateValue("valid", forKey: key)
        #expect(try keychain.value(forKey: key) == "valid")
    }

    @Test(arguments: Backend.allCases)
    func textValuesRoundTrip(_ backend: Backend) throws {
        let keychain = Keychain(interface: try backend.makeInterface())
        let key = uniqueKey()
        for value in ["ünïcödé — 鍵 🔑", "line\nbreak\ttab", String(repeating: "x", count: 4096)] {
            try keychain.updateValue(value, forKey: key)
            #expect(try keychain.value(forKey: key) == value)
        }
    }

    @Test(arguments: Backend.anySize)
    func emptyValueIsPresentNotAbsent(_ backend: Backend) throws {
        let keychain = Keychain(interface: try backend.makeInterface())
        let key = uniqueKey()
        try keychain.updateValue("", forKey: key)
        #expect(try keychain.value(forKey: key) == "")
        #expect(try keychain.data(forKey: key) == [])
    }

    @Test(arguments: Backend.allCases)
    func bytesWithNULRoundTrip(_ backend: Backend) throws {
        let keychain = Keychain(interface: try backend.makeInterface())
        let key = uniqueKey()
        let bytes: [UInt8] = [0, 1, 2, 0, 255, 0]
        try keychain.updateData(bytes, forKey: key)
        #expect(try keychain.data(forKey: key) == bytes)
        let allBytes = (0...255).map(UInt8.init)
        try keychain.updateData(allBytes, forKey: key)
        #expect(try keychain.data(forKey: key) == allBytes)
    }

    @Test(arguments: Backend.anySize)
    func oneMebibyteValue(_ backend: Backend) throws {
        let keychain = Keychain(interface: try backend.makeInterface())
        let key = uniqueKey()
        var generator = SystemRandomNumberGenerator()
        let big = (0..<(1 << 20)).map { _ in UInt8.random(in: 0...255, using: &generator) }
        try keychain.updateData(big, forKey: key)
        #expect(try keychain.data(forKey: key) == big)
        try keychain.removeValue(forKey: key)
    }

    // MARK: Arguments

    @Test(arguments: Backend.allCases)
    func unusableKeysAreInvalidArguments(_ backend: Backend) throws {
        let counting = CountingInterface(try backend.makeInterface())
        let keychain = Keychain(interface: counting)
        let service = uniqueService()
        let bad = [
            KeychainAttributes(account: "a", service: ""),
            KeychainAttributes(account: "", service: ""),
            KeychainAttributes(account: "a\u{0}b", service: service),
            KeychainAttributes(account: "a", service: "s\u{0}"),
        ]
        for key in bad {
            #expect(throws: KeychainError.invalidArgument) { try keychain.value(forKey: key) }
            #expect(throws: KeychainError.invalidArgument) { try keychain.updateValue("v", forKey: key) }
            #expect(throws: KeychainError.invalidArgument) { try keychain.removeValue(forKey: key) }
            #expect(key.invalidReason != nil)
        }
        #expect(counting.calls.isEmpty, "invalid keys never reach storage")
    }

    @Test(arguments: Backend.allCases)
    func anEmptyAccountIsAnOrdinaryKey(_ backend: Backend) throws {
        let keychain = Keychain(interface: try backend.makeInterface())
        let service = uniqueService()
        let empty = KeychainAttributes(account: "", service: service)
        #expect(empty.invalidReason == nil)
        #expect(try keychain.value(forKey: empty) == nil)
        try keychain.updateValue("nobody's", forKey: empty)
        try keychain.updateValue("alice's", forKey: KeychainAttributes(account: "alice", service: service))
        #expect(try keychain.value(forKey: empty) == "nobody's")
        #expect(try keychain.accounts(inService: service) == ["", "alice"])
        try keychain.removeValue(forKey: empty)
        #expect(try keychain.contains(empty) == false)
        #expect(try keychain.accounts(inService: service) == ["alice"], "removing the empty account leaves the others")
        try keychain.removeValue(forKey: KeychainAttributes(account: "alice", service: service))
    }

    @Test func attributes() {
        let literal: KeychainAttributes = "authToken"
        #expect(literal.account == "authToken")
        #expect(literal.service == KeychainAttributes.defaultService)
        #expect(literal == KeychainAttributes(account: "authToken"))
        #expect(literal != KeychainAttributes(account: "authToken", service: "other"))
        let argument0 = CommandLine.arguments[0]
        #expect(KeychainAttributes.defaultService == String(argument0.split(separator: "/").last!))
        #expect(literal.invalidReason == nil)
    }
}

@Suite("Listing accounts")
struct ListingTests {

    @Test(arguments: Backend.allCases)
    func accountsOfAServiceAreListedSortedWithoutValues(_ backend: Backend) throws {
        let counting = try backend.makeInterface()
        let keychain = Keychain(interface: counting)
        let service = uniqueService()
        #expect(try keychain.accounts(inService: service) == [])
        for account in ["carol", "alice", "bob"] {
            try keychain.updateValue("secret-\(account)", forKey: KeychainAttributes(account: account, service: service))
        }
        try keychain.updateValue("elsewhere", forKey: KeychainAttributes(account: "dave", service: uniqueService()))
        counting.reset()
        #expect(try keychain.accounts(inService: service) == ["alice", "bob", "carol"])
        #expect(counting.calls == [.list], "one storage call, no value read")
        try keychain.removeValue(forKey: KeychainAttributes(account: "bob", service: service))
        #expect(try keychain.accounts(inService: service) == ["alice", "carol"])
        #expect(throws: KeychainError.invalidArgument) { try keychain.accounts(inService: "") }
    }

    @Test(arguments: Backend.allCases)
    func listingErrorsPropagate(_ backend: Backend) throws {
        let scripted = ScriptedInterface(try backend.makeInterface())
        scripted.fail(.list, with: .serviceUnavailable)
        #expect(throws: KeychainError.serviceUnavailable) { try Keychain(interface: scripted).accounts(inService: "s") }
    }
}

@Suite("Keys are bytes")
struct KeyBytesTests {

    /// "é" precomposed and decomposed are equal Swift strings but different
    /// bytes: the Secret Service and other tools keep them apart, so do we.
    @Test(arguments: Backend.allCases)
    func canonicallyEquivalentKeysAreDistinct(_ backend: Backend) throws {
        let keychain = Keychain(interface: try backend.makeInterface())
        let service = uniqueService()
        let precomposed = KeychainAttributes(account: "caf\u{E9}", service: service)
        let decomposed = KeychainAttributes(account: "cafe\u{301}", service: service)
        #expect(precomposed != decomposed)
        #expect(precomposed.account == decomposed.account, "Swift calls the strings equal")
        let log = ChangeLog()
        _ = keychain.addObserver(forKey: precomposed) { log.append($0) }
        try keychain.updateValue("decomposed", forKey: decomposed)
        #expect(try keychain.value(forKey: precomposed) == nil)
        try keychain.updateValue("precomposed", forKey: precomposed)
        #expect(try keychain.value(forKey: decomposed) == "decomposed")
        #expect(try keychain.value(forKey: precomposed) == "precomposed")
        #expect(log.all.count == 1, "only the write to the observed key's bytes notifies")
        #expect(try keychain.accounts(inService: service).count == 2)
    }
}
