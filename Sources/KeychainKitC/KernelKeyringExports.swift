import CKeychainKitSupport
import KeychainKit

@c @implementation
public func kk_open_kernel_keyring(_ out: UnsafeMutablePointer<OpaquePointer?>?) -> kk_status {
    open(out) { Keychain(interface: KernelKeyringInterface()) }
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
    return open(out) { Keychain(interface: KernelKeyringInterface(keyring: keyring)) }
}
