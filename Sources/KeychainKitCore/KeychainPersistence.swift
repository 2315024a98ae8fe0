// SPDX-License-Identifier: MIT
/// How long a keychain's items last: what a program that must not forget
/// (a token it cannot get again) checks before it stores.
public enum KeychainPersistence: String, Sendable, CaseIterable {
    /// On disk: items survive logout and reboot (a Secret Service's
    /// persistent collections, the file store).
    case persistent = "persistent"
    /// In the kernel until the machine restarts (the kernel's persistent
    /// keyring; it also expires after days unused).
    case untilReboot = "until reboot"
    /// Until the user's session, or last process, ends (the Secret
    /// Service's `session` collection, the kernel's user and session
    /// keyrings).
    case untilLogout = "until logout"
    /// In the process's memory, until the last handle on the store is
    /// closed (the in-memory store).
    case untilClose = "until close"
}
