// SPDX-License-Identifier: MIT
import CKeychainKitCrypto
import KeychainKitBus
import KeychainKitSecretService
import KeychainKitSystem
#if canImport(Glibc)
import Glibc
#endif

/// A transfer session a client opened (`OpenSession`): plain, or
/// `dh-ietf1024-sha256-aes128-cbc-pkcs7` with the AES key both sides
/// derived. It serves only the connection that opened it, and ends with
/// `Close` or when that connection leaves the bus.
final class ServerSession {
    let number: UInt32
    /// The unique bus name of the connection that opened it.
    let owner: String
    /// The AES key; `nil` for a plain session.
    private let key: AESKey?

    private init(number: UInt32, owner: String, key: AESKey?) {
        self.number = number
        self.owner = owner
        self.key = key
    }

    var path: String { ObjectPath.session(number).path }

    static let plain = "plain"
    static let encrypted = "dh-ietf1024-sha256-aes128-cbc-pkcs7"

    /// Opens a session of `algorithm` for `owner`; the call's input is
    /// read from `call` (a variant: `s ""` for plain, `ay` the client's
    /// public key for DH), and the output to return (`nil` for plain: an
    /// empty string). Unknown algorithms are NotSupported, as the
    /// specification says.
    static func open(
        _ algorithm: String, from call: BusMessage, number: UInt32, owner: String
    ) throws(ServiceError) -> (session: ServerSession, output: BusValue?, publicKey: [UInt8]?) {
        let input = (try? call.peekType()) ?? nil
        switch algorithm {
        case plain:
            return (ServerSession(number: number, owner: owner, key: nil), .string(""), nil)
        case encrypted:
            guard let input, input.type == "v", input.contents == "ay" else {
                throw ServiceError.invalidArguments("the DH input is the client's public key, ay")
            }
            let peer: [UInt8]
            do throws(BusFailure) {
                try call.enterContainer("v", "ay")
                peer = Array(try call.readByteArray())
            } catch {
                throw ServiceError.invalidArguments("the DH input is the client's public key, ay")
            }
            guard !peer.isEmpty, peer.count <= Int(KEYCHAINKIT_DH_BYTES) else {
                throw ServiceError.invalidArguments("a public key of \(peer.count) bytes")
            }
            guard let pair = keychainkit_dh_keypair_new() else {
                throw ServiceError(name: BusNames.BusError.failed, message: "no key pair could be made")
            }
            defer { keychainkit_dh_keypair_free(pair) }
            var ours = [UInt8](repeating: 0, count: Int(KEYCHAINKIT_DH_BYTES))
            let key = AESKey()
            guard keychainkit_dh_public_key(pair, &ours) == Int(KEYCHAINKIT_DH_BYTES),
                  keychainkit_dh_derive_server_key(pair, peer, peer.count, key.bytes) == 0
            else {
                throw ServiceError.invalidArguments("the client's public key is not one of the group")
            }
            return (ServerSession(number: number, owner: owner, key: key), nil, ours)
        default:
            throw ServiceError.notSupported("the algorithm '\(algorithm)' is not supported: use plain or \(encrypted)")
        }
    }

    /// Appends the secret struct `(oayays)` carrying `value` to `message`.
    func append(_ value: [UInt8], contentType: String, to message: BusMessage) throws(BusFailure) {
        guard var sealed = SecretStruct.sealed(value, key: key) else { throw BusFailure.system(EIO, "encrypting a secret") }
        defer { if key != nil { sealed.bytes.wipe() } }
        try SecretStruct.append(session: path, sealed: sealed, contentType: contentType, to: message)
    }

    /// Reads a secret struct `(oayays)` from `call`: its session's path,
    /// value (decrypted) and content type. The session is checked by the
    /// caller (``SecretServer/session(_:of:)``).
    static func readSecret(from call: BusMessage) throws(ServiceError) -> (session: String, parameters: [UInt8], value: [UInt8], contentType: String) {
        do throws(BusFailure) {
            try call.enterContainer("r", "oayays")
            let session = try call.readString(as: "o")
            let parameters = Array(try call.readByteArray())
            let value = Array(try call.readByteArray())
            let contentType = try call.readString()
            try call.exitContainer()
            return (session, parameters, value, contentType)
        } catch {
            throw ServiceError.invalidArguments("a secret is (o session, ay parameters, ay value, s content type)")
        }
    }

    /// The plaintext of a secret sent in this session.
    func decrypt(parameters: [UInt8], value: [UInt8]) throws(ServiceError) -> [UInt8] {
        guard let key else { return value }
        let plaintext = value.withUnsafeBytes { bytes in parameters.withUnsafeBytes { iv in key.decrypt(bytes, iv: iv) } }
        guard let plaintext else { throw ServiceError.invalidArguments("the secret could not be decrypted with the session's key") }
        return plaintext
    }
}
