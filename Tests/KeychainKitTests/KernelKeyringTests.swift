// SPDX-License-Identifier: MIT
import KeychainKit
import Testing

/// The kernel keyring backend's own cases (the behavioural suite runs on it
/// through ``Backend/kernel``, in the session keyring).
@Suite("Kernel keyring")
struct KernelKeyringTests {

    /// A keychain in the throw-away session keyring.
    static func sessionKeychain() throws -> Keychain<KernelKeyringInterface> {
        try requirePrivateSessionKeyring()
        return Keychain(interface: KernelKeyringInterface(keyring: .session))
    }

    @Test func theDefaultIsThePersistentKeyringSharedByInterfaces() throws {
        let first = Keychain(interface: KernelKeyringInterface())
        let second = Keychain(interface: KernelKeyringInterface(keyring: .persistent))
        #expect(first.interface.keyring == .persistent)
        let key = uniqueKey()
        try first.updateValue("shared", forKey: key)
        defer { try? first.removeValue(forKey: key) }
        #expect(try second.value(forKey: key) == "shared")
        try second.removeValue(forKey: key)
        #expect(try first.value(forKey: key) == nil)
    }

    @Test func colonsInServicesAndAccountsNeverMakeTwoKeysOne() throws {
        let keychain = try Self.sessionKeychain()
        let service = uniqueService()
        let a = KeychainAttributes(account: "b:c", service: service)
        let b = KeychainAttributes(account: "c", service: service + ":b")
        try keychain.updateValue("a", forKey: a)
        try keychain.updateValue("b", forKey: b)
        #expect(try keychain.value(forKey: a) == "a")
        #expect(try keychain.value(forKey: b) == "b")
        #expect(try keychain.accounts(inService: service) == ["b:c"])
        #expect(try keychain.accounts(inService: service + ":b") == ["c"])
        try keychain.removeValue(forKey: a)
        try keychain.removeValue(forKey: b)
    }

    @Test func valuesHold1To32767BytesAndTheDetailSaysSo() throws {
        let keychain = try Self.sessionKeychain()
        let key = uniqueKey()
        #expect(KernelKeyringInterface.maximumValueSize == 32767)
        let largest = [UInt8](repeating: 7, count: KernelKeyringInterface.maximumValueSize)
        try keychain.updateData(largest, forKey: key)
        #expect(throws: KeychainError.invalidArgument) { try keychain.updateData(largest + [7], forKey: key) }
        #expect(throws: KeychainError.invalidArgument) { try keychain.updateData([], forKey: key) }
        #expect(try keychain.data(forKey: key) == largest)
        #expect(keychain.failureDetail(for: .invalidArgument)?.contains("1 to 32767 bytes") == true)
        try keychain.removeValue(forKey: key)
    }

    @Test func theDetailOfUnavailableNamesSeccomp() {
        let detail = KernelKeyringInterface().failureDetail(for: .serviceUnavailable) ?? ""
        #expect(detail.contains("forbidden") && detail.contains("seccomp"), "\(detail)")
    }
}
