import CKeychainKitKernel

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

    /// The keyring's ID, resolved for this process now: a fork()ed child,
    /// which has no process keyring of its parent's, gets its own link to
    /// the persistent keyring. Throws the mapped failure of the system call.
    func resolve() throws(KeychainError) -> Int32 {
        let id = switch self {
        // Linked into the process keyring, which makes this process (all
        // its threads) a possessor, and touches the keyring's expiry.
        case .persistent: keychainkit_key_get_persistent(KEYCHAINKIT_KEY_SPEC_PROCESS_KEYRING)
        case .user: keychainkit_key_get_keyring_id(KEYCHAINKIT_KEY_SPEC_USER_KEYRING)
        case .session: keychainkit_key_get_keyring_id(KEYCHAINKIT_KEY_SPEC_SESSION_KEYRING)
        }
        guard id >= 0 else { throw KernelKeyringFailure.error(-id, "finding the \(self) keyring") }
        return id
    }
}
