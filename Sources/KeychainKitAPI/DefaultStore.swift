// SPDX-License-Identifier: MIT
import KeychainKitBus
import KeychainKitCore
import KeychainKitFileStore
import KeychainKitSecretServiceBackend

/// Where a program that asks for "the keychain" keeps its secrets, as
/// libsecret decides it: inside a Flatpak or Snap sandbox whose Secret
/// portal answers (`/.flatpak-info` or `$SNAP_NAME`, the portal's version
/// 1), the app's own file keyed by the portal — libsecret's
/// `$XDG_DATA_HOME/keyrings/default.keyring` there, so the app and its
/// libsecret-using libraries share it; everywhere else the user's Secret
/// Service. What `kk_open_default()`, Python's `Keychain()`, the tool and
/// its helpers open when not told otherwise.
public enum DefaultStore: String, Sendable, CaseIterable {

    /// The user's Secret Service (``SecretServiceKeychainInterface``).
    case secretService = "secret-service"

    /// The sandboxed app's file, its master secret from the Secret portal
    /// (``FileKeychainInterface`` with ``FileKeychainMaster/portal``).
    case sandboxFile = "file"

    /// Whether this process runs in a Flatpak or Snap sandbox, as libsecret
    /// decides it (`/.flatpak-info`, or `$SNAP_NAME` set).
    public static var isSandboxed: Bool { SecretPortal.isSandboxed }

    /// This process's default store: decided afresh at each call (a bus
    /// round trip inside a sandbox, bounded by
    /// ``SecretServiceKeychainInterface/defaultTimeout``; none outside).
    public static func current() -> DefaultStore {
        SecretPortal.keysTheDefaultStore(timeout: BusTimeouts.microseconds(SecretServiceKeychainInterface.defaultTimeout))
            ? .sandboxFile : .secretService
    }

    /// The default store's backend, opened.
    public enum Opened: Sendable {
        case secretService(SecretServiceKeychainInterface)
        case sandboxFile(FileKeychainInterface)

        /// Its items addressed by attributes (server logins, git's and
        /// Docker's credentials).
        public var attributeItems: any AttributeItemStore {
            switch self {
            case let .secretService(interface): interface
            case let .sandboxFile(interface): interface
            }
        }
    }

    /// Opens `store` (by default this process's, ``current()``): a Secret
    /// Service handle (connecting is deferred to its first operation), or
    /// the sandboxed app's file, which throws what opening it does
    /// (``FileKeychainInterface/init(path:master:lockTimeout:cacheMaster:)``).
    public static func open(_ store: DefaultStore = current()) throws(KeychainError) -> Opened {
        switch store {
        case .secretService: .secretService(SecretServiceKeychainInterface())
        case .sandboxFile: .sandboxFile(try FileKeychainInterface(path: nil, master: .portal))
        }
    }
}
