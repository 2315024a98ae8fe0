// SPDX-License-Identifier: MIT
import CKeychainKitCrypto
import KeychainKitBus
import KeychainKitSystem

/// A Secret Service transfer session: how secrets cross the bus.
///
/// Opened encrypted (`dh-ietf1024-sha256-aes128-cbc-pkcs7`: a
/// Diffie-Hellman exchange, then AES-128-CBC with a fresh IV per secret), as
/// libsecret and SecretStorage do; `plain` only when the service does not
/// offer encryption. The AES key is erased when the session is released.
///
/// Every libgcrypt call runs in ``ForkGeneration/withoutFork(_:)``:
/// libgcrypt's own locks (random pool, allocator) have no fork handlers, and
/// a child forked while another thread held one would hang in its first
/// encrypted session.
package final class TransferSession {

    /// The session's object path, part of every secret sent.
    let path: String

    /// The AES key; `nil` for a plain session.
    private let key: AESKey?

    private init(path: String, key: AESKey?) {
        self.path = path
        self.key = key
    }

    /// Whether secrets in this session are encrypted.
    var isEncrypted: Bool { key != nil }

    /// What the detail of an operation on a plain session says.
    package static let plainNote = "secrets cross the bus unencrypted: the Secret Service offers only the 'plain' transfer"

    /// A Diffie-Hellman key pair and its public key, made ahead of the
    /// exchange (while the connection's first call travels).
    final class KeyPair {
        fileprivate let pair: OpaquePointer
        fileprivate let publicKey: [UInt8]

        /// `nil` when libgcrypt failed.
        init?() {
            guard let pair = ForkGeneration.withoutFork({ keychainkit_dh_keypair_new() }) else { return nil }
            var publicKey = [UInt8](repeating: 0, count: Int(KEYCHAINKIT_DH_BYTES))
            guard ForkGeneration.withoutFork({ keychainkit_dh_public_key(pair, &publicKey) }) == publicKey.count else {
                ForkGeneration.withoutFork { keychainkit_dh_keypair_free(pair) }
                return nil
            }
            self.pair = pair
            self.publicKey = publicKey
        }

        deinit {
            ForkGeneration.withoutFork { keychainkit_dh_keypair_free(pair) }
        }
    }

    /// Opens a session with the service at `destination`, plain only when
    /// the service offers nothing else and `policy` allows it; returns it
    /// with the unique bus name of the service process that answered.
    /// `keys`: the first exchange's key pair, when made ahead.
    static func open(
        on bus: BusConnection, destination: String, policy: TransferPolicy, keys: KeyPair? = nil
    ) throws(SecretServiceFailure) -> (session: TransferSession, owner: String) {
        do throws(SecretServiceFailure) {
            return try openEncrypted(on: bus, destination: destination, keys: keys)
        } catch {
            guard error.remoteName == SecretServiceNames.Error.notSupported else { throw error }
            guard policy == .preferEncrypted else {
                throw SecretServiceFailure(
                    .missingEntitlement,
                    detail: "the Secret Service offers only the 'plain' transfer, and this handle requires encryption")
            }
            return try openPlain(on: bus, destination: destination)
        }
    }

    /// Key exchanges tried while the shared secret comes out ambiguous
    /// (each time with probability 1/256; see `KEYCHAINKIT_DH_AMBIGUOUS`).
    private static let keyExchangeAttempts = 4

    private static func openEncrypted(
        on bus: BusConnection, destination: String, keys: KeyPair?
    ) throws(SecretServiceFailure) -> (session: TransferSession, owner: String) {
        var ahead = keys
        for _ in 0..<keyExchangeAttempts {
            guard let keys = ahead ?? KeyPair() else { throw cryptoFailure }
            ahead = nil
            if let opened = try exchangeKeys(keys, on: bus, destination: destination) { return opened }
        }
        throw cryptoFailure
    }

    /// One Diffie-Hellman exchange with `keys`: the session, or `nil` when
    /// its shared secret is one that servers encode differently (the
    /// service's session is then closed).
    private static func exchangeKeys(
        _ keys: KeyPair, on bus: BusConnection, destination: String
    ) throws(SecretServiceFailure) -> (session: TransferSession, owner: String)? {
        let pair = keys.pair
        let request = try openSessionCall(on: bus, destination: destination, algorithm: SecretServiceNames.Algorithm.encrypted)
        try request.container("v", "ay") { () throws(SecretServiceFailure) in try request.append(bytes: keys.publicKey) }
        let reply = try bus.call(request)
        let key = AESKey()
        var derived: Int32 = -1
        try reply.enter("v", "ay") { () throws(SecretServiceFailure) in
            try reply.readBytes { peer throws(SecretServiceFailure) in
                guard let base = peer.baseAddress else { throw cryptoFailure }
                derived = ForkGeneration.withoutFork {
                    keychainkit_dh_derive_key(pair, base.assumingMemoryBound(to: UInt8.self), peer.count, key.bytes)
                }
            }
        }
        let path = try reply.readString(as: "o")
        let owner = try sender(of: reply)
        switch derived {
        case 0:
            return (TransferSession(path: path, key: key), owner)
        case KEYCHAINKIT_DH_AMBIGUOUS:
            _ = try? bus.call(try bus.methodCall(to: owner, path, SecretServiceNames.Session.interface, SecretServiceNames.Session.close))
            return nil
        default:
            throw cryptoFailure
        }
    }

    private static func openPlain(
        on bus: BusConnection, destination: String
    ) throws(SecretServiceFailure) -> (session: TransferSession, owner: String) {
        let request = try openSessionCall(on: bus, destination: destination, algorithm: SecretServiceNames.Algorithm.plain)
        try request.container("v", "s") { () throws(SecretServiceFailure) in try request.append("") }
        let reply = try bus.call(request)
        try reply.skip("v")
        let path = try reply.readString(as: "o")
        return (TransferSession(path: path, key: nil), try sender(of: reply))
    }

    private static func openSessionCall(
        on bus: BusConnection, destination: String, algorithm: String
    ) throws(SecretServiceFailure) -> ServiceMessage {
        let names = SecretServiceNames.self
        let request = try bus.methodCall(
            to: destination, names.servicePath, names.Service.interface, names.Service.openSession, activating: true)
        try request.append(algorithm)
        return request
    }

    private static func sender(of reply: ServiceMessage) throws(SecretServiceFailure) -> String {
        guard let sender = reply.sender else {
            throw SecretServiceFailure(.serviceUnavailable, connectionLost: true)
        }
        return sender
    }

    // MARK: Secrets

    /// Appends `value` as a secret `(oayays)` of this session to `message`,
    /// and marks the message sensitive.
    func append(_ value: [UInt8], to message: ServiceMessage) throws(SecretServiceFailure) {
        // Text without NUL, which other tools show as text; anything else as
        // bytes: KWallet stores text/plain values as strings, cut at a NUL.
        let contentType = value.isValidUTF8 && !value.contains(0) ? "text/plain" : "application/octet-stream"
        guard var sealed = SecretStruct.sealed(value, key: key) else { throw Self.cryptoFailure }
        defer { if key != nil { sealed.bytes.wipe() } }
        try onBus { () throws(BusFailure) in
            try SecretStruct.append(session: path, sealed: sealed, contentType: contentType, to: message.message)
        }
    }

    /// Reads a secret `(oayays)` of this session from `message` (marked
    /// sensitive) and returns its plaintext.
    func readSecret(from message: ServiceMessage) throws(SecretServiceFailure) -> [UInt8] {
        message.markSensitive()
        return try message.enter("r", "oayays") { () throws(SecretServiceFailure) in
            try message.skip("o")
            let value = try message.readBytes { parameters throws(SecretServiceFailure) in
                try message.readBytes { value throws(SecretServiceFailure) in
                    try decrypt(value, parameters: parameters)
                }
            }
            try message.skip("s")
            return value
        }
    }

    private func decrypt(
        _ value: UnsafeRawBufferPointer, parameters: UnsafeRawBufferPointer
    ) throws(SecretServiceFailure) -> [UInt8] {
        guard let key else { return Array(value) }
        guard let plaintext = key.decrypt(value, iv: parameters) else { throw Self.cryptoFailure }
        return plaintext
    }

    private static let cryptoFailure = SecretServiceFailure(
        .unknownError(code: -1, message: "the transfer session's encryption failed"), connectionLost: true)
}
