// SPDX-License-Identifier: MIT
import KeychainKit
import Testing

/// The prompt policy: what `automatic` means, and `never` on a locked
/// collection. (The unlock dialogs themselves are tested from C, on a
/// private display: IntegrationTests/c/test_prompts.c.)
@Suite("Prompt policy")
struct PromptPolicyTests {

    @Test func automaticIsAllowedOnlyWithAGraphicalSession() {
        #expect(PromptPolicy.automatic(environment: { $0 == "DISPLAY" ? ":0" : nil }) == .allowed)
        #expect(PromptPolicy.automatic(environment: { $0 == "WAYLAND_DISPLAY" ? "wayland-0" : nil }) == .allowed)
        #expect(PromptPolicy.automatic(environment: { _ in "" }) == .never, "set but empty is no display")
        #expect(PromptPolicy.automatic(environment: { _ in nil }) == .never)
    }

    @Test func optionsAreKept() {
        let interface = SecretServiceKeychainInterface(
            collection: "session", timeout: .milliseconds(1500), prompts: .never, promptTimeout: .seconds(7))
        #expect(interface.collection == "session")
        #expect(interface.timeout == .milliseconds(1500))
        #expect(interface.prompts == .never)
        #expect(interface.promptTimeout == .seconds(7))
    }

    @Test func neverRefusesALockedCollectionAtOnceAndSaysWhatIsLocked() throws {
        try requirePrivateKeyring()
        let admin = try SecretServiceAdmin()
        let password = "lockable-\(UInt32.random(in: 0...UInt32.max))"
        let collection = try admin.createCollection(label: "kktest-never", password: password)
        defer { try? admin.deleteCollection(collection) }
        let interface = SecretServiceKeychainInterface(collection: collection, prompts: .never, promptTimeout: .seconds(60))
        let keychain = Keychain(interface: interface)
        let key = uniqueKey()
        try keychain.updateValue("v", forKey: key)

        try admin.lock(collection)
        let clock = ContinuousClock()
        let start = clock.now
        #expect(throws: KeychainError.interactionNotAllowed) { try keychain.value(forKey: key) }
        #expect(clock.now - start < .seconds(30), "did not wait for the 60 s prompt timeout")
        let detail = interface.failureDetail(for: .interactionNotAllowed) ?? ""
        #expect(detail.contains(collection), "names the locked item, in \(collection): \(detail)")

        try admin.unlock(collection, password: password)
        #expect(try keychain.value(forKey: key) == "v")
        #expect(interface.failureDetail(for: .interactionNotAllowed) == nil, "cleared by the next operation")
        try keychain.removeValue(forKey: key)
    }
}
