// SPDX-License-Identifier: MIT
import CKeychainKitSupport
import KeychainKitAPI
import KeychainKitStatus

// The header's file handles: kk_open_file and its options.

@c @implementation
public func kk_open_file(_ options: UnsafePointer<kk_file_options>?, _ out: UnsafeMutablePointer<OpaquePointer?>?) -> kk_status {
    status { () throws(ArgumentFailure) in
        guard let out else { throw invalidArgument("out is NULL") }
        let options = options?.pointee ?? kk_file_options(
            version: UInt32(KK_FILE_OPTIONS_VERSION), path: nil, master_source: KK_MASTER_AUTOMATIC, master: nil,
            master_len: 0, master_fd: -1, lock_timeout_ms: 0, flags: 0)
        guard options.version == UInt32(KK_FILE_OPTIONS_VERSION) else {
            throw invalidArgument("unknown options version \(options.version) (initialize with KK_FILE_OPTIONS_INIT)")
        }
        let path = try optionalText(options.path, "path")
        guard options.flags & ~UInt32(KK_FILE_CACHE_MASTER) == 0 else {
            throw invalidArgument("unknown flags \(options.flags)")
        }
        let timeout = options.lock_timeout_ms == 0 ? Int(KK_DEFAULT_TIMEOUT_MS) : Int(options.lock_timeout_ms)
        // A secret given is copied into secret memory by the open, and this
        // copy wiped after it, once the master naming it is consumed (so
        // the wipe reaches its one storage).
        var given: [UInt8] = []
        defer { given.wipe() }
        let master: FileKeychainMaster
        switch options.master_source {
        case KK_MASTER_AUTOMATIC: master = .automatic
        case KK_MASTER_CREDENTIAL: master = .systemdCredential
        case KK_MASTER_PORTAL: master = .portal
        case KK_MASTER_FD:
            guard options.master_fd >= 0 else { throw invalidArgument("master_fd is negative with KK_MASTER_FD") }
            master = .fileDescriptor(options.master_fd)
        case KK_MASTER_SECRET:
            guard let bytes = options.master else { throw invalidArgument("master is NULL with KK_MASTER_SECRET") }
            guard options.master_len <= FileKeychainMaster.largestSecret else {
                throw invalidArgument("master_len is more than \(FileKeychainMaster.largestSecret) bytes")
            }
            given = Array(UnsafeBufferPointer(start: bytes, count: options.master_len))
            master = .secret(given)
        default: throw invalidArgument("unknown master source \(options.master_source.rawValue)")
        }
        do throws(KeychainError) {
            let interface = try FileKeychainInterface(
                path: path, master: consume master, lockTimeout: timeout,
                cacheMaster: options.flags & UInt32(KK_FILE_CACHE_MASTER) != 0)
            out.pointee = KeychainHandle(interface).toC()
            return KK_OK
        } catch {
            return fail(error.status, FileKeychainInterface.openFailureDetail)
        }
    }
}

@c @implementation
public func kk_persistence_of(_ kc: OpaquePointer?, _ out: UnsafeMutablePointer<kk_persistence>?) -> kk_status {
    status { () throws(ArgumentFailure) in
        let handle = try handle(kc)
        guard let out else { throw invalidArgument("out is NULL") }
        guard let persistence = handle.keychain.persistence else { throw invalidArgument("the handle cannot say") }
        out.pointee = switch persistence {
        case .persistent: KK_PERSISTENT
        case .untilReboot: KK_UNTIL_REBOOT
        case .untilLogout: KK_UNTIL_LOGOUT
        case .untilClose: KK_UNTIL_CLOSE
        }
        return KK_OK
    }
}
