// SPDX-License-Identifier: MIT
import KeychainKitCore
import KeychainKitSystem
#if canImport(Glibc)
import Glibc
#endif

/// A backend that keeps items in an encrypted file, in the format of
/// libsecret's file backend and oo7 (``KeyringFile``): for machines with
/// no keyring daemon (servers, CI, containers) and for sandboxed apps.
///
/// Items persist across logout and reboot. Reads come from memory while
/// the file is unchanged (one `stat` each); a file changed by another
/// process — ours or libsecret — is read again. Each write holds a lock
/// beside the file, reads the newest version, changes it and replaces the
/// file atomically and durably (``KeyringFileSystem/replace(_:with:)``),
/// so concurrent writers lose nothing and readers never see a part.
///
/// Keys are stored as `service` and `username` attributes (with
/// `xdg:schema`), as on the Secret Service, so `secret-tool` with
/// `SECRET_BACKEND=file` finds ours and we find its. A file whose items
/// the master secret opens none of is ``KeychainError/wrongMasterKey``,
/// never "absent"; an empty or new file accepts any master secret.
public final class FileKeychainInterface: KeychainInterfaceProtocol, Sendable {

    /// The file's path, made absolute at open.
    public let path: String

    let master: MasterSecret
    private let lockTimeout: Int
    let state: Locked<State>

    struct State: Sendable {
        /// The version read last; `nil` before the first read.
        var contents: FileKeyringContents?
        /// What `stat` said of it; `nil` when the file did not exist.
        var stamp: FileStamp?
        /// That version, kept open so its stamp stays its own.
        var held: KeyringFileSystem.HeldFile?
        var key: KeyringFileKey?
        /// Each key's version in the contents last told to the sources.
        var versions: [KeychainAttributes: ArraySlice<UInt8>] = [:]
        /// The sources that hear other handles' and processes' changes.
        var sources: [ObjectIdentifier: FileChangeSource] = [:]
        /// Counts the versions held: one more each time `contents` is
        /// replaced by a read or a write.
        var generation: UInt64 = 0
    }

    /// Opens the keychain in the file at `path` (by default
    /// ``defaultPath``; a relative path is taken from the working directory
    /// now) with the master secret from `master`. Reads the
    /// file if it exists: a wrong master secret, a damaged file or one
    /// others may read fail here. Creates nothing until the first write.
    /// `lockTimeout`: how long a write waits for another writer, in
    /// milliseconds. `cacheMaster`: once the secret opens the file, keep a
    /// copy in the kernel's persistent keyring, which the automatic source
    /// of later opens reads (``KernelMasterCache``); a cached copy that no
    /// longer opens the file is forgotten.
    public init(
        path: String? = nil, master: FileKeychainMaster, lockTimeout: Int = 5000, cacheMaster: Bool = false
    ) throws(KeychainError) {
        FailureDetail.set(nil)
        let given = if let path { path } else { try FileKeychainInterface.defaultPath }
        let path = KeyringFileSystem.absolute(given)
        self.path = path
        self.lockTimeout = max(0, lockTimeout)
        state = Locked(State())
        do throws(FileStoreError) {
            guard !given.isEmpty, !given.utf8.contains(0), !given.hasSuffix("/") else {
                throw FileStoreError(.invalidArgument, "the keyring file's path is empty, holds NUL or names a directory")
            }
            let (secret, cached) = try master.resolve(for: path)
            self.master = secret
            do throws(FileStoreError) {
                try state.withLock { state throws(FileStoreError) in try refresh(&state) }
            } catch {
                if cached && error.error == .wrongMasterKey { KernelMasterCache.forget(for: path) }
                throw error
            }
            if cacheMaster && !cached { KernelMasterCache.store(secret, for: path) }
        } catch {
            FailureDetail.set(error.detail)
            throw error.error
        }
    }

    /// The file used when no path is given. Inside a Flatpak or Snap
    /// sandbox, libsecret's and oo7's: `$XDG_DATA_HOME/keyrings/default.keyring`
    /// (per app: `~/.var/app/<id>/data/…` seen from the host), so an app and
    /// its libsecret-using libraries share one store. Elsewhere
    /// `$XDG_DATA_HOME/keychainkit/default.keyring` (`~/.local/share/…`):
    /// the host's `keyrings/` is gnome-keyring's directory, which loads
    /// every `*.keyring` in it as a collection of its own format.
    /// ``KeychainError/invalidArgument`` when the variable it comes from
    /// is not UTF-8.
    public static var defaultPath: String {
        get throws(KeychainError) {
            do throws(NotUTF8) {
                return try UserDirectories.dataHome()
                    + (SecretPortal.isSandboxed ? "/keyrings/default.keyring" : "/keychainkit/default.keyring")
            } catch {
                FailureDetail.set("\(error.description): the default keyring file cannot be named; give a path")
                throw .invalidArgument
            }
        }
    }

    /// On disk.
    public var persistence: KeychainPersistence? { .persistent }

    /// One per file (its path).
    public var storeIdentity: KeychainStoreIdentity? { KeychainStoreIdentity("keyring file \(path)") }

    public func failureDetail(for error: KeychainError) -> String? { FailureDetail.current }

    /// What the calling thread's last failed ``init(path:master:lockTimeout:)``
    /// adds to its error (the path, the cause, what to do).
    public static var openFailureDetail: String? { FailureDetail.current }

    // MARK: Keyed items

    public func readItem(_ key: KeychainAttributes) throws(KeychainError) -> [UInt8]? {
        try reading { contents in contents.newest[key].map { contents.opened[$0]!.secret.bytes } }
    }

    public func containsItem(_ key: KeychainAttributes) throws(KeychainError) -> Bool {
        try reading { contents in contents.newest[key] != nil }
    }

    public func updateItem(_ key: KeychainAttributes, value: [UInt8]) throws(KeychainError) {
        // Absent (a new key's first write tries an update first): said
        // without the writers' lock.
        guard try containsItem(key) else { throw .itemNotFound }
        try writing { contents, cipher throws(FileStoreError) in
            guard try Self.storeInKept(value, key, in: &contents, cipher: cipher) else { throw FileStoreError(.itemNotFound) }
        }
    }

    /// Creates the item, or gives the existing one the value: one lock
    /// held throughout, so concurrent inserts leave one item.
    public func insertItem(_ key: KeychainAttributes, value: [UInt8]) throws(KeychainError) {
        try writing { contents, cipher throws(FileStoreError) in
            if try !Self.storeInKept(value, key, in: &contents, cipher: cipher) {
                let now = Self.now
                let attributes = ItemSchema.keychainKitPassword.stamped(["service": key.service, "username": key.account])
                try contents.append(
                    KeyringFileItem(attributes: attributes, label: KeychainItemInfo.defaultLabel(for: key),
                                    created: now, modified: now, secret: SecretBuffer(copying: value)),
                    key: cipher)
            }
        }
    }

    public func deleteItem(_ key: KeychainAttributes) throws(KeychainError) {
        try writing { contents, _ throws(FileStoreError) in
            let copies = contents.copies(of: key)
            guard !copies.isEmpty else { throw FileStoreError(.itemNotFound) }
            contents.remove(copies)
        }
    }

    public func accounts(inService service: String) throws(KeychainError) -> [String] {
        try reading { contents in
            contents.newest.keys.filter { $0.service.hasSameUTF8(as: service) }.map(\.account).sortedByBytes()
        }
    }

    public func itemInfo(inService service: String) throws(KeychainError) -> [KeychainItemInfo] {
        try reading { contents in
            contents.newest.filter { $0.key.service.hasSameUTF8(as: service) }
                .sorted { $0.key.account.precedesByUTF8($1.key.account) }
                .map { key, index in
                    let item = contents.opened[index]!
                    return KeychainItemInfo(account: key.account, label: item.label, created: item.created, modified: item.modified)
                }
        }
    }

    public func setLabel(_ label: String, forKey key: KeychainAttributes) throws(KeychainError) {
        guard !label.utf8.contains(0) else { throw .invalidArgument }
        try writing { contents, cipher throws(FileStoreError) in
            let copies = contents.copies(of: key)
            guard !copies.isEmpty else { throw FileStoreError(.itemNotFound) }
            for index in copies {
                var item = contents.opened[index]!
                item.label = label
                item.modified = Self.now
                try contents.replace(index, with: item, key: cipher)
            }
        }
    }

    /// Changes made by other handles and processes, heard through inotify.
    public func makeOutsideChangeSource() -> (any OutsideChangeSource)? {
        FileChangeSource(interface: self)
    }

    // MARK: The file

    /// Runs `body` on the newest version of the file.
    func reading<R>(_ body: (FileKeyringContents) throws(FileStoreError) -> R) throws(KeychainError) -> R {
        FailureDetail.set(nil)
        do throws(FileStoreError) {
            return try state.withLock { state throws(FileStoreError) in
                try refresh(&state)
                return try body(state.contents!)
            }
        } catch {
            FailureDetail.set(error.detail)
            throw error.error
        }
    }

    /// Holds the writers' lock (waiting for it before taking the
    /// handle's, so reads and fork() do not wait behind another process),
    /// reads the newest version, lets `body` change it and replaces the
    /// file with the result. `body` throws ``KeychainError/itemNotFound``
    /// only before it changes anything. When a program that takes no lock
    /// (libsecret) replaced the file meanwhile, the change is made again on
    /// its version, a few times at most.
    /// `written` runs once, under the handle's lock, right after the write
    /// that succeeded.
    func writing(
        _ body: (inout FileKeyringContents, KeyringFileKey) throws(FileStoreError) -> Void,
        written: (inout State) -> Void = { _ in }
    ) throws(KeychainError) {
        FailureDetail.set(nil)
        do throws(FileStoreError) {
            try KeyringFileSystem.withWriteLock(path, timeout: lockTimeout) { () throws(FileStoreError) in
                for _ in 0..<Self.replaceAttempts {
                    if try state.withLock({ state throws(FileStoreError) in try write(body, in: &state, written: written) }) {
                        return
                    }
                }
                throw FileStoreError(
                    .unknownError(code: EAGAIN, message: "\(path) kept changing under another program's writes; nothing was stored"))
            }
        } catch {
            FailureDetail.set(error.detail)
            throw error.error
        }
    }

    /// How many times a write is made again on a file another program
    /// replaced meanwhile.
    private static let replaceAttempts = 5

    /// One attempt of ``writing(_:)``; `false` when the file changed before
    /// the rename (nothing written).
    private func write(
        _ body: (inout FileKeyringContents, KeyringFileKey) throws(FileStoreError) -> Void, in state: inout State,
        written: (inout State) -> Void
    ) throws(FileStoreError) -> Bool {
        try refresh(&state)
        let key = try cipher(for: state.contents!.file, in: &state)
        // Changed where it is held alone, so its arrays are not copied;
        // read again after a failure.
        var contents = state.contents!
        state.contents = nil
        do throws(FileStoreError) {
            try body(&contents, key)
            contents.file.modified = Self.now
            contents.reindex()
            var bytes = contents.file.serialized()
            defer { bytes.wipe() }
            guard let (stamp, held) = try KeyringFileSystem.replace(path, with: bytes, expected: state.stamp) else {
                return false
            }
            state.stamp = stamp
            state.held = held
            state.versions = contents.versions
            state.contents = contents
            state.generation &+= 1
            written(&state)
            return true
        } catch {
            if error.error == .itemNotFound { state.contents = contents }  // unchanged
            throw error
        }
    }

    /// Reads the file again when `stat` says it changed (or on the first
    /// call), and tells the change sources what other writers changed.
    func refresh(_ state: inout State) throws(FileStoreError) {
        let stamp = try KeyringFileSystem.stamp(of: path)
        if state.contents != nil && stamp == state.stamp { return }
        let fresh: FileKeyringContents
        let freshStamp: FileStamp?
        var freshHeld: KeyringFileSystem.HeldFile?
        if let (bytes, readStamp, held) = try KeyringFileSystem.read(path) {
            freshHeld = held
            let file: KeyringFile
            do throws(FileStoreFault) { file = try KeyringFile(parsing: bytes) } catch { throw FileStoreError(error, in: path) }
            // No key is derived for a file without items (until a write).
            let key = file.items.isEmpty ? nil : try cipher(for: file, in: &state)
            var opened: [KeyringFileItem?] = []
            opened.reserveCapacity(file.items.count)
            do throws(FileStoreFault) {
                if let key { for item in file.items { opened.append(try key.open(item)) } }
            } catch {
                throw FileStoreError(error, in: path)
            }
            if !file.items.isEmpty && !opened.contains(where: { $0 != nil }) {
                throw FileStoreError(
                    .wrongMasterKey,
                    "\(path): the master secret opens none of its \(file.items.count) items; the file was left as it is")
            }
            fresh = FileKeyringContents(file: file, opened: opened)
            freshStamp = readStamp
        } else {
            fresh = FileKeyringContents.empty(try KeyringFile.empty(now: Self.now))
            freshStamp = nil
        }
        let versions = fresh.versions
        announce(from: state.versions, to: versions, in: &state)
        state.versions = versions
        state.contents = fresh
        state.generation &+= 1
        state.stamp = freshStamp
        state.held = freshHeld
    }

    /// The key of `file`'s salt and rounds, derived once for each.
    private func cipher(for file: KeyringFile, in state: inout State) throws(FileStoreError) -> KeyringFileKey {
        if let key = state.key, key.fits(file) { return key }
        let key = try master.withBytes { bytes throws(FileStoreError) in
            try KeyringFileKey(master: bytes, salt: file.salt, iterations: file.iterations)
        }
        state.key = key
        return key
    }

    /// Posts to every change source the keys whose items differ. (The
    /// first read, from no versions, tells no source: there is none yet.)
    /// Sources a fork()ed child inherited, whose threads it has not, are
    /// dropped.
    private func announce(
        from old: [KeychainAttributes: ArraySlice<UInt8>], to new: [KeychainAttributes: ArraySlice<UInt8>],
        in state: inout State
    ) {
        let generation = ForkGeneration.current
        if state.sources.values.contains(where: { $0.generation != generation }) {
            state.sources = state.sources.filter { $0.value.generation == generation }
        }
        guard !state.sources.isEmpty else { return }
        var changes: [OutsideChange] = []
        for (key, version) in new where old[key] != version { changes.append(.changed(key)) }
        for key in old.keys where new[key] == nil { changes.append(.deleted(key)) }
        guard !changes.isEmpty else { return }
        for source in state.sources.values { source.post(changes) }
    }

    /// Stores `value` in the kept copy of `key` and removes the others
    /// (duplicates another tool left), so every tool then reads it; `false`
    /// when the key has no item.
    private static func storeInKept(
        _ value: [UInt8], _ key: KeychainAttributes, in contents: inout FileKeyringContents, cipher: KeyringFileKey
    ) throws(FileStoreError) -> Bool {
        let copies = contents.copies(of: key)
        guard let kept = contents.kept(of: copies) else { return false }
        try setSecret(value, at: kept, in: &contents, key: cipher)
        contents.remove(copies.filter { $0 != kept })
        return true
    }

    /// Gives item `index` the secret `value`, wiping the old one.
    static func setSecret(
        _ value: [UInt8], at index: Int, in contents: inout FileKeyringContents, key: KeyringFileKey
    ) throws(FileStoreError) {
        var item = contents.opened[index]!
        item.secret = SecretBuffer(copying: value)
        item.modified = now
        try contents.replace(index, with: item, key: key)
    }

    static var now: UInt64 { UInt64(max(0, time(nil))) }
}
