// SPDX-License-Identifier: MIT
import CKeychainKitSupport
import KeychainKitAPI
#if canImport(Glibc)
import Glibc
#endif

// The header's "Handles": opening (each backend, the Secret Service with
// options) and closing.

@c @implementation
public func kk_open_secret_service(_ out: UnsafeMutablePointer<OpaquePointer?>?) -> kk_status {
    open(out) { KeychainHandle(SecretServiceKeychainInterface()) }
}

@c @implementation
public func kk_open_default(_ out: UnsafeMutablePointer<OpaquePointer?>?) -> kk_status {
    guard out != nil else { return fail(KK_EINVAL, "out is NULL") }
    do throws(KeychainError) {
        switch try DefaultStore.open() {
        case let .secretService(interface): return open(out) { KeychainHandle(interface) }
        case let .sandboxFile(interface): return open(out) { KeychainHandle(interface) }
        }
    } catch {
        return fail(error.status, FileKeychainInterface.openFailureDetail)
    }
}

@c @implementation
public func kk_backend_of(_ kc: OpaquePointer?, _ outName: UnsafeMutablePointer<UnsafePointer<CChar>?>?) -> kk_status {
    status { () throws(ArgumentFailure) in
        let handle = try handle(kc)
        guard let outName else { throw invalidArgument("out_name is NULL") }
        outName.pointee = UnsafeRawPointer(handle.backendName.utf8Start).assumingMemoryBound(to: CChar.self)
        return KK_OK
    }
}

@c @implementation
public func kk_secret_service_options_init(
    _ options: UnsafeMutablePointer<kk_secret_service_options>?, _ version: UInt32
) -> kk_status {
    guard let options else { return fail(KK_EINVAL, "options is NULL") }
    guard let size = size(ofOptionsVersion: version) else { return fail(KK_EINVAL, "unknown options version \(version)") }
    // A version 1 struct is shorter: write no byte past its end.
    var defaults = defaultOptions
    defaults.version = version
    withUnsafeBytes(of: &defaults) { UnsafeMutableRawPointer(options).copyMemory(from: $0.baseAddress!, byteCount: size) }
    return KK_OK
}

@c @implementation
public func kk_open_secret_service_with(
    _ options: UnsafePointer<kk_secret_service_options>?, _ out: UnsafeMutablePointer<OpaquePointer?>?
) -> kk_status {
    status { () throws(ArgumentFailure) in
        let interface = try secretServiceInterface(try readOptions(options))
        return open(out) { KeychainHandle(interface) }
    }
}

@c @implementation
public func kk_transfer_encrypted(_ kc: OpaquePointer?, _ outEncrypted: UnsafeMutablePointer<Int32>?) -> kk_status {
    status { () throws(ArgumentFailure) in
        let handle = try handle(kc)
        guard let outEncrypted else { throw invalidArgument("out_encrypted is NULL") }
        guard let secretService = handle.secretService else {
            throw invalidArgument("not a Secret Service handle: nothing it stores crosses a bus")
        }
        return keychainStatus(handle) { () throws(KeychainError) in
            outEncrypted.pointee = try secretService.transferIsEncrypted() ? 1 : 0
            return KK_OK
        }
    }
}

@c @implementation
public func kk_open_memory(_ out: UnsafeMutablePointer<OpaquePointer?>?) -> kk_status {
    open(out) { KeychainHandle(InMemoryKeychainInterface()) }
}

@c @implementation
public func kk_open_memory_shared(_ other: OpaquePointer?, _ out: UnsafeMutablePointer<OpaquePointer?>?) -> kk_status {
    guard let other else { return fail(KK_EINVAL, "other is NULL") }
    guard let memory = KeychainHandle.fromC(other).memory else { return fail(KK_EINVAL, "other is not an in-memory handle") }
    return open(out) { KeychainHandle(InMemoryKeychainInterface(sharingItemsWith: memory)) }
}

@c @implementation
public func kk_open_kernel_keyring(_ out: UnsafeMutablePointer<OpaquePointer?>?) -> kk_status {
    open(out) { KeychainHandle(KernelKeyringInterface()) }
}

@c @implementation
public func kk_open_kernel_keyring_in(_ which: kk_kernel_keyring, _ out: UnsafeMutablePointer<OpaquePointer?>?) -> kk_status {
    let keyring: KernelKeyring
    switch which {
    case KK_KERNEL_PERSISTENT: keyring = .persistent
    case KK_KERNEL_USER: keyring = .user
    case KK_KERNEL_SESSION: keyring = .session
    default: return fail(KK_EINVAL, "unknown kernel keyring \(which.rawValue)")
    }
    return open(out) { KeychainHandle(KernelKeyringInterface(keyring: keyring)) }
}

@c @implementation
public func kk_close(_ kc: OpaquePointer?) {
    guard let kc else { return }
    KeychainHandle.fromC(kc).keychain.removeAllObservers()
    KeychainHandle.releaseC(kc)
}

/// Stores the new handle `make` creates in `*out`.
private func open(_ out: UnsafeMutablePointer<OpaquePointer?>?, _ make: () -> KeychainHandle) -> kk_status {
    guard let out else { return fail(KK_EINVAL, "out is NULL") }
    out.pointee = make().toC()
    return KK_OK
}

@c @implementation
public func kk_unlock(
    _ kc: OpaquePointer?, _ collection: UnsafePointer<CChar>?, _ password: UnsafeMutableRawPointer?, _ passwordLength: Int
) -> kk_status {
    // Whatever happens, the caller's password is wiped before returning.
    defer { if let password, passwordLength > 0 { explicit_bzero(password, passwordLength) } }
    return status { () throws(ArgumentFailure) in
        let secretService = try secretServiceHandle(kc, "nothing it stores is locked by a service")
        let name = try optionalText(collection, "collection")
        guard password != nil || passwordLength == 0 else { throw invalidArgument("the password is NULL") }
        return keychainStatus(try handle(kc)) { () throws(KeychainError) in
            if let password {
                var copy = Array(UnsafeRawBufferPointer(start: password, count: passwordLength))
                try secretService.unlock(collection: name, password: &copy)  // wipes the copy
            } else {
                try secretService.unlock(collection: name)
            }
            return KK_OK
        }
    }
}

@c @implementation
public func kk_lock(_ kc: OpaquePointer?, _ collection: UnsafePointer<CChar>?) -> kk_status {
    status { () throws(ArgumentFailure) in
        let secretService = try secretServiceHandle(kc, "nothing it stores is locked by a service")
        let name = try optionalText(collection, "collection")
        return keychainStatus(try handle(kc)) { () throws(KeychainError) in
            try secretService.lock(collection: name)
            return KK_OK
        }
    }
}

/// The Secret Service backend of the handle `kc`; `why` says why another
/// backend's handle is refused.
private func secretServiceHandle(_ kc: OpaquePointer?, _ why: String) throws(ArgumentFailure) -> SecretServiceKeychainInterface {
    guard let secretService = try handle(kc).secretService else { throw invalidArgument("not a Secret Service handle: \(why)") }
    return secretService
}
