// SPDX-License-Identifier: MIT
import KeychainKit
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The file backend's own cases through the Swift API (the behavioural
/// suite runs on it through ``Backend/file``; the C suite and the fuzzer
/// test its format against libsecret and GLib).
@Suite("File store")
struct FileStoreTests {

    @Test func aSecondInterfaceOnTheFileReadsWhatTheFirstWrote() throws {
        let path = newKeyringFilePath()
        let first = Keychain(interface: try FileKeychainInterface(path: path, master: .secret(testMaster)))
        try first.updateValue("kept on disk", forKey: "token")
        let second = Keychain(interface: try FileKeychainInterface(path: path, master: .secret(testMaster)))
        #expect(try second.value(forKey: "token") == "kept on disk")
        #expect(first.storeIdentity == second.storeIdentity)
        #expect(first.persistence == .persistent)
    }

    @Test func aWrongMasterSecretIsNeverAbsent() throws {
        let path = newKeyringFilePath()
        let keychain = Keychain(interface: try FileKeychainInterface(path: path, master: .secret(testMaster)))
        try keychain.updateValue("v", forKey: "k")
        #expect(throws: KeychainError.wrongMasterKey) {
            try FileKeychainInterface(path: path, master: .secret(Array("another".utf8)))
        }
        #expect(FileKeychainInterface.openFailureDetail?.contains(path) == true)
        #expect(throws: KeychainError.noMasterKey) { try FileKeychainInterface(path: path, master: .secret([])) }
    }

    @Test func aFileReplacedUnderneathWithAnotherMasterSecretIsWrongMasterOnTheNextRead() throws {
        let path = newKeyringFilePath()
        let ours = Keychain(interface: try FileKeychainInterface(path: path, master: .secret(testMaster)))
        try ours.updateValue("v", forKey: "k")
        unlink(path)
        let theirs = Keychain(interface: try FileKeychainInterface(path: path, master: .secret(Array("theirs".utf8))))
        try theirs.updateValue("w", forKey: "k")
        #expect(throws: KeychainError.wrongMasterKey) { try ours.value(forKey: "k") }
        #expect(throws: KeychainError.wrongMasterKey) { try ours.updateValue("x", forKey: "k") }
        #expect(try theirs.value(forKey: "k") == "w")  // nothing overwritten
    }

    @Test func migrationFromMemoryToAFileCopiesEveryItem() throws {
        let memory = Keychain(interface: InMemoryKeychainInterface())
        let service = uniqueService()
        for account in ["a", "b", "c"] {
            try memory.updateValue("value of \(account)", forKey: KeychainAttributes(account: account, service: service))
        }
        let file = Keychain(interface: try FileKeychainInterface(path: newKeyringFilePath(), master: .secret(testMaster)))
        _ = try file.migrate(service: service, from: memory)
        #expect(try file.accounts(inService: service) == ["a", "b", "c"])
        #expect(try file.value(forKey: KeychainAttributes(account: "b", service: service)) == "value of b")
    }

    @Test func everyBackendSaysHowLongItsItemsLast() {
        #expect(Keychain(interface: InMemoryKeychainInterface()).persistence == .untilClose)
        #expect(KernelKeyringInterface(keyring: .persistent).persistence == .untilReboot)
        #expect(KernelKeyringInterface(keyring: .user).persistence == .untilLogout)
        #expect(SecretServiceKeychainInterface(collection: "session").persistence == .untilLogout)
        #expect(SecretServiceKeychainInterface().persistence == .persistent)
    }
}
