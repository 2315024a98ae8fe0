// SPDX-License-Identifier: MIT
import CKeychainKitCrypto
import CKeychainKitMemory

/// A 16-byte AES-128 key in secret memory (out of core dumps, as
/// ``SecretBuffer``), erased when released: the Secret Service transfer
/// session's, and the keyring file's. Encrypts
/// with AES-128-CBC and PKCS#7 padding (libgcrypt, through
/// `keychainkit_crypto.h`).
package final class AESKey: @unchecked Sendable {

    /// The key's bytes (`KEYCHAINKIT_AES_KEY_BYTES`); written once, by
    /// whoever made the key, before it is shared.
    package let bytes: UnsafeMutablePointer<UInt8>

    /// The key made ready for AES (`keychainkit_aes_cipher`) at its first
    /// use, once ``bytes`` are written, and kept when `keepsCipher`: a
    /// session's every message then costs no cipher handle of its own.
    private let cipher = Locked<OpaquePointer?>(nil)
    private let keepsCipher: Bool

    /// A key of zeros, for its maker to write. `keepsCipher`: keep the
    /// expanded key (libgcrypt's, in ordinary memory) between messages,
    /// for a transfer session's speed; without, each message expands the
    /// key again and libgcrypt erases it after, so nothing outside secret
    /// memory holds a long-lived key (the keyring file's, which opens the
    /// file on disk).
    package init(keepsCipher: Bool = true) {
        guard let memory = keychainkit_secret_alloc(Int(KEYCHAINKIT_AES_KEY_BYTES)) else { fatalError("out of memory") }
        bytes = UnsafeMutableRawPointer(memory).bindMemory(to: UInt8.self, capacity: Int(KEYCHAINKIT_AES_KEY_BYTES))
        bytes.initialize(repeating: 0, count: Int(KEYCHAINKIT_AES_KEY_BYTES))
        self.keepsCipher = keepsCipher
    }

    deinit {
        cipher.withLock { keychainkit_aes_cipher_free($0) }
        keychainkit_secret_release(UnsafeMutableRawPointer(bytes).assumingMemoryBound(to: CChar.self))  // wipes it
    }

    /// `body` on the key's cipher, one thread at a time; -1 when the
    /// cryptography library cannot make one.
    private func withCipher(_ body: (OpaquePointer) -> Int) -> Int {
        cipher.withLock { cipher in
            if cipher == nil { cipher = keychainkit_aes_cipher_new(bytes) }
            defer {
                if !keepsCipher {
                    keychainkit_aes_cipher_free(cipher)
                    cipher = nil
                }
            }
            return cipher.map(body) ?? -1
        }
    }

    /// `plaintext` encrypted under a fresh random IV; `nil` when the
    /// cryptography library fails.
    package func encrypt(_ plaintext: [UInt8]) -> (iv: [UInt8], ciphertext: [UInt8])? {
        var iv = [UInt8](repeating: 0, count: Int(KEYCHAINKIT_AES_BLOCK_BYTES))
        var ciphertext = [UInt8](repeating: 0, count: keychainkit_aes_encrypted_length(plaintext.count))
        let written = plaintext.withUnsafeBufferPointer { plain in
            withCipher { keychainkit_aes_cipher_encrypt($0, plain.baseAddress, plain.count, &iv, &ciphertext) }
        }
        return written == ciphertext.count ? (iv, ciphertext) : nil
    }

    /// The plaintext of `ciphertext` under `iv`; `nil` when the lengths or
    /// the padding are wrong.
    package func decrypt(_ ciphertext: UnsafeRawBufferPointer, iv: UnsafeRawBufferPointer) -> [UInt8]? {
        guard let sealed = ciphertext.baseAddress, let ivBytes = iv.baseAddress else { return nil }
        var failed = false
        let plaintext = [UInt8](unsafeUninitializedCapacity: ciphertext.count + Int(KEYCHAINKIT_AES_BLOCK_BYTES)) {
            buffer, count in
            let written = withCipher {
                keychainkit_aes_cipher_decrypt(
                    $0, ivBytes.assumingMemoryBound(to: UInt8.self), iv.count,
                    sealed.assumingMemoryBound(to: UInt8.self), ciphertext.count, buffer.baseAddress!)
            }
            failed = written < 0
            count = failed ? 0 : written
        }
        return failed ? nil : plaintext
    }

    /// HMAC-SHA256 of `data` under this key; empty when the cryptography
    /// library fails.
    package func mac(_ data: UnsafeRawBufferPointer) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: Int(KEYCHAINKIT_HMAC_BYTES))
        let status = ForkGeneration.withoutFork {
            keychainkit_hmac_sha256(
                bytes, Int(KEYCHAINKIT_AES_KEY_BYTES), data.baseAddress?.assumingMemoryBound(to: UInt8.self),
                data.count, &out)
        }
        return status == 0 ? out : []
    }

    /// HMAC-SHA256 of `data`'s bytes under this key.
    package func mac(_ data: [UInt8]) -> [UInt8] {
        data.withUnsafeBytes { mac($0) }
    }
}
