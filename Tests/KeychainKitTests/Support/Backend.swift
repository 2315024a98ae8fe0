// SPDX-License-Identifier: MIT
import KeychainKit
import Synchronization
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The backends every behavioural test runs against.
enum Backend: String, CaseIterable, CustomTestStringConvertible, Sendable {
    case memory
    case secretService
    case kernel
    case file

    /// The backends that report changes made elsewhere (the kernel keyring
    /// announces none).
    static let hearingOthers: [Backend] = [.memory, .secretService, .file]

    /// The backends that store empty values, and values of any size up to
    /// `KK_MAX_VALUE_SIZE` (the kernel keyring stores 1 to 32767 bytes).
    static let anySize: [Backend] = [.memory, .secretService, .file]

    var testDescription: String { rawValue }

    /// A fresh interface of this backend, behind a call counter (a concrete
    /// type, so that `Keychain(interface:)` accepts it).
    ///
    /// The Secret Service backend is only used inside the private keyring of
    /// `scripts/with-secret-service.sh`, the kernel one in the throw-away
    /// session keyring of `scripts/with-session-keyring.sh`; elsewhere the
    /// test fails rather than touch the user's real keyrings.
    func makeInterface() throws -> CountingInterface {
        switch self {
        case .memory:
            return CountingInterface(InMemoryKeychainInterface())
        case .secretService:
            try requirePrivateKeyring()
            return CountingInterface(SecretServiceKeychainInterface())
        case .kernel:
            try requirePrivateSessionKeyring()
            return CountingInterface(KernelKeyringInterface(keyring: .session))
        case .file:
            return CountingInterface(try FileKeychainInterface(path: newKeyringFilePath(), master: .secret(testMaster)))
        }
    }
}

/// The master secret of the file backend's test keychains.
let testMaster = Array("swift-test-master".utf8)

/// A path for a new keyring file, in a private directory of this process's
/// (under $TMPDIR or /tmp), not yet created.
func newKeyringFilePath() -> String {
    let number = keyringFileCounter.add(1, ordering: .relaxed).oldValue
    return "\(keyringFileDirectory)/\(number).keyring"
}

private let keyringFileCounter = Atomic<Int>(0)

private let keyringFileDirectory: String = {
    let base = getenv("TMPDIR").map { String(cString: $0) } ?? "/tmp"
    var template = Array("\(base)/keychainkit-swift-tests.XXXXXX".utf8CString)
    let made = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
    precondition(made != nil, "mkdtemp failed")
    return template.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
}()

extension Backend {

    /// Two interfaces on the same items, as two processes have: in memory,
    /// one sharing the other's items; on the Secret Service, two
    /// connections; in the kernel, two interfaces on one keyring.
    func makeInterfacePair() throws -> (CountingInterface, CountingInterface) {
        switch self {
        case .memory:
            let first = InMemoryKeychainInterface()
            return (CountingInterface(first), CountingInterface(InMemoryKeychainInterface(sharingItemsWith: first)))
        case .secretService, .kernel:
            return (try makeInterface(), try makeInterface())
        case .file:
            let path = newKeyringFilePath()
            return (CountingInterface(try FileKeychainInterface(path: path, master: .secret(testMaster))),
                    CountingInterface(try FileKeychainInterface(path: path, master: .secret(testMaster))))
        }
    }
}

/// A test refused to run outside its throw-away harness, rather than touch
/// the user's real keyrings.
struct OutsideHarness: Error, CustomStringConvertible {
    let description: String
}

/// Throws unless `variable` is "private", as the harness sets it.
private func requireHarness(_ variable: String, _ refusal: String) throws {
    guard let value = getenv(variable), String(cString: value) == "private" else {
        throw OutsideHarness(description: refusal)
    }
}

/// Throws unless the test runs inside the private keyring of the harness.
func requirePrivateKeyring() throws {
    try requireHarness("KEYCHAINKIT_TEST_KEYRING",
        "Secret Service tests run only inside scripts/with-secret-service.sh (make test); refusing to use the real keyring")
}

/// Throws unless the test runs in the throw-away session keyring of the harness.
func requirePrivateSessionKeyring() throws {
    try requireHarness("KEYCHAINKIT_TEST_SESSION_KEYRING",
        "kernel keyring tests run only inside scripts/with-session-keyring.sh (make test-swift); refusing to use the real session keyring")
}

/// A service name no other test uses, so tests can run in parallel against
/// one keyring.
func uniqueService(_ label: String = #function) -> String {
    let name = label.prefix { $0.isLetter || $0.isNumber }
    return "kktest.\(name).\(UInt64.random(in: 0...UInt64.max))"
}

/// A key in a service of its own.
func uniqueKey(_ account: String = "token", _ label: String = #function) -> KeychainAttributes {
    KeychainAttributes(account: account, service: uniqueService(label))
}
