// SPDX-License-Identifier: MIT
import CKeychainKitKernel
import KeychainKitCore

/// The description of the "user" key holding a ``KeychainAttributes``'
/// value in the kernel keyring:
///
///     keychainkit:<bytes of service>:<service>:<account>
///
/// with the service's length in UTF-8 bytes in decimal, so that every
/// service and account, colons included, maps to one description and back
/// (`keychainkit:6:my-app:token`; `keyctl search @u user
/// keychainkit:6:my-app:token` finds it). The empty account is the
/// description that ends right after the service's colon.
struct KernelKeyDescription {

    /// What every description of this backend begins with.
    static let prefix = "keychainkit:"

    /// The description, as the kernel stores it.
    let text: String

    init(_ key: KeychainAttributes) {
        text = Self.servicePrefix(key.service) + key.account
    }

    /// Whether the kernel accepts a description this long.
    var fits: Bool { text.utf8.count <= Int(KEYCHAINKIT_KEY_MAX_DESCRIPTION) }

    /// What the descriptions of `service`'s keys begin with.
    static func servicePrefix(_ service: String) -> String {
        "\(prefix)\(service.utf8.count):\(service):"
    }

    /// The account of a description of `service`'s keys; `nil` for any
    /// other description (another service, another tool, not UTF-8).
    static func account(in description: [UInt8], service: String) -> String? {
        let start = Array(servicePrefix(service).utf8)
        guard description.count >= start.count, description.starts(with: start) else { return nil }
        return String(validating: description[start.count...], as: UTF8.self)
    }
}
