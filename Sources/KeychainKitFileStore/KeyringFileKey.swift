// SPDX-License-Identifier: MIT
import CKeychainKitCrypto
import KeychainKitSystem

/// A keyring file's key, derived from the master secret as libsecret's
/// egg-keyring1 does (PBKDF2-HMAC-SHA256 over the file's salt, to 16
/// bytes), and what it does: hash attribute values, seal items into
/// blobs (`AES-128-CBC(PKCS#7(plaintext)) ‖ IV ‖ HMAC-SHA256(ciphertext ‖
/// IV)`, the same key for both) and open them again.
struct KeyringFileKey: Sendable {

    private let key: AESKey

    /// The salt and rounds it was derived with: a file with others needs
    /// another key.
    let salt: [UInt8]
    let iterations: UInt32

    /// Derives the key of `master` for a file of `salt` and `iterations`
    /// (costly by design: about 30 ms for 100,000 rounds).
    init(master: UnsafeRawBufferPointer, salt: [UInt8], iterations: UInt32) throws(FileStoreError) {
        let key = AESKey(keepsCipher: false)
        let status = ForkGeneration.withoutFork {
            keychainkit_pbkdf2_sha256(
                master.baseAddress?.assumingMemoryBound(to: UInt8.self), master.count, salt, salt.count, UInt(iterations),
                key.bytes)
        }
        self.key = key
        guard status == 0 else { throw FileStoreError(.unknownError(code: 5, message: "the keyring file's key could not be derived")) }
        self.salt = salt
        self.iterations = iterations
    }

    /// Whether this key was derived for `file`'s parameters.
    func fits(_ file: KeyringFile) -> Bool {
        file.salt == salt && file.iterations == iterations
    }

    /// The MAC an attribute value is stored as.
    func hash(_ value: String) -> [UInt8] {
        var value = value
        return value.withUTF8 { key.mac(UnsafeRawBufferPointer($0)) }
    }

    /// `item` encrypted, with its attribute values hashed (names sorted,
    /// as libsecret's `hash_attributes`).
    func seal(_ item: KeyringFileItem) throws(FileStoreError) -> KeyringFile.EncryptedItem {
        var plaintext = item.serialized()
        defer { plaintext.wipe() }
        guard let (iv, ciphertext) = key.encrypt(plaintext) else {
            throw FileStoreError(.unknownError(code: 5, message: "an item could not be encrypted"))
        }
        var blob = ciphertext + iv
        blob += key.mac(blob)
        let hashed = item.attributes.sorted { $0.key.precedesByUTF8($1.key) }.map { (name: $0.key, mac: hash($0.value)) }
        return KeyringFile.EncryptedItem(hashedAttributes: KeyringFile.EncryptedItem.serialized(hashed), blob: blob)
    }

    /// The item `sealed` holds; `nil` when its MAC does not verify under
    /// this key (another master sealed it, or it was altered).
    func open(_ sealed: KeyringFile.EncryptedItem) throws(FileStoreFault) -> KeyringFileItem? {
        let macBytes = Int(KEYCHAINKIT_HMAC_BYTES), ivBytes = Int(KEYCHAINKIT_AES_BLOCK_BYTES)
        let blob = sealed.blob
        guard blob.count >= ivBytes + macBytes else { return nil }
        let signed = blob.count - macBytes
        let expected = blob.withUnsafeBytes { key.mac(UnsafeRawBufferPointer(rebasing: $0[..<signed])) }
        let verified = expected.count == macBytes && blob.withUnsafeBufferPointer {
            keychainkit_equal_in_constant_time($0.baseAddress! + signed, expected, macBytes) == 1
        }
        guard verified else { return nil }
        let cipherBytes = signed - ivBytes
        guard var plaintext = blob.withUnsafeBytes({
            key.decrypt(UnsafeRawBufferPointer(rebasing: $0[..<cipherBytes]),
                        iv: UnsafeRawBufferPointer(rebasing: $0[cipherBytes..<signed]))
        }) else {
            throw .damagedItem("its padding is wrong")
        }
        defer { plaintext.wipe() }
        return try KeyringFileItem(parsing: plaintext)
    }
}
