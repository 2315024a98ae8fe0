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
    private(set) var path: String

    /// The AES key; `nil` for a plain session. While ``exchange`` is
    /// there, it does not hold the derived key yet; a new exchange gets a
    /// new one.
    private var key: AESKey?

    /// The key exchange of an encrypted session whose key is not derived
    /// and known good yet (``settle(on:)``), and the outcome of its
    /// derivation once made (``deriveKey()``). Its key pair (the private
    /// key) is released as soon as the key is derived.
    private var exchange: (keys: KeyPair, serviceKey: [UInt8], owner: String)?
    private var derivation: Int32?

    private init(path: String, key: AESKey?, exchange: (keys: KeyPair, serviceKey: [UInt8], owner: String)?) {
        self.path = path
        self.key = key
        self.exchange = exchange
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
    /// `keys`: the key pair, when made ahead; `work` runs while the first
    /// `OpenSession` travels (the service's side of the exchange takes
    /// gnome-keyring about 2 ms).
    ///
    /// An encrypted session comes back with its key not derived yet: the
    /// client derives it while its next call travels (``deriveKey()``), and
    /// settles it before any secret or the session's path is used
    /// (``settle(on:)``), which may take another exchange.
    static func open(
        on bus: BusConnection, destination: String, policy: TransferPolicy, keys: KeyPair? = nil,
        whileItTravels work: () -> Void = {}
    ) throws(SecretServiceFailure) -> (session: TransferSession, owner: String) {
        do throws(SecretServiceFailure) {
            guard let keys = keys ?? KeyPair() else { throw cryptoFailure }
            let offered = try offer(keys, on: bus, destination: destination, activating: true, whileItTravels: work)
            let session = TransferSession(
                path: offered.path, key: AESKey(), exchange: (keys, offered.serviceKey, offered.owner))
            return (session, offered.owner)
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

    /// Derives the AES key of an exchange not settled yet, unless done: the
    /// client does it while a call travels (0.25 ms of work that would
    /// otherwise delay the call).
    func deriveKey() {
        guard let exchange, derivation == nil, let key else { return }
        derivation = exchange.serviceKey.withUnsafeBufferPointer { serviceKey in
            ForkGeneration.withoutFork {
                keychainkit_dh_derive_key(exchange.keys.pair, serviceKey.baseAddress, serviceKey.count, key.bytes)
            }
        }
        if derivation == 0 { self.exchange = nil }
    }

    /// Key exchanges tried while the shared secret comes out ambiguous
    /// (each time with probability 1/256; see `KEYCHAINKIT_DH_AMBIGUOUS`).
    private static let keyExchangeAttempts = 4

    /// Makes the session ready for secrets: derives its key, unless done,
    /// and while the shared secret comes out one that servers encode
    /// differently, closes the service's session and exchanges keys anew
    /// with the same process. Throws (and the connection is dropped) when
    /// the service's public key is unfit, or the secret stays ambiguous.
    func settle(on bus: BusConnection) throws(SecretServiceFailure) {
        for attempt in 1...Self.keyExchangeAttempts {
            deriveKey()
            guard let exchange else { return }
            guard derivation == KEYCHAINKIT_DH_AMBIGUOUS else { throw Self.cryptoFailure }
            _ = try? bus.call(try bus.methodCall(
                to: exchange.owner, path, SecretServiceNames.Session.interface, SecretServiceNames.Session.close))
            guard attempt < Self.keyExchangeAttempts, let keys = KeyPair() else { throw Self.cryptoFailure }
            let offered = try Self.offer(keys, on: bus, destination: exchange.owner, activating: false)
            path = offered.path
            key = AESKey()
            self.exchange = (keys, offered.serviceKey, exchange.owner)
            derivation = nil
        }
    }

    /// One `OpenSession` of the encrypted algorithm with `keys`' public
    /// key: the session's path, the service's public key and the process
    /// that answered.
    private static func offer(
        _ keys: KeyPair, on bus: BusConnection, destination: String, activating: Bool,
        whileItTravels work: () -> Void = {}
    ) throws(SecretServiceFailure) -> (path: String, serviceKey: [UInt8], owner: String) {
        let request = try openSessionCall(
            on: bus, destination: destination, algorithm: SecretServiceNames.Algorithm.encrypted, activating: activating)
        try request.container("v", "ay") { () throws(SecretServiceFailure) in try request.append(bytes: keys.publicKey) }
        let reply = try bus.call(request, whileItTravels: work)
        let serviceKey = try reply.enter("v", "ay") { () throws(SecretServiceFailure) in
            try reply.readBytes { key throws(SecretServiceFailure) in Array(key) }
        }
        let path = try reply.readString(as: "o")
        return (path, serviceKey, try sender(of: reply))
    }

    private static func openPlain(
        on bus: BusConnection, destination: String
    ) throws(SecretServiceFailure) -> (session: TransferSession, owner: String) {
        let request = try openSessionCall(
            on: bus, destination: destination, algorithm: SecretServiceNames.Algorithm.plain, activating: true)
        try request.container("v", "s") { () throws(SecretServiceFailure) in try request.append("") }
        let reply = try bus.call(request)
        try reply.skip("v")
        let path = try reply.readString(as: "o")
        return (TransferSession(path: path, key: nil, exchange: nil), try sender(of: reply))
    }

    private static func openSessionCall(
        on bus: BusConnection, destination: String, algorithm: String, activating: Bool
    ) throws(SecretServiceFailure) -> ServiceMessage {
        let names = SecretServiceNames.self
        let request = try bus.methodCall(
            to: destination, names.servicePath, names.Service.interface, names.Service.openSession, activating: activating)
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
    /// and marks the message sensitive. Throws on a session not settled.
    func append(_ value: [UInt8], to message: ServiceMessage) throws(SecretServiceFailure) {
        // Text without NUL, which other tools show as text; anything else as
        // bytes: KWallet stores text/plain values as strings, cut at a NUL.
        let contentType = value.isValidUTF8 && !value.contains(0) ? "text/plain" : "application/octet-stream"
        guard exchange == nil, var sealed = SecretStruct.sealed(value, key: key) else { throw Self.cryptoFailure }
        defer { if key != nil { sealed.bytes.wipe() } }
        try onBus { () throws(BusFailure) in
            try SecretStruct.append(session: path, sealed: sealed, contentType: contentType, to: message.message)
        }
    }

    /// Reads a secret `(oayays)` of this session from `message` (marked
    /// sensitive) and returns its plaintext. Throws on a session
    /// not settled.
    func readSecret(from message: ServiceMessage) throws(SecretServiceFailure) -> [UInt8] {
        message.markSensitive()
        guard exchange == nil else { throw Self.cryptoFailure }
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
