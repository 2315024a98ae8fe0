// SPDX-License-Identifier: MIT
import CKeychainKitKernel
import KeychainKitCore

/// The kernel keyring a ``KernelKeyringInterface`` keeps its keys in.
public enum KernelKeyring: Sendable, CaseIterable {

    /// The user's persistent keyring (`KEYCTL_GET_PERSISTENT`): shared by
    /// every process of the user, kept across logins and sessions until it
    /// has gone unused for `/proc/sys/kernel/keys/persistent_keyring_expiry`
    /// seconds (3 days by default); gone at reboot. The default.
    case persistent

    /// The user keyring (`@u`): shared by every process of the user while
    /// any of them runs (or a session keyring links it); gone when the
    /// user's last process ends, and at reboot.
    case user

    /// The calling process's session keyring (`@s`): shared by the processes
    /// of one login session (an SSH login, a `keyctl session`), gone when
    /// the session ends. A process without one uses the user's session
    /// keyring (`@us`), as `keyctl` does; none is created.
    case session

    /// The keyring's ID, resolved for this process now, and possessed by it:
    /// the persistent and the user keyring are linked into the process
    /// keyring, so that this process (all its threads) possesses their keys
    /// whatever its session keyring links — without possession, the keys'
    /// default permissions let the user only view them. A fork()ed child,
    /// whose process keyring is a new one, links them again. Throws the
    /// mapped failure of the system call.
    func resolve() throws(KeychainError) -> Int32 {
        switch self {
        case .persistent:
            // Also touches the keyring's expiry.
            return try checked(keychainkit_key_get_persistent(KEYCHAINKIT_KEY_SPEC_PROCESS_KEYRING))
        case .user:
            let id = try checked(keychainkit_key_get_keyring_id(KEYCHAINKIT_KEY_SPEC_USER_KEYRING))
            _ = try checked(keychainkit_key_link(id, KEYCHAINKIT_KEY_SPEC_PROCESS_KEYRING))
            return id
        case .session:
            return try checked(keychainkit_key_get_keyring_id(KEYCHAINKIT_KEY_SPEC_SESSION_KEYRING))
        }
    }

    /// The permissions of the keys written here (KEYCTL_SETPERM): in the
    /// persistent and user keyrings, everything for a possessor and view,
    /// read, write and search for the user's other processes (they share
    /// those keyrings); in a session keyring, a possessor's only, so that
    /// another session of the same user (`keyctl print <serial>` from
    /// another login) cannot read what this session stored.
    var keyPermissions: UInt32 {
        self == .session ? KEYCHAINKIT_KEY_PERMISSIONS_POSSESSOR : KEYCHAINKIT_KEY_PERMISSIONS
    }

    private func checked(_ result: Int32) throws(KeychainError) -> Int32 {
        guard result >= 0 else { throw KernelKeyringFailure.error(-result, "finding the \(self) keyring") }
        return result
    }
}
