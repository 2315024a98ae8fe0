// SPDX-License-Identifier: MIT
import KeychainKit
import Testing

/// With no bus, or no provider on it, every operation fails fast with
/// `serviceUnavailable`.
@Suite("Secret Service: unavailable")
struct SecretServiceAvailabilityTests {

    /// The bound for "fast": a missing service must fail well under a second.
    static let fast: Duration = .seconds(1)

    static func expectUnavailableFast(_ interface: SecretServiceKeychainInterface) {
        let keychain = Keychain(interface: interface)
        let key = uniqueKey()
        let clock = ContinuousClock()
        let elapsed = clock.measure {
            #expect(throws: KeychainError.serviceUnavailable) { try keychain.value(forKey: key) }
            #expect(throws: KeychainError.serviceUnavailable) { try keychain.updateValue("v", forKey: key) }
            #expect(throws: KeychainError.serviceUnavailable) { try keychain.removeValue(forKey: key) }
            #expect(keychain[key] == nil)
        }
        #expect(elapsed < fast * 4, "four operations took \(elapsed)")
        // The detail names the alternative for machines without a Secret Service.
        let detail = keychain.failureDetail(for: .serviceUnavailable) ?? ""
        #expect(detail.contains("kk_open_kernel_keyring") && detail.contains("KEYCHAINKIT_BACKEND=kernel"), "\(detail)")
    }

    @Test func noBus() {
        Self.expectUnavailableFast(SecretServiceKeychainInterface(busAddress: "unix:path=/nonexistent/keychainkit-no-bus"))
    }

    @Test func aBusWithoutAProvider() throws {
        let bus = try PrivateSecretService(withDaemon: false)
        Self.expectUnavailableFast(SecretServiceKeychainInterface(busAddress: bus.address))
    }
}
