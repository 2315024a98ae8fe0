// SPDX-License-Identifier: MIT
import CKeychainKitSupport
import KeychainKitAPI

@c @implementation
public func kk_get_many(
    _ kc: OpaquePointer?, _ service: UnsafePointer<CChar>?, _ accounts: UnsafePointer<UnsafePointer<CChar>?>?,
    _ count: Int, _ outValues: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?,
    _ outLengths: UnsafeMutablePointer<Int>?, _ outStatuses: UnsafeMutablePointer<kk_status>?
) -> kk_status {
    burningItsStack {
        status { () throws(ArgumentFailure) in
            let handle = try handle(kc)
            // size_t arrives as Int (SIZE_MAX is -1): no array the caller
            // could hold has more than PTRDIFF_MAX / sizeof(char *) entries.
            guard count >= 0, count <= Int.max / MemoryLayout<UnsafeMutablePointer<CChar>?>.stride else {
                throw invalidArgument("count \(UInt(bitPattern: count)) is more than PTRDIFF_MAX / sizeof(char *)")
            }
            guard count > 0 else { return KK_OK }
            guard let accounts else { throw invalidArgument("accounts is NULL") }
            guard let outValues else { throw invalidArgument("out_values is NULL") }
            guard let outStatuses else { throw invalidArgument("out_statuses is NULL") }
            let entries = UnsafeBufferPointer(start: accounts, count: count)
            let values = UnsafeMutableBufferPointer(start: outValues, count: count)
            let statuses = UnsafeMutableBufferPointer(start: outStatuses, count: count)
            values.initialize(repeating: nil)
            let serviceText: String
            do throws(ArgumentFailure) {
                serviceText = try serviceName(service)
            } catch {
                statuses.initialize(repeating: error.status)
                throw error
            }
            // An account C cannot hand over as UTF-8 is that entry's KK_EINVAL,
            // as kk_get() of it would be; the others are read.
            let names = entries.map { $0.flatMap { String(validatingCString: $0) } }
            var read: IndexingIterator<[Result<[UInt8]?, KeychainError>]>
            do throws(KeychainError) {
                read = try handle.keychain.data(forAccounts: names.compactMap { $0 }, inService: serviceText).makeIterator()
            } catch {
                let status = fail(error, on: handle)
                statuses.initialize(repeating: status)
                return status
            }
            var first: (index: Int, error: KeychainError?)? = nil
            for index in 0..<count {
                guard names[index] != nil else {
                    statuses[index] = KK_EINVAL
                    if first == nil { first = (index, nil) }
                    continue
                }
                switch read.next()! {
                case var .success(.some(bytes)):
                    statuses[index] = give(bytes, to: outValues + index, length: outLengths.map { $0 + index })
                    bytes.wipe()
                    if statuses[index] != KK_OK && first == nil { first = (index, nil) }
                case .success(nil):
                    statuses[index] = KK_ENOTFOUND
                case let .failure(error):
                    statuses[index] = error.status
                    if error != .itemNotFound && first == nil { first = (index, error) }
                }
            }
            guard let first else { return KK_OK }
            if let error = first.error { return fail(error, on: handle) }
            return statuses[first.index] == KK_EINVAL
                ? fail(KK_EINVAL, "account \(first.index) is NULL or not valid UTF-8") : statuses[first.index]
        }
    }
}
