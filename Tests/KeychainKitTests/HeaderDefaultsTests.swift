// SPDX-License-Identifier: MIT
import Foundation
import KeychainKit
import KeychainKitSecretServiceBackend
import Testing

/// The Swift core's defaults are the ones the C header names
/// (KK_DEFAULT_TIMEOUT_MS, KK_DEFAULT_PROMPT_TIMEOUT_MS,
/// KK_OBSERVE_COALESCE_MS, KK_OBSERVE_BURST_MAX_MS), which the C exports,
/// the CLI, the Python binding and the docs use.
@Suite("Header defaults")
struct HeaderDefaultsTests {

    /// The value of `#define name <digits>` in include/keychainkit.h.
    func headerDefine(_ name: String) throws -> Int? {
        let header = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("include/keychainkit.h")
        let text = try String(contentsOf: header, encoding: .utf8)
        let prefix = "#define \(name) "
        return text.split(separator: "\n").first { $0.hasPrefix(prefix) }.flatMap { Int($0.dropFirst(prefix.count)) }
    }

    @Test func theTimeoutsAreTheHeaders() throws {
        let timeout = try #require(try headerDefine("KK_DEFAULT_TIMEOUT_MS"))
        let promptTimeout = try #require(try headerDefine("KK_DEFAULT_PROMPT_TIMEOUT_MS"))
        #expect(SecretServiceKeychainInterface.defaultTimeout == .milliseconds(timeout))
        #expect(SecretServiceKeychainInterface.defaultPromptTimeout == .milliseconds(promptTimeout))
    }

    @Test func theCoalescingIsTheHeaders() throws {
        let pause = try #require(try headerDefine("KK_OBSERVE_COALESCE_MS"))
        let burst = try #require(try headerDefine("KK_OBSERVE_BURST_MAX_MS"))
        #expect(ChangeCoalescing.pauseMicroseconds == UInt64(pause) * 1000)
        #expect(ChangeCoalescing.longestBurstMicroseconds == UInt64(burst) * 1000)
    }
}
