// SPDX-License-Identifier: MIT
extension AttributeItemStore {

    /// The copies of one item: the items that hold exactly `attributes`
    /// for each of `schema`'s attribute names (an absent value must be
    /// absent), whatever else they carry (another schema, what a server
    /// adds), in the store's order (most recently modified first).
    public func copies(of attributes: [String: String], in schema: ItemSchema) throws(KeychainError) -> [AttributeItem] {
        try items(matching: attributes).filter { $0.hasExactly(attributes, for: schema.attributeNames) }
    }

    /// Stores `value` as the one item of `attributes` under `schema`: the
    /// store path of server logins and git's credentials, and its keeper
    /// rule. Returns the kept item's id.
    ///
    /// Of the ``copies(of:in:)``, the newest unlocked one of `schema`
    /// (else the newest of `schema`, locked: the store unlocks it or
    /// refuses) gets `value` in place, keeping its label; with no copy of
    /// `schema`, a new item of `schema` is created, labelled `label`. Every
    /// other copy is then deleted (git-credential-libsecret's newer
    /// `org.git.Password` items among them), so the login has one item,
    /// which every libsecret client finds. In place, not by `CreateItem`'s
    /// `replace`: KeePassXC 2.7.4 never completes the prompt of a `replace`
    /// that meets an existing item.
    ///
    /// The keyed API (`service`, `username`) keeps another copy: the first
    /// by creation order (``SecretServiceKeychainInterface``). Several
    /// processes write one key at once there, and must all keep the same
    /// copy without talking to each other: creation order never changes,
    /// while "newest" changes with every write.
    @discardableResult
    public func storeOne(
        _ value: [UInt8], attributes: [String: String], schema: ItemSchema, label: String
    ) throws(KeychainError) -> String {
        let copies = try copies(of: attributes, in: schema)
        let ours = copies.filter(schema.isSchema(of:))
        let kept: String
        if let existing = ours.first(where: { !$0.isLocked }) ?? ours.first {
            try setSecret(value, of: existing)
            kept = existing.id
        } else {
            kept = try createItem(attributes: schema.stamped(attributes), label: label, value: value)
        }
        for item in copies where item.id != kept { try delete(item) }
        return kept
    }
}
