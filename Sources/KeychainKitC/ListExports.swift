import CKeychainKitSupport
import KeychainKit

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
        let accounts: [String]
        do throws(KeychainError) {
            accounts = try handle.keychain.accounts(inService: serviceName)  // sorted by bytes
        } catch {
            return fail(error, on: handle)
        }
        let textBytes = accounts.reduce(0) { $0 + $1.utf8.count + 1 }
        guard let list = keychainkit_list_alloc(accounts.count, textBytes) else { return fail(KK_ENOMEM, nil) }
        var text = UnsafeMutableRawPointer(list + accounts.count + 1).assumingMemoryBound(to: CChar.self)
        for (index, account) in accounts.enumerated() {
            list[index] = text
            for byte in account.utf8 {
                text.pointee = CChar(bitPattern: byte)
                text += 1
            }
            text.pointee = 0
            text += 1
        }
        outAccounts.pointee = list
        outCount?.pointee = accounts.count
        return KK_OK
    }
}
