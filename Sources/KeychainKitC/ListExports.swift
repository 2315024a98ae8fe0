// SPDX-License-Identifier: MIT
import CKeychainKitSupport
import KeychainKitAPI

@c @implementation
public func kk_list(
    _ kc: OpaquePointer?, _ service: UnsafePointer<CChar>?,
    _ outAccounts: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>?,
    _ outCount: UnsafeMutablePointer<Int>?
) -> kk_status {
    outAccounts?.pointee = nil
    return status { () throws(ArgumentFailure) in
        let handle = try handle(kc)
        let serviceName = try serviceName(service)
        guard let outAccounts else { throw invalidArgument("out_accounts is NULL") }
        return keychainStatus(handle) { () throws(KeychainError) in
            give(try handle.keychain.accounts(inService: serviceName), to: outAccounts, count: outCount)  // sorted by bytes
        }
    }
}

/// Hands C a list of strings (released with kk_list_free) in *out, their
/// number in *count.
func give(
    _ strings: [String], to out: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
    count: UnsafeMutablePointer<Int>?
) -> kk_status {
    let textBytes = strings.reduce(0) { $0 + $1.utf8.count + 1 }
    guard let list = keychainkit_list_alloc(strings.count, textBytes) else { return fail(KK_ENOMEM, nil) }
    var text = UnsafeMutableRawPointer(list + strings.count + 1).assumingMemoryBound(to: CChar.self)
    for (index, string) in strings.enumerated() {
        list[index] = text
        for byte in string.utf8 {
            text.pointee = CChar(bitPattern: byte)
            text += 1
        }
        text.pointee = 0
        text += 1
    }
    out.pointee = list
    count?.pointee = strings.count
    return KK_OK
}
