// SPDX-License-Identifier: MIT
import CKeychainKitCrypto

/// The contents of a keyring file as libsecret (≥ 0.20.2) and oo7 write
/// it: a 16-byte header, the version bytes `01 00`, then the GVariant
/// `(uayutua(a{say}ay))` — salt size, salt, PBKDF2 iteration count, time
/// of the last change, usage count, and the items, each with its
/// attribute values hashed and the rest encrypted (``EncryptedItem``).
///
/// Parsing checks the bytes only; nothing is decrypted here.
struct KeyringFile: Sendable {

    /// One item as stored: attribute names in clear with the HMAC of each
    /// value, sorted by name, and the encrypted blob (ciphertext, IV, MAC).
    struct EncryptedItem: Sendable, Equatable {
        /// The hashed attributes, serialized (`a{say}`) as in the file:
        /// nothing reads them but the file's writer, and kept so an
        /// attribute costs its bytes in the file, not a String and an
        /// array each (a hostile file of millions of them cost nine times
        /// its size).
        var hashedAttributes: [UInt8]
        var blob: [UInt8]

        /// `attributes`, each `(name, mac)`, serialized as the file holds them.
        static func serialized(_ attributes: [(name: String, mac: [UInt8])]) -> [UInt8] {
            GVariantWriter.Member.array(of: attributes.map { GVariantWriter.tuple([.string($0.name), .bytes($0.mac)]) }).bytes
        }
    }

    /// The file's first bytes: `GnomeKeyring\n\r\0\n`.
    static let header: [UInt8] = Array("GnomeKeyring\n\r".utf8) + [0, 0x0A]

    /// Major and minor version of the format.
    static let version: [UInt8] = [1, 0]

    /// The fewest bytes of an item's blob: one cipher block, the IV and the
    /// MAC.
    static let smallestBlob = 16 + 16 + 32

    /// The weakest parameters accepted (oo7's `WeakKeyError` limits, and
    /// what libsecret writes): fewer rounds or a shorter salt are refused.
    static let minimumIterations: UInt32 = 100_000
    static let minimumSaltBytes = 32

    /// The most rounds accepted: ten times what libsecret and oo7 write
    /// (about 0.3 s here). More is a damaged or hostile file, whose key
    /// would take minutes to derive (2^32 - 1 rounds: some twenty).
    static let maximumIterations: UInt32 = 1_000_000

    var salt: [UInt8]
    var iterations: UInt32
    /// Seconds since the epoch of the last write.
    var modified: UInt64
    /// How many items were written (libsecret counts each replace).
    var usageCount: UInt32
    var items: [EncryptedItem]

    init(salt: [UInt8], iterations: UInt32, modified: UInt64, usageCount: UInt32, items: [EncryptedItem]) {
        self.salt = salt
        self.iterations = iterations
        self.modified = modified
        self.usageCount = usageCount
        self.items = items
    }

    /// An empty keyring with a fresh salt and libsecret's parameters.
    static func empty(now: UInt64) throws(FileStoreError) -> KeyringFile {
        var salt = [UInt8](repeating: 0, count: minimumSaltBytes)
        guard keychainkit_random_nonce(&salt, salt.count) == 0 else {
            throw FileStoreError(.unknownError(code: 5, message: "no random bytes for the keyring file's salt"))
        }
        return KeyringFile(salt: salt, iterations: minimumIterations, modified: now, usageCount: 0, items: [])
    }

    /// Reads `bytes`; ``FileStoreFault`` says what is wrong with them.
    init(parsing bytes: [UInt8]) throws(FileStoreFault) {
        let prefix = Self.header.count + Self.version.count
        guard bytes.count >= Self.header.count, bytes.starts(with: Self.header) else {
            throw .foreign("it does not start as a keyring file")
        }
        guard bytes.count >= prefix, Array(bytes[Self.header.count..<prefix]) == Self.version else {
            let found = bytes.count >= prefix ? "\(bytes[16]).\(bytes[17])" : "none"
            throw .unsupportedVersion(found)
        }
        do throws(GVariantReader.Malformed) {
            let body = GVariantReader(bytes, prefix..<bytes.count)  // no copy of the file
            let fields = try body.tuple([
                .fixed(size: 4, alignment: 4), .variable(alignment: 1), .fixed(size: 4, alignment: 4),
                .fixed(size: 8, alignment: 8), .fixed(size: 4, alignment: 4), .variable(alignment: 1),
            ])
            salt = fields[1].byteArray()
            guard try fields[0].uint32() == salt.count else {
                throw GVariantReader.Malformed(reason: "the salt's size is not its length")
            }
            iterations = try fields[2].uint32()
            modified = try fields[3].uint64()
            usageCount = try fields[4].uint32()
            var items: [EncryptedItem] = []
            try fields[5].forEachVariable { element throws(GVariantReader.Malformed) in
                let (attributes, blob) = try element.pair()
                try attributes.forEachVariable { entry throws(GVariantReader.Malformed) in try entry.pair().0.validateString() }
                // Less than an IV and a MAC is no item (libsecret's decrypt
                // fails on it too); refused here, before millions of them
                // take memory.
                guard blob.range.count >= Self.smallestBlob else {
                    throw GVariantReader.Malformed(reason: "an item of \(blob.range.count) bytes, too short for its IV and MAC")
                }
                items.append(EncryptedItem(hashedAttributes: attributes.byteArray(), blob: blob.byteArray()))
            }
            self.items = items
        } catch {
            throw .damaged(error.reason)
        }
        guard iterations >= Self.minimumIterations, salt.count >= Self.minimumSaltBytes else {
            throw .weakParameters(iterations: iterations, saltBytes: salt.count)
        }
        guard iterations <= Self.maximumIterations else { throw .costlyParameters(iterations: iterations) }
    }

    /// The file's bytes.
    func serialized() -> [UInt8] {
        let items = items.map { item in
            GVariantWriter.tuple([
                GVariantWriter.Member(bytes: item.hashedAttributes, alignment: 1, isVariable: true),
                .bytes(item.blob),
            ])
        }
        let body = GVariantWriter.tuple([
            .uint32(UInt32(salt.count)), .bytes(salt), .uint32(iterations), .uint64(modified), .uint32(usageCount),
            .array(of: items),
        ])
        return Self.header + Self.version + body
    }
}
