// SPDX-License-Identifier: MIT
import KeychainKitBus
import KeychainKitSystem

/// The Secret Service's secret struct, `(oayays)`: the transfer session's
/// path, its parameters (the IV; nothing in a plain session), the value
/// (encrypted with the session's AES key, or as it is) and its content
/// type. Written here once for both ends: the client's ``TransferSession``
/// and keychainkitd's sessions.
package enum SecretStruct {

    /// `value` as a session with `key` (`nil`: plain) sends it: the
    /// parameters and the bytes; `nil` when the encryption failed.
    package static func sealed(_ value: [UInt8], key: AESKey?) -> (parameters: [UInt8], bytes: [UInt8])? {
        guard let key else { return ([], value) }
        return key.encrypt(value).map { ($0.iv, $0.ciphertext) }
    }

    /// Appends the struct to `message`, which it marks sensitive.
    package static func append(
        session: String, sealed: (parameters: [UInt8], bytes: [UInt8]), contentType: String, to message: BusMessage
    ) throws(BusFailure) {
        message.markSensitive()
        try message.openContainer("r", "oayays")
        try message.append(session, as: "o")
        try message.append(bytes: sealed.parameters)
        try message.append(bytes: sealed.bytes)
        try message.append(contentType)
        try message.closeContainer()
    }
}
