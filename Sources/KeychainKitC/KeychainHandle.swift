// SPDX-License-Identifier: MIT
import KeychainKitAPI

/// What a `kk_keychain *` points to: a retained keychain, with what its
/// opener knew of it (its backend's capabilities), recorded at open.
final class KeychainHandle {

    let keychain: any KeychainProtocol

    /// The handle's items addressed by attributes (server logins): those of
    /// a Secret Service, in-memory or file handle; `nil` for a kernel keyring one.
    let attributeItems: (any AttributeItemStore)?

    /// The handle's Secret Service backend; `nil` for other backends.
    let secretService: SecretServiceKeychainInterface?

    /// The handle's in-memory backend, which `kk_open_memory_shared` shares;
    /// `nil` for other backends.
    let memory: InMemoryKeychainInterface?

    /// The backend's name, as `kk_backend_of` gives it: static text.
    let backendName: StaticString

    private init(
        _ keychain: any KeychainProtocol, backendName: StaticString, attributeItems: (any AttributeItemStore)?,
        secretService: SecretServiceKeychainInterface? = nil, memory: InMemoryKeychainInterface? = nil
    ) {
        self.keychain = keychain
        self.backendName = backendName
        self.attributeItems = attributeItems
        self.secretService = secretService
        self.memory = memory
    }

    /// A handle on a Secret Service.
    convenience init(_ interface: SecretServiceKeychainInterface) {
        self.init(Keychain(interface: interface), backendName: "secret-service", attributeItems: interface, secretService: interface)
    }

    /// A handle on an in-memory store.
    convenience init(_ interface: InMemoryKeychainInterface) {
        self.init(Keychain(interface: interface), backendName: "memory", attributeItems: interface, memory: interface)
    }

    /// A handle on a keyring file.
    convenience init(_ interface: FileKeychainInterface) {
        self.init(Keychain(interface: interface), backendName: "file", attributeItems: interface)
    }

    /// A handle on a kernel keyring, which has no items addressed by attributes.
    convenience init(_ interface: KernelKeyringInterface) {
        self.init(Keychain(interface: interface), backendName: "kernel", attributeItems: nil)
    }

    /// Hands the handle to C, which owns one reference until `kk_close`.
    func toC() -> OpaquePointer {
        OpaquePointer(Unmanaged.passRetained(self).toOpaque())
    }

    /// The handle behind a C pointer, retained for the caller's scope, so a
    /// `kk_close` from inside a callback cannot free it under a running call.
    static func fromC(_ pointer: OpaquePointer) -> KeychainHandle {
        Unmanaged<KeychainHandle>.fromOpaque(UnsafeRawPointer(pointer)).takeUnretainedValue()
    }

    /// Gives back the reference C owned.
    static func releaseC(_ pointer: OpaquePointer) {
        Unmanaged<KeychainHandle>.fromOpaque(UnsafeRawPointer(pointer)).release()
    }
}
