// SPDX-License-Identifier: MIT
import KeychainKitCore
import KeychainKitKernelKeyring
import KeychainKitSystem

/// A copy of a keyring file's master secret kept in the user's persistent
/// kernel keyring, so that after one unlock (by a descriptor, the secret
/// itself, the systemd credential) later processes of the user open the
/// file with no source until the machine restarts (or the keyring goes
/// unused for `persistent_keyring_expiry`, 3 days by default). The
/// automatic source reads it last.
///
/// The copy is a "user" key described
/// `keychainkit:23:keychainkit-file-master:<path>` (see
/// ``KernelKeyringInterface``), readable by the user's processes — the same
/// reach the file's own master source has. Caching is asked for; a kernel
/// that refuses (a seccomp filter, the quota) caches nothing, silently: the
/// open does not depend on it.
enum KernelMasterCache {

    private static let service = "keychainkit-file-master"

    private static func key(for path: String) -> KeychainAttributes {
        KeychainAttributes(account: path, service: service)
    }

    private static var keyring: KernelKeyringInterface { KernelKeyringInterface(keyring: .persistent) }

    /// The cached master secret of the file at `path`; `nil` when none is
    /// cached or the kernel keyring cannot be read.
    static func master(for path: String) -> MasterSecret? {
        guard var bytes = try? keyring.readItem(key(for: path)), !bytes.isEmpty else { return nil }
        return MasterSecret(SecretBuffer(wiping: &bytes))
    }

    /// Caches `master` for the file at `path` (best effort).
    static func store(_ master: MasterSecret, for path: String) {
        guard var bytes = try? master.withBytes({ Array($0) }) else { return }
        defer { bytes.wipe() }
        try? keyring.insertItem(key(for: path), value: bytes)
    }

    /// Forgets the cached master of the file at `path` (it no longer opens
    /// the file).
    static func forget(for path: String) {
        try? keyring.deleteItem(key(for: path))
    }
}
