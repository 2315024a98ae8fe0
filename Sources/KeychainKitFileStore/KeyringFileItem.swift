// SPDX-License-Identifier: MIT
import KeychainKitSystem

/// One item of a keyring file, decrypted: the GVariant `(a{ss}sttay)` of
/// libsecret's `secret_file_item_serialize` — attributes, label, times
/// of creation and of the last change (seconds since the epoch), secret
/// (in secret memory, wiped when the last copy of the item goes).
package struct KeyringFileItem: Sendable {
    package var attributes: [String: String]
    package var label: String
    package var created: UInt64
    package var modified: UInt64
    package var secret: SecretBuffer

    /// Its plaintext; wipe it after use. Attributes are written sorted by
    /// name, so equal items serialize alike.
    func serialized() -> [UInt8] {
        GVariantWriter.tuple([
            .array(of: attributes.sorted { $0.key.precedesByUTF8($1.key) }.map {
                GVariantWriter.tuple([.string($0.key), .string($0.value)])
            }),
            .string(label), .uint64(created), .uint64(modified), .secret(secret),
        ])
    }

    /// Reads a plaintext (whose MAC verified).
    init(parsing plaintext: [UInt8]) throws(FileStoreFault) {
        do throws(GVariantReader.Malformed) {
            let fields = try GVariantReader(plaintext).tuple([
                .variable(alignment: 1), .variable(alignment: 1), .fixed(size: 8, alignment: 8),
                .fixed(size: 8, alignment: 8), .variable(alignment: 1),
            ])
            var attributes: [String: String] = [:]
            try fields[0].forEachVariable { entry throws(GVariantReader.Malformed) in
                let (name, value) = try entry.pair()
                attributes[try name.string()] = try value.string()
            }
            self.attributes = attributes
            label = try fields[1].string()
            created = try fields[2].uint64()
            modified = try fields[3].uint64()
            secret = fields[4].secret()
        } catch {
            throw .damagedItem(error.reason)
        }
    }

    package init(
        attributes: [String: String], label: String, created: UInt64, modified: UInt64, secret: SecretBuffer
    ) {
        self.attributes = attributes
        self.label = label
        self.created = created
        self.modified = modified
        self.secret = secret
    }
}
