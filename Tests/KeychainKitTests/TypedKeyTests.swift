// SPDX-License-Identifier: MIT
#if canImport(Glibc)
import Glibc
#endif
import KeychainKit
import Observation
import Testing

/// KeychainKey, KeychainItem, @KeychainStorage and the async forms, on
/// every backend.
@Suite("Typed keys")
struct TypedKeyTests {

    @Test(arguments: Backend.allCases)
    func textIsStoredAsUTF8BytesOtherToolsRead(_ backend: Backend) throws {
        let keychain = Keychain(interface: try backend.makeInterface())
        let attributes = uniqueKey()
        let key = KeychainKey<String>(attributes.account, service: attributes.service)
        #expect(try keychain.value(for: key) == nil)
        try keychain.set("héllo", for: key)
        #expect(try keychain.value(for: key) == "héllo")
        #expect(try keychain.data(forKey: attributes) == Array("héllo".utf8), "raw UTF-8, no framing")
        try keychain.updateValue("from the untyped API", forKey: attributes)
        #expect(try keychain.value(for: key) == "from the untyped API")
        try keychain.set(nil, for: key)
        #expect(try keychain.value(for: key) == nil)
        #expect(try !keychain.contains(attributes), "nil removes the item")
    }

    @Test(arguments: Backend.allCases)
    func bytesAreStoredAsTheyAre(_ backend: Backend) throws {
        let keychain = Keychain(interface: try backend.makeInterface())
        let attributes = uniqueKey()
        let key = KeychainKey<[UInt8]>(attributes.account, service: attributes.service)
        let bytes: [UInt8] = [0, 0xff, 0x80, 0, 7]
        try keychain.set(bytes, for: key)
        #expect(try keychain.value(for: key) == bytes)
        #expect(try keychain.data(forKey: attributes) == bytes)
        try keychain.set(nil, for: key)
    }

    @Test func aStringLiteralIsATextKeyInTheDefaultService() {
        let key: KeychainKey<String> = "apiToken"
        #expect(key.attributes == KeychainAttributes(account: "apiToken"))
    }

    @Test(arguments: Backend.allCases)
    func bytesThatHoldNoValueReadAsAbsentAndAreReplaced(_ backend: Backend) throws {
        let keychain = Keychain(interface: try backend.makeInterface())
        let attributes = uniqueKey()
        let number = KeychainKey<Int>(
            attributes.account, service: attributes.service,
            encode: { value in Array(String(value).utf8) },
            decode: { bytes in Int(String(decoding: bytes, as: UTF8.self)) })
        try keychain.set(42, for: number)
        #expect(try keychain.value(for: number) == 42)
        try keychain.updateValue("not a number", forKey: attributes)
        #expect(try keychain.value(for: number) == nil)
        #expect(try keychain.contains(attributes), "present, though no Int")
        try keychain.set(7, for: number)
        #expect(try keychain.value(for: number) == 7)
        try keychain.removeValue(forKey: attributes)
    }

    @Test func anEncodingFailureStoresNothing() throws {
        let keychain = Keychain(interface: InMemoryKeychainInterface())
        let refusing = KeychainKey<Int>("k", encode: { _ throws(KeychainError) in throw .invalidArgument }, decode: { _ in 0 })
        #expect(throws: KeychainError.invalidArgument) { try keychain.set(1, for: refusing) }
        #expect(try !keychain.contains(refusing.attributes))
    }

    @Test(arguments: Backend.allCases)
    func anItemReadsWritesAndHearsEveryWrite(_ backend: Backend) throws {
        let keychain = Keychain(interface: try backend.makeInterface())
        let attributes = uniqueKey()
        let item = KeychainItem(KeychainKey<String>(attributes.account, service: attributes.service), in: keychain)
        #expect(item.value == nil)
        item.value = "one"
        #expect(item.value == "one")
        #expect(try keychain.value(forKey: attributes) == "one")

        let probe = TrackingProbe()
        probe.track { _ = item.value }
        try keychain.updateValue("two", forKey: attributes)  // through the keychain, not the item
        #expect(probe.fired == 1)
        #expect(try item.load() == "two")
        try item.store(nil)
        #expect(item.value == nil)
    }

    @Test(arguments: Backend.hearingOthers)
    func anItemHearsWritesMadeElsewhere(_ backend: Backend) throws {
        let (mine, theirs) = try backend.makeInterfacePair()
        let attributes = uniqueKey()
        let key = KeychainKey<String>(attributes.account, service: attributes.service)
        let item = KeychainItem(key, in: Keychain(interface: mine))
        let elsewhere = Keychain(interface: theirs)
        let probe = TrackingProbe()
        probe.track { _ = item.value }
        try elsewhere.set("written elsewhere", for: key)
        for _ in 0..<500 where probe.fired == 0 { usleep(10_000) }  // at most 5 s
        #expect(probe.fired >= 1)
        #expect(item.value == "written elsewhere")
        try elsewhere.set(nil, for: key)
    }

    /// One write, here or through another handle, is one invalidation of
    /// an item's readers (the keychain's Observation and the item's own
    /// observer once told them twice).
    @Test(arguments: Backend.hearingOthers)
    func oneWriteInvalidatesAnItemOnce(_ backend: Backend) throws {
        let (mine, theirs) = try backend.makeInterfacePair()
        let attributes = uniqueKey()
        let key = KeychainKey<String>(attributes.account, service: attributes.service)
        let keychain = Keychain(interface: mine)
        let item = KeychainItem(key, in: keychain)
        let heard = Protected<[KeychainChange]>([])
        let token = keychain.addObserver(forKey: attributes) { change in heard.withLock { $0.append(change) } }
        defer { keychain.removeObserver(token) }
        let probe = RetrackingProbe()
        probe.track { _ = item.value }
        defer { probe.stop() }
        let elsewhere = Keychain(interface: theirs)
        let writes: [(String, Keychain<CountingInterface>, String?)] = [
            ("create elsewhere", elsewhere, "one"), ("update elsewhere", elsewhere, "two"),
            ("update here", keychain, "three"), ("remove elsewhere", elsewhere, nil),
        ]
        for (write, through, value) in writes {
            heard.withLock { $0 = [] }
            probe.reset()
            try through.set(value, for: key)
            for _ in 0..<500 where heard.withLock({ $0.isEmpty }) { usleep(10_000) }  // at most 5 s
            usleep(1_000_000)  // and whatever else the write brings
            #expect(heard.withLock { $0.count } == 1, "\(write): \(heard.withLock { $0 })")
            #expect(probe.fired == 1, "\(write)")
            #expect(item.value == value)
        }
    }

    @Test(arguments: Backend.allCases)
    func keychainStorageIsAPropertyBackedByAnItem(_ backend: Backend) throws {
        let keychain = Keychain(interface: try backend.makeInterface())
        let service = uniqueService()
        struct Settings {
            @KeychainStorage var apiKey: String?
        }
        let settings = Settings(apiKey: KeychainStorage("apiKey", service: service, in: keychain))
        #expect(settings.apiKey == nil)
        settings.apiKey = "k-123"
        #expect(settings.apiKey == "k-123")
        #expect(try keychain.value(forKey: KeychainAttributes(account: "apiKey", service: service)) == "k-123")
        #expect(try settings.$apiKey.load() == "k-123")
        settings.apiKey = nil
        #expect(try !keychain.contains(KeychainAttributes(account: "apiKey", service: service)))
    }

    @Test func anItemStopsObservingWhenReleased() throws {
        let keychain = Keychain(interface: InMemoryKeychainInterface())
        var item: KeychainItem<String>? = KeychainItem("k", in: keychain)
        weak let released = item
        item = nil
        #expect(released == nil, "the observer does not keep the item alive")
        try keychain.updateValue("after", forKey: "k")  // no observer left to call
    }
}

@Suite("Async")
struct AsyncTests {

    @Test(arguments: Backend.allCases)
    func asyncFormsRoundTrip(_ backend: Backend) async throws {
        let keychain = Keychain(interface: try backend.makeInterface())
        let attributes = uniqueKey()
        let key = KeychainKey<String>(attributes.account, service: attributes.service)
        try await keychain.set("async", for: key)
        #expect(try await keychain.value(for: key) == "async")
        #expect(try await keychain.value(forKey: attributes) == "async")
        #expect(try await keychain.contains(attributes))
        #expect(try await keychain.accounts(inService: attributes.service) == [attributes.account])
        try await keychain.updateData([1, 2], forKey: attributes)
        #expect(try await keychain.data(forKey: attributes) == [1, 2])
        try await keychain.removeValue(forKey: attributes)
        #expect(try await keychain.value(for: key) == nil)
    }

    @Test func aCancelledTaskDoesNotCallTheBackend() async throws {
        let interface = CountingInterface(InMemoryKeychainInterface())
        let keychain = Keychain(interface: interface)
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await keychain.value(forKey: "k")
        }
        await #expect(throws: KeychainError.userCanceled) { try await task.value }
        #expect(interface.calls.isEmpty)
    }

    /// The backend call waits for a main-actor task: were it run on the
    /// main actor, that task could never run (the call would give up after
    /// 5 s and report it).
    @MainActor @Test func theBackendCallRunsOffTheCallersActor() async throws {
        let gate = Gate()
        let keychain = Keychain(interface: GatedInterface(gate: gate))
        Task { @MainActor in gate.open() }
        #expect(try await keychain.value(forKey: "k") == nil)
        #expect(!gate.waitedOut, "the read ran on the main actor, which the opener needed")
    }
}

/// Opened once; remembers whether a waiter gave up.
final class Gate: Sendable {
    private let state = Protected((open: false, waitedOut: false))
    var waitedOut: Bool { state.withLock { $0.waitedOut } }
    func open() { state.withLock { $0.open = true } }
    func wait() {
        for _ in 0..<500 where !state.withLock({ $0.open }) { usleep(10_000) }
        state.withLock { if !$0.open { $0.waitedOut = true } }
    }
}

/// An empty in-memory backend whose reads wait for the gate.
final class GatedInterface: KeychainInterfaceProtocol, Sendable {
    let gate: Gate
    private let inner = InMemoryKeychainInterface()
    init(gate: Gate) { self.gate = gate }
    func readItem(_ key: KeychainAttributes) throws(KeychainError) -> [UInt8]? {
        gate.wait()
        return try inner.readItem(key)
    }
    func updateItem(_ key: KeychainAttributes, value: [UInt8]) throws(KeychainError) { try inner.updateItem(key, value: value) }
    func insertItem(_ key: KeychainAttributes, value: [UInt8]) throws(KeychainError) { try inner.insertItem(key, value: value) }
    func deleteItem(_ key: KeychainAttributes) throws(KeychainError) { try inner.deleteItem(key) }
    func accounts(inService service: String) throws(KeychainError) -> [String] { try inner.accounts(inService: service) }
}
