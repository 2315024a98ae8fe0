// SPDX-License-Identifier: MIT
import Foundation
import KeychainKit

extension KeychainKey where Value: Codable & SendableMetatype {

    /// A key of `account` in `service` whose values are stored as JSON
    /// (keys sorted, so equal values are equal bytes).
    ///
    ///     struct Session: Codable { var token: String; var expires: Int }
    ///     extension KeychainKey where Value == Session {
    ///         static let session = KeychainKey(json: "session")
    ///     }
    ///
    /// Stored bytes that do not decode as `Value` (written by another
    /// version of the program, or another tool) read as absent, and the
    /// next write replaces them. A value that cannot be encoded is
    /// ``KeychainError/invalidArgument``. This is the only part of
    /// KeychainKit that uses Foundation; the core and `libkeychainkit.so`
    /// do not.
    public init(json account: String, service: String = KeychainAttributes.defaultService) {
        self.init(
            account, service: service,
            encode: { value throws(KeychainError) in
                let encoder = JSONEncoder()
                encoder.outputFormatting = [.sortedKeys]
                do {
                    return Array(try encoder.encode(value))
                } catch {
                    // The error's description may quote the value: never shown.
                    throw .invalidArgument
                }
            },
            decode: { bytes in try? JSONDecoder().decode(Value.self, from: Data(bytes)) })
    }
}
