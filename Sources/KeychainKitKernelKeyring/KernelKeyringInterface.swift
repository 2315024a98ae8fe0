// SPDX-License-Identifier: MIT
import CKeychainKitKernel
import KeychainKitCore
#if canImport(Glibc)
import Glibc
#endif

/// A backend over the Linux kernel keyring (`add_key`, `keyctl`): for
/// servers, containers, SSH and CI sessions with no Secret Service. Chosen
/// explicitly, never a fallback.
///
/// Each item is a "user" key whose description is
/// `keychainkit:<bytes of service>:<service>:<account>`
/// (``KernelKeyDescription``; `keychainkit:6:my-app:token`), linked into
/// ``keyring``, its payload the value as is, so `keyctl search`, `keyctl
/// print` and `keyctl pipe` find and read it. Lookups consider only keys
/// linked into that keyring itself, never keys of keyrings nested in it.
/// Writes use `add_key`, which creates the key or replaces the value of the
/// one with that description in the keyring atomically: a key has one item,
/// whatever number of writers. Keys this backend writes grant everything to
/// a possessor, and view, read, write and search to other processes of the
/// user; nothing to group and others.
///
/// Limits of the kernel: a value holds 1 to
/// ``maximumValueSize`` bytes (the "user" key type has no empty payload);
/// a description at most 4095 bytes; each user has a quota of keys and of
/// bytes (descriptions and payloads), `/proc/sys/kernel/keys/maxkeys` and
/// `maxbytes` — 200 keys and 20000 bytes by default for users other than
/// root. A value outside the limits throws
/// ``KeychainError/invalidArgument``; an exhausted quota
/// ``KeychainError/unknownError(code:message:)`` with `EDQUOT` and the
/// quota's use; `EACCES` ``KeychainError/missingEntitlement``; system calls
/// a seccomp filter forbids (Docker's default profile) or a kernel without
/// keyrings ``KeychainError/serviceUnavailable``. Nothing survives a reboot.
///
/// Changes made elsewhere are not reported (the kernel announces none):
/// observers hear the keychain's own attempts only. Safe to use from many
/// threads and after fork(): each call resolves the keyring afresh.
public final class KernelKeyringInterface: KeychainInterfaceProtocol, Sendable {

    /// The largest value the kernel stores in a "user" key, in bytes.
    public static let maximumValueSize = Int(KEYCHAINKIT_USER_KEY_MAX_PAYLOAD)

    /// The keyring new and found keys are linked in.
    public let keyring: KernelKeyring

    /// Creates a backend on `keyring` (by default the user's persistent
    /// keyring). Makes no system call: a kernel keyring that is forbidden
    /// or missing shows in the first operation.
    public init(keyring: KernelKeyring = .persistent) {
        self.keyring = keyring
    }

    /// One per keyring of the calling process.
    public var storeIdentity: KeychainStoreIdentity? { KeychainStoreIdentity("kernel keyring \(keyring)") }

    /// In kernel memory: the persistent keyring until reboot, the user and
    /// session keyrings until logout.
    public var persistence: KeychainPersistence? { keyring == .persistent ? .untilReboot : .untilLogout }

    public func readItem(_ key: KeychainAttributes) throws(KeychainError) -> [UInt8]? {
        let ring = try keyring.resolve()
        guard let serial = try find(key, in: ring) else { return nil }
        do throws(KeychainError) {
            return try payload(of: serial)
        } catch .missingEntitlement {
            // Unlinked by another writer since it was found, a key is no
            // longer possessed through the keyring, and a new one refuses
            // reading (EACCES) until it is destroyed: then it is gone.
            if try members(of: ring).contains(serial) { throw .missingEntitlement }
            return nil
        }
    }

    public func containsItem(_ key: KeychainAttributes) throws(KeychainError) -> Bool {
        try find(key, in: try keyring.resolve()) != nil
    }

    public func updateItem(_ key: KeychainAttributes, value: [UInt8]) throws(KeychainError) {
        let ring = try keyring.resolve()
        guard try find(key, in: ring) != nil else { throw .itemNotFound }
        try add(key, value, to: ring)
    }

    /// Creates the key, or replaces the value of one another writer created
    /// meanwhile, atomically (`add_key`). Never throws
    /// ``KeychainError/duplicateItem``.
    public func insertItem(_ key: KeychainAttributes, value: [UInt8]) throws(KeychainError) {
        try add(key, value, to: try keyring.resolve())
    }

    /// Unlinks the key from the keyring; the kernel destroys it once no
    /// keyring links it.
    public func deleteItem(_ key: KeychainAttributes) throws(KeychainError) {
        let ring = try keyring.resolve()
        guard let serial = try find(key, in: ring) else { throw .itemNotFound }
        let result = keychainkit_key_unlink(serial, ring)
        // ENOENT: another writer unlinked it since it was found.
        guard result == 0 else { throw -result == ENOENT ? .itemNotFound : KernelKeyringFailure.error(-result, "unlinking a key") }
    }

    public func accounts(inService service: String) throws(KeychainError) -> [String] {
        var accounts: [String] = []
        var seen = Set<[UInt8]>()  // by bytes: canonically equal names are distinct accounts
        for serial in try members(of: try keyring.resolve()) {
            guard let (type, description) = try self.description(of: serial), type == "user",
                  let account = KernelKeyDescription.account(in: description, service: service) else { continue }
            if seen.insert(Array(account.utf8)).inserted { accounts.append(account) }
        }
        return accounts.sortedByBytes()
    }

    /// What a message about `error`, thrown by this backend, adds.
    public func failureDetail(for error: KeychainError) -> String? {
        switch error {
        case .serviceUnavailable:
            "the kernel keyring is forbidden here: add_key/keyctl failed with ENOSYS or EPERM "
                + "(a seccomp filter such as Docker's default profile, or a kernel without keyrings)"
        case .missingEntitlement:
            "the kernel refused access to the \(keyring) keyring or the key (EACCES)"
        case .invalidArgument:
            "the kernel keyring stores values of 1 to \(Self.maximumValueSize) bytes, "
                + "under a description (\(KernelKeyDescription.prefix)…) of at most \(KEYCHAINKIT_KEY_MAX_DESCRIPTION) bytes"
        default:
            nil
        }
    }

    // MARK: System calls

    /// The serial of the "user" key of `key` linked in `ring` itself; `nil`
    /// when there is none.
    private func find(_ key: KeychainAttributes, in ring: Int32) throws(KeychainError) -> Int32? {
        let description = KernelKeyDescription(key)
        guard description.fits else { return nil }  // could never have been added
        let serial = keychainkit_key_search_user(ring, description.text)
        guard serial >= 0 else {
            if KernelKeyringFailure.meansAbsent(-serial) { return nil }
            throw KernelKeyringFailure.error(-serial, "searching the \(keyring) keyring")
        }
        // The search also descends into keyrings linked in `ring` (the
        // session keyring links the user keyring), and looks there first.
        return try members(of: ring).contains(serial) ? serial : nil
    }

    /// Creates or updates the key of `key` in `ring` with `value`.
    private func add(_ key: KeychainAttributes, _ value: [UInt8], to ring: Int32) throws(KeychainError) {
        let description = KernelKeyDescription(key)
        guard description.fits, (1...Self.maximumValueSize).contains(value.count) else { throw .invalidArgument }
        let serial = value.withUnsafeBytes { keychainkit_key_add_user(description.text, $0.baseAddress, $0.count, ring) }
        guard serial >= 0 else {
            // The kernel charges the payload, the description and its NUL.
            throw KernelKeyringFailure.error(-serial, "adding a key", needing: value.count + description.text.utf8.count + 1)
        }
        // Best effort: a key another tool created keeps permissions we may not change.
        _ = keychainkit_key_set_permissions(serial, keyring.keyPermissions)
    }

    /// The value of the key `serial`; `nil` when it is gone.
    ///
    /// Reads into a buffer of the size most secrets fit and, when the key says
    /// its payload is longer, once more into a buffer of exactly that size
    /// (the key may be replaced meanwhile: then again). Every buffer is wiped.
    private func payload(of serial: Int32) throws(KeychainError) -> [UInt8]? {
        var capacity = 512
        while true {
            var buffer = [UInt8](repeating: 0, count: capacity)
            defer { buffer.wipe() }
            let length = buffer.withUnsafeMutableBytes { keychainkit_key_read(serial, $0.baseAddress, $0.count) }
            guard length >= 0 else {
                if KernelKeyringFailure.meansAbsent(Int32(-length)) { return nil }
                throw KernelKeyringFailure.error(Int32(-length), "reading a key")
            }
            if length <= buffer.count { return Array(buffer[0..<length]) }
            guard length <= Self.maximumValueSize else {
                throw KeychainError.unknownError(code: EMSGSIZE, message: "a key's payload exceeds the \"user\" key limit")
            }
            capacity = length
        }
    }

    /// The serials of the keys linked in `ring`.
    private func members(of ring: Int32) throws(KeychainError) -> [Int32] {
        var serials = [Int32](repeating: 0, count: 64)
        while true {
            let length = serials.withUnsafeMutableBytes { keychainkit_key_read(ring, $0.baseAddress, $0.count) }
            guard length >= 0 else { throw KernelKeyringFailure.error(Int32(-length), "listing the \(keyring) keyring") }
            let count = length / MemoryLayout<Int32>.size
            if count <= serials.count { return Array(serials[0..<count]) }
            serials = [Int32](repeating: 0, count: count + 16)  // grown meanwhile: read again
        }
    }

    /// The type and description of the key `serial`; `nil` when it is gone.
    private func description(of serial: Int32) throws(KeychainError) -> (type: String, description: [UInt8])? {
        var buffer = [CChar](repeating: 0, count: 256)
        while true {
            let length = buffer.withUnsafeMutableBufferPointer { keychainkit_key_describe(serial, $0.baseAddress, $0.count) }
            guard length >= 0 else {
                if KernelKeyringFailure.meansAbsent(Int32(-length)) || -length == EACCES { return nil }
                throw KernelKeyringFailure.error(Int32(-length), "describing a key")
            }
            guard length <= buffer.count else {
                buffer = [CChar](repeating: 0, count: length)
                continue
            }
            // "type;uid;gid;perm;description"; the description may itself contain ';'.
            let bytes = buffer[0..<(length - 1)].map { UInt8(bitPattern: $0) }
            let fields = bytes.split(separator: UInt8(ascii: ";"), maxSplits: 4, omittingEmptySubsequences: false)
            guard fields.count == 5 else { return nil }
            return (String(decoding: fields[0], as: UTF8.self), Array(fields[4]))
        }
    }
}
