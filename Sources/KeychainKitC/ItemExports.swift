// SPDX-License-Identifier: MIT
import CKeychainKitMemory
import CKeychainKitSupport
import KeychainKitAPI

@c @implementation
public func kk_get(
    _ kc: OpaquePointer?, _ service: UnsafePointer<CChar>?, _ account: UnsafePointer<CChar>?,
    _ outValue: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?, _ outLength: UnsafeMutablePointer<Int>?
) -> kk_status {
    outValue?.pointee = nil
    return burningItsStack {
        status { () throws(ArgumentFailure) in
            let handle = try handle(kc)
            let key = try key(service: service, account: account)
            guard let outValue else { throw invalidArgument("out_value is NULL") }
            return keychainStatus(handle) { () throws(KeychainError) in
                guard var bytes = try handle.keychain.data(forKey: key) else { throw .itemNotFound }
                defer { bytes.wipe() }
                return give(bytes, to: outValue, length: outLength)
            }
        }
    }
}

/// Hands C a secret: a new NUL-terminated copy of `bytes` (released with
/// kk_secret_free) in *out, its length in *length.
func give(
    _ bytes: [UInt8], to out: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>,
    length: UnsafeMutablePointer<Int>?
) -> kk_status {
    guard let copy = keychainkit_secret_alloc(bytes.count) else { return fail(KK_ENOMEM, nil) }
    bytes.withUnsafeBytes { source in
        UnsafeMutableRawPointer(copy).copyMemory(from: source.baseAddress ?? UnsafeRawPointer(copy), byteCount: source.count)
    }
    out.pointee = copy
    length?.pointee = bytes.count
    return KK_OK
}

/// Runs `body`, an export's work that reads secrets, in a frame below the
/// export's, then overwrites the stack it used: the calls that read a
/// secret (decryption, copies, arrays the optimizer put on the stack) leave
/// pieces of it there, which a core dump would hold (measured: two copies
/// 1.5 KiB below a small program's main, on the Secret Service).
func burningItsStack(_ body: () -> kk_status) -> kk_status {
    let status = apart(body)
    keychainkit_burn_stack(32 * 1024)
    return status
}

@inline(never)
private func apart(_ body: () -> kk_status) -> kk_status {
    body()
}

@c @implementation
public func kk_exists(_ kc: OpaquePointer?, _ service: UnsafePointer<CChar>?, _ account: UnsafePointer<CChar>?) -> kk_status {
    status { () throws(ArgumentFailure) in
        let handle = try handle(kc)
        let key = try key(service: service, account: account)
        return keychainStatus(handle) { () throws(KeychainError) in
            guard try handle.keychain.contains(key) else { throw .itemNotFound }
            return KK_OK
        }
    }
}

@c @implementation
public func kk_set(
    _ kc: OpaquePointer?, _ service: UnsafePointer<CChar>?, _ account: UnsafePointer<CChar>?,
    _ value: UnsafeRawPointer?, _ length: Int
) -> kk_status {
    status { () throws(ArgumentFailure) in
        let handle = try handle(kc)
        let key = try key(service: service, account: account)
        var bytes = try valueBytes(value, length)
        defer { bytes.wipe() }
        return keychainStatus(handle) { () throws(KeychainError) in
            try handle.keychain.updateData(bytes, forKey: key)
            return KK_OK
        }
    }
}

@c @implementation
public func kk_remove(_ kc: OpaquePointer?, _ service: UnsafePointer<CChar>?, _ account: UnsafePointer<CChar>?) -> kk_status {
    status { () throws(ArgumentFailure) in
        let handle = try handle(kc)
        let key = try key(service: service, account: account)
        return keychainStatus(handle) { () throws(KeychainError) in
            try handle.keychain.removeValue(forKey: key)
            return KK_OK
        }
    }
}

/// The bytes of a value C passes: `length` bytes at `value` (NULL when 0),
/// at most KK_MAX_VALUE_SIZE.
func valueBytes(_ value: UnsafeRawPointer?, _ length: Int) throws(ArgumentFailure) -> [UInt8] {
    guard length >= 0, UInt(length) <= UInt(keychainkit_max_value_size) else {
        throw invalidArgument("the value is larger than KK_MAX_VALUE_SIZE")
    }
    guard value != nil || length == 0 else { throw invalidArgument("value is NULL but len is not 0") }
    return value.map { Array(UnsafeRawBufferPointer(start: $0, count: length)) } ?? []
}
