// SPDX-License-Identifier: MIT
import KeychainKitCore
import KeychainKitSystem

/// Items addressed by attributes in the keyring file — server logins,
/// git's and Docker's credentials — beside the keyed items, with the
/// Secret Service's semantics. An item's ``AttributeItem/id`` is its
/// blob's MAC, which changes whenever the item is written again; nothing
/// is ever locked.
extension FileKeychainInterface: AttributeItemStore {

    public func items(matching attributes: [String: String]) throws(KeychainError) -> [AttributeItem] {
        try validate(attributes)
        return try reading { contents in
            contents.opened.indices.compactMap { index -> AttributeItem? in
                guard let item = contents.opened[index] else { return nil }
                let found = Self.attributeItem(item, sealed: contents.file.items[index])
                return found.includes(attributes) ? found : nil
            }.sorted(by: AttributeItem.newestFirst)
        }
    }

    public func secret(of item: AttributeItem) throws(KeychainError) -> [UInt8]? {
        try reading { contents in Self.index(of: item.id, in: contents).map { contents.opened[$0]!.secret.bytes } }
    }

    @discardableResult
    public func createItem(attributes: [String: String], label: String, value: [UInt8]) throws(KeychainError) -> String {
        try validate(attributes, label: label)
        var id = ""
        try writing { contents, key throws(FileStoreError) in
            // As the Secret Service's replace: an item whose attributes
            // include these is replaced.
            let replaced = contents.opened.indices.filter { index in
                contents.opened[index].map { Self.attributeItem($0, sealed: contents.file.items[index]).includes(attributes) } ?? false
            }
            contents.remove(replaced)
            let now = Self.now
            try contents.append(
                KeyringFileItem(attributes: attributes, label: label, created: now, modified: now, secret: SecretBuffer(copying: value)), key: key)
            id = Self.id(of: contents.file.items[contents.file.items.count - 1])
        }
        return id
    }

    public func setSecret(_ value: [UInt8], of item: AttributeItem) throws(KeychainError) {
        try writing { contents, key throws(FileStoreError) in
            guard let index = Self.index(of: item.id, in: contents) else { throw FileStoreError(.itemNotFound) }
            try Self.setSecret(value, at: index, in: &contents, key: key)
        }
    }

    public func delete(_ item: AttributeItem) throws(KeychainError) {
        try writing { contents, _ throws(FileStoreError) in
            if let index = Self.index(of: item.id, in: contents) { contents.remove([index]) }
        }
    }

    /// The item as ``AttributeItem``.
    private static func attributeItem(_ item: KeyringFileItem, sealed: KeyringFile.EncryptedItem) -> AttributeItem {
        AttributeItem(id: id(of: sealed), attributes: item.attributes, label: item.label, created: item.created,
                      modified: item.modified, isLocked: false)
    }

    /// The item's id: its MAC, in hexadecimal.
    private static func id(of sealed: KeyringFile.EncryptedItem) -> String {
        "file/" + sealed.blob.suffix(32).map { lowercaseHex(UInt32($0), width: 2) }.joined()
    }

    private static func index(of id: String, in contents: FileKeyringContents) -> Int? {
        contents.file.items.indices.first { contents.opened[$0] != nil && Self.id(of: contents.file.items[$0]) == id }
    }
}
