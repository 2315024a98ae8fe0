// SPDX-License-Identifier: MIT
import KeychainKitCore

/// One version of a keyring file as a handle holds it: the parsed file,
/// its items opened with the handle's key (`nil` for an item another
/// master sealed: kept as it is, never read), and the keyed items' index.
struct FileKeyringContents: Sendable {

    var file: KeyringFile
    var opened: [KeyringFileItem?]
    /// The item each key reads: of its copies (another tool's duplicates),
    /// the most recently modified, then the last in the file — as on the
    /// Secret Service.
    private(set) var newest: [KeychainAttributes: Int] = [:]

    init(file: KeyringFile, opened: [KeyringFileItem?]) {
        self.file = file
        self.opened = opened
        reindex()
    }

    /// No items (a file not yet written).
    static func empty(_ file: KeyringFile) -> FileKeyringContents {
        FileKeyringContents(file: file, opened: [])
    }

    /// The key an item is an item of: its `service` and `username`.
    static func key(of item: KeyringFileItem) -> KeychainAttributes? {
        guard let service = item.attributes["service"], let account = item.attributes["username"] else { return nil }
        return KeychainAttributes(account: account, service: service)
    }

    /// The indices of every item of `key`.
    func copies(of key: KeychainAttributes) -> [Int] {
        opened.indices.filter { index in opened[index].flatMap(Self.key(of:)).map { $0 == key } ?? false }
    }

    /// The copy of `key` a write keeps: the first created, then the first
    /// in the file (the Secret Service backend's rule: concurrent writers
    /// agree on it without talking).
    func kept(of copies: [Int]) -> Int? {
        copies.min { (opened[$0]!.created, $0) < (opened[$1]!.created, $1) }
    }

    /// For each key, the blob MAC of the item it reads: what changes when
    /// the key's value, label or time does (for telling other handles'
    /// changes).
    var versions: [KeychainAttributes: ArraySlice<UInt8>] {
        newest.mapValues { file.items[$0].blob.suffix(32) }
    }

    mutating func reindex() {
        newest = [:]
        for (index, item) in opened.enumerated() {
            guard let item, let key = Self.key(of: item) else { continue }
            if let read = newest[key], opened[read]!.modified > item.modified { continue }
            newest[key] = index
        }
    }

    /// Replaces item `index` with `item`, sealed under `key`.
    mutating func replace(_ index: Int, with item: KeyringFileItem, key: KeyringFileKey) throws(FileStoreError) {
        file.items[index] = try key.seal(item)
        opened[index] = item
        file.usageCount &+= 1
    }

    /// Appends `item`, sealed under `key`.
    mutating func append(_ item: KeyringFileItem, key: KeyringFileKey) throws(FileStoreError) {
        file.items.append(try key.seal(item))
        opened.append(item)
        file.usageCount &+= 1
    }

    /// Removes the items at `indices` (their secrets are wiped when no
    /// other version holds them).
    mutating func remove(_ indices: [Int]) {
        for index in indices.sorted(by: >) {
            file.items.remove(at: index)
            opened.remove(at: index)
        }
    }
}
