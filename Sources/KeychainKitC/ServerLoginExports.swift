// SPDX-License-Identifier: MIT
import CKeychainKitSupport
import KeychainKitAPI

@c @implementation
public func kk_server_login_get(
    _ kc: OpaquePointer?, _ login: UnsafePointer<kk_server_login>?,
    _ outValue: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?, _ outLength: UnsafeMutablePointer<Int>?
) -> kk_status {
    outValue?.pointee = nil
    return burningItsStack {
        status { () throws(ArgumentFailure) in
            let (handle, logins) = try serverLogins(kc)
            let login = try serverLogin(login)
            guard let outValue else { throw invalidArgument("out_value is NULL") }
            return keychainStatus(handle) { () throws(KeychainError) in
                guard var bytes = try logins.password(for: login) else { throw .itemNotFound }
                defer { bytes.wipe() }
                return give(bytes, to: outValue, length: outLength)
            }
        }
    }
}

@c @implementation
public func kk_server_login_set(
    _ kc: OpaquePointer?, _ login: UnsafePointer<kk_server_login>?, _ value: UnsafeRawPointer?, _ length: Int
) -> kk_status {
    status { () throws(ArgumentFailure) in
        let (handle, logins) = try serverLogins(kc)
        let login = try serverLogin(login)
        var bytes = try valueBytes(value, length)
        defer { bytes.wipe() }
        return keychainStatus(handle) { () throws(KeychainError) in
            try logins.setPassword(bytes, for: login)
            return KK_OK
        }
    }
}

@c @implementation
public func kk_server_login_remove(_ kc: OpaquePointer?, _ login: UnsafePointer<kk_server_login>?) -> kk_status {
    status { () throws(ArgumentFailure) in
        let (handle, logins) = try serverLogins(kc)
        let login = try serverLogin(login)
        return keychainStatus(handle) { () throws(KeychainError) in
            try logins.removePassword(for: login)
            return KK_OK
        }
    }
}

@c @implementation
public func kk_server_login_accounts(
    _ kc: OpaquePointer?, _ server: UnsafePointer<CChar>?,
    _ outAccounts: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>?,
    _ outCount: UnsafeMutablePointer<Int>?
) -> kk_status {
    outAccounts?.pointee = nil
    return status { () throws(ArgumentFailure) in
        let (handle, logins) = try serverLogins(kc)
        let serverName = try text(server, "server")
        guard !serverName.isEmpty else { throw invalidArgument("the server is empty") }
        guard let outAccounts else { throw invalidArgument("out_accounts is NULL") }
        return keychainStatus(handle) { () throws(KeychainError) in
            give(try logins.accounts(onServer: serverName), to: outAccounts, count: outCount)
        }
    }
}

/// The handle behind `kc` and its server logins; a kernel keyring handle
/// has none.
private func serverLogins(_ kc: OpaquePointer?) throws(ArgumentFailure) -> (KeychainHandle, ServerLogins) {
    let handle = try handle(kc)
    guard let store = handle.attributeItems else {
        throw invalidArgument("server logins need a Secret Service or in-memory handle, not a kernel keyring one")
    }
    return (handle, ServerLogins(store))
}

/// The login C describes.
private func serverLogin(_ login: UnsafePointer<kk_server_login>?) throws(ArgumentFailure) -> ServerLogin {
    guard let login = login?.pointee else { throw invalidArgument("login is NULL") }
    guard login.version == UInt32(KK_SERVER_LOGIN_VERSION) else {
        throw invalidArgument("unknown kk_server_login version \(login.version) (initialize with KK_SERVER_LOGIN_INIT)")
    }
    guard login.port <= UInt32(UInt16.max) else { throw invalidArgument("the port is above 65535") }
    let server = try text(login.server, "server")
    let result = ServerLogin(
        server: server, account: try text(login.account, "account"),
        protocolName: try optionalText(login.protocol, "protocol"), port: login.port == 0 ? nil : UInt16(login.port),
        path: try optionalText(login.path, "path"), domain: try optionalText(login.domain, "domain"),
        authenticationType: try optionalText(login.authtype, "authtype"))
    if let reason = result.invalidReason { throw invalidArgument(reason) }
    return result
}
