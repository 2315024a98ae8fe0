import Foundation
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
    }

    @Test func noBus() {
        Self.expectUnavailableFast(SecretServiceKeychainInterface(busAddress: "unix:path=/nonexistent/keychainkit-no-bus"))
    }

    @Test func aBusWithoutAProvider() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("kk-bus-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        // A session bus with no service directories: nothing can be activated.
        let config = directory.appendingPathComponent("bus.conf")
        try """
        <busconfig>
          <type>session</type>
          <listen>unix:path=\(directory.path)/bus</listen>
          <auth>EXTERNAL</auth>
          <policy context="default">
            <allow send_destination="*" eavesdrop="true"/>
            <allow eavesdrop="true"/>
            <allow own="*"/>
          </policy>
        </busconfig>
        """.write(to: config, atomically: true, encoding: .utf8)
        let pidFile = directory.appendingPathComponent("pid").path
        let status = system("dbus-daemon --config-file='\(config.path)' --fork --print-pid=1 >'\(pidFile)' 2>/dev/null </dev/null")
        #expect(status == 0)
        let pidText = try String(contentsOfFile: pidFile, encoding: .utf8)
        guard let pid = Int32(pidText.trimmingCharacters(in: .whitespacesAndNewlines)) else {
            Issue.record("dbus-daemon printed no pid: \(pidText)")
            return
        }
        defer { kill(pid, SIGTERM) }
        let address = "unix:path=\(directory.path)/bus"
        Self.expectUnavailableFast(SecretServiceKeychainInterface(busAddress: address))
    }
}
