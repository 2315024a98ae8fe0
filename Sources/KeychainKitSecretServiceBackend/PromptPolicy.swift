// SPDX-License-Identifier: MIT
#if canImport(Glibc)
import Glibc
#endif

/// Whether a Secret Service backend may show the service's unlock prompts.
///
/// A locked collection (a locked gnome-keyring login keyring, a locked
/// KeePassXC database) can only be unlocked by the user, through a dialog
/// the service shows when asked. With ``never`` the backend never asks: an
/// operation that needs the collection unlocked fails with
/// ``KeychainError/interactionNotAllowed``. With ``allowed`` it asks, and
/// waits for the user's answer up to the backend's prompt timeout.
///
/// Confirmation prompts for an operation in an unlocked collection
/// (KeePassXC asks for one at every create and delete, and completes it
/// without a dialog unless the user turned its confirmations on) are
/// completed under either policy, within the call timeout for ``never``
/// and the prompt timeout for ``allowed``.
public enum PromptPolicy: Sendable, Hashable {

    /// Never show an unlock prompt: a locked collection is
    /// ``KeychainError/interactionNotAllowed``.
    case never

    /// Show the service's unlock prompt when an operation needs a locked
    /// collection, and wait for the user up to the prompt timeout.
    case allowed

    /// ``allowed`` when the process has a graphical session to show a
    /// dialog on (`WAYLAND_DISPLAY` or `DISPLAY` is set), else ``never``:
    /// a daemon, an SSH session or CI job never waits on a dialog nobody
    /// can see.
    public static var automatic: PromptPolicy {
        automatic(environment: { name in getenv(name).map { String(cString: $0) } })
    }

    /// ``automatic`` for a process whose environment variables
    /// `environment` gives.
    public static func automatic(environment: (String) -> String?) -> PromptPolicy {
        ["WAYLAND_DISPLAY", "DISPLAY"].contains { environment($0)?.isEmpty == false } ? .allowed : .never
    }
}
