// SPDX-License-Identifier: MIT
import CKeychainKitSupport
import KeychainKitAPI
import KeychainKitStatus

/// A C observer: the callback, its userdata, and the destroy function that
/// runs exactly once, when the last reference to the registration goes
/// (after removal, and after any callback still running returns).
final class CObserver: @unchecked Sendable {

    typealias Callback = @convention(c) (kk_event, UnsafePointer<CChar>?, UnsafePointer<CChar>?, kk_status, UnsafeMutableRawPointer?) -> Void
    typealias Destroy = @convention(c) (UnsafeMutableRawPointer?) -> Void

    private let callback: Callback
    private let userdata: UnsafeMutableRawPointer?
    private let destroy: Destroy?

    init(callback: Callback, userdata: UnsafeMutableRawPointer?, destroy: Destroy?) {
        self.callback = callback
        self.userdata = userdata
        self.destroy = destroy
    }

    deinit {
        destroy?(userdata)
    }

    func notify(_ change: KeychainChange) {
        let event = switch change.event {
        case .update: KK_EVENT_SET
        case .remove: KK_EVENT_REMOVE
        case .changed: KK_EVENT_CHANGED
        case .deleted: KK_EVENT_DELETED
        }
        // Not recorded for kk_error_message: the caller of kk_set is about
        // to record its own.
        let status: kk_status = change.error?.status ?? KK_OK
        change.key.service.withCString { service in
            change.key.account.withCString { account in
                callback(event, service, account, status, userdata)
            }
        }
    }
}

@c @implementation
public func kk_observe(
    _ kc: OpaquePointer?, _ service: UnsafePointer<CChar>?, _ account: UnsafePointer<CChar>?,
    _ callback: (@convention(c) (kk_event, UnsafePointer<CChar>?, UnsafePointer<CChar>?, kk_status, UnsafeMutableRawPointer?) -> Void)?,
    _ userdata: UnsafeMutableRawPointer?,
    _ destroy: (@convention(c) (UnsafeMutableRawPointer?) -> Void)?,
    _ outToken: UnsafeMutablePointer<UInt64>?
) -> kk_status {
    status { () throws(ArgumentFailure) in
        let handle = try handle(kc)
        let key = try key(service: service, account: account)
        guard let callback else { throw invalidArgument("the callback is NULL") }
        guard let outToken else { throw invalidArgument("out_token is NULL") }
        let observer = CObserver(callback: callback, userdata: userdata, destroy: destroy)
        let token = handle.keychain.addObserver(forKey: key) { observer.notify($0) }
        outToken.pointee = token.rawValue
        return KK_OK
    }
}

@c @implementation
public func kk_unobserve(_ kc: OpaquePointer?, _ token: UInt64) -> kk_status {
    status { () throws(ArgumentFailure) in
        let handle = try handle(kc)
        guard handle.keychain.removeObserver(KeychainObservationToken(rawValue: token)) else {
            throw invalidArgument("no observer has this token")
        }
        return KK_OK
    }
}
