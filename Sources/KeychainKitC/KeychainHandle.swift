import KeychainKit

/// What a `kk_keychain *` points to: a retained keychain of either backend.
final class KeychainHandle {

    let keychain: any KeychainProtocol

    init(_ keychain: any KeychainProtocol) {
        self.keychain = keychain
    }

    /// The handle's items addressed by attributes (server logins): those of
    /// a Secret Service or in-memory handle; `nil` for a kernel keyring one.
    var attributeItems: (any AttributeItemStore)? {
        if let secretService { return secretService }
        if let memory = keychain as? Keychain<InMemoryKeychainInterface> { return memory.interface }
        return nil
    }

    /// The handle's Secret Service backend; `nil` for other backends.
    var secretService: SecretServiceKeychainInterface? {
        (keychain as? Keychain<SecretServiceKeychainInterface>)?.interface
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
