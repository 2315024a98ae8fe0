// SPDX-License-Identifier: MIT
import CKeychainKitCrypto
import KeychainKitBus
import KeychainKitSystem
#if canImport(Glibc)
import Glibc
#endif

/// The Secret portal of sandboxed apps (`org.freedesktop.portal.Secret`,
/// xdg-desktop-portal): it gives each app a 64-byte secret of its own,
/// kept in the user's keyring (gnome-keyring's, KWallet's, oo7's), which
/// keys the app's file store — libsecret's and oo7's inside Flatpak and
/// Snap, so an app and its libsecret-using libraries share one file.
///
/// Spoken as libsecret speaks it (`secret-file-backend.c`): a sandbox is
/// `/.flatpak-info` or `$SNAP_NAME`; the portal's `version` property must
/// be 1; `RetrieveSecret(h fd, a{sv} {handle_token})` with the write end of
/// a pipe, then `Request.Response` on the request's path, then exactly 64
/// bytes from the pipe. Every step is bounded.
package enum SecretPortal {

    /// The bytes of the secret the portal gives.
    static let secretBytes = 64

    /// Whether this process runs in a Flatpak or Snap sandbox, as libsecret
    /// decides it.
    package static var isSandboxed: Bool {
        if access("/.flatpak-info", F_OK) == 0 { return true }
        guard let snap = getenv("SNAP_NAME") else { return false }
        return snap.pointee != 0
    }

    /// Whether this process should keep its secrets in the portal-keyed
    /// file, as libsecret decides (`secret_backend_get`): in a sandbox
    /// whose Secret portal answers with version 1. Outside a sandbox no
    /// bus is asked; inside, each call to the portal is bounded by `timeout`
    /// microseconds, and no answer in time is no portal.
    package static func keysTheDefaultStore(timeout: UInt64) -> Bool {
        guard isSandboxed else { return false }
        do throws(BusFailure) {
            let connection = try BusConnection.open(
                address: nil, timeoutMicroseconds: timeout, subscribing: [], to: NoSignals(), passingFileDescriptors: false)
            return try portalVersion(on: connection) == 1
        } catch {
            return false
        }
    }

    private static let destination = "org.freedesktop.portal.Desktop"
    private static let path = "/org/freedesktop/portal/desktop"
    private static let interface = "org.freedesktop.portal.Secret"

    /// Retrieves the app's secret. Each call to the portal is bounded by
    /// `timeout`, the portal's answer (it may unlock the keyring, showing
    /// a prompt) by `answerTimeout`, both in microseconds.
    static func retrieveSecret(timeout: UInt64, answerTimeout: UInt64) throws(FileStoreError) -> MasterSecret {
        let connection: BusConnection
        do throws(BusFailure) {
            connection = try BusConnection.open(
                address: nil, timeoutMicroseconds: timeout, subscribing: [], to: NoSignals(), passingFileDescriptors: true)
        } catch {
            throw FileStoreError(.noMasterKey, "no session bus for the Secret portal: \(error.message)")
        }
        let version: UInt32
        let owner: String?
        do throws(BusFailure) {
            version = try portalVersion(on: connection)  // starts the portal where the bus activates it
            owner = try connection.owner(of: destination)
        } catch {
            throw failure(error)
        }
        // Its answer is believed from the portal's unique name only: a
        // signal sent to us directly carries no well-known name the bus
        // vouches for, so any peer could forge Response (GLib, and so
        // libsecret, checks the same since CVE-2024-34397).
        guard let portal = owner else {
            throw FileStoreError(.noMasterKey, "the Secret portal left the session bus (nothing owns \(destination))")
        }
        guard version == 1 else {
            throw FileStoreError(.noMasterKey, "the Secret portal is version \(version); KeychainKit and libsecret speak version 1")
        }
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else {
            throw FileStoreError(.noMasterKey, "no pipe for the Secret portal: \(String(cString: strerror(errno)))")
        }
        var writeEnd = ends[1]
        defer {
            close(ends[0])
            if writeEnd >= 0 { close(writeEnd) }
        }
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        let token = "keychainkit" + randomHex()
        let sender = (connection.uniqueName ?? "").dropFirst().replacingDots()
        let request = "\(path)/request/\(sender)/\(token)"
        let answer: UInt32?
        do throws(BusFailure) {
            let call = try connection.methodCall(destination, path, interface, "RetrieveSecret")
            try call.append(fileDescriptor: writeEnd)
            close(writeEnd)  // the message holds its own copy; the portal's is the only writer left
            writeEnd = -1
            try call.append(stringVariants: [(key: "handle_token", value: token)])
            let rule = "type='signal',sender='\(portal)',interface='org.freedesktop.portal.Request',"
                + "member='Response',path='\(request)'"
            answer = try connection.call(call, thenAwait: rule, atMost: answerTimeout)?.readUInt32()
        } catch {
            throw failure(error)
        }
        guard let answer else {
            throw FileStoreError(.noMasterKey, "the Secret portal gave no answer within \(answerTimeout / 1_000_000) s")
        }
        switch answer {
        case 0: return try readSecret(from: ends[0])
        case 1: throw FileStoreError(.userCanceled, "the Secret portal's request was canceled")
        default: throw FileStoreError(.noMasterKey, "the Secret portal could not give the app's secret (response \(answer))")
        }
    }

    private static func failure(_ error: BusFailure) -> FileStoreError {
        FileStoreError(.noMasterKey, "the Secret portal: \(error.operation): \(error.message)")
    }

    /// The `version` property of the portal's Secret interface.
    private static func portalVersion(on connection: BusConnection) throws(BusFailure) -> UInt32 {
        let get = try connection.methodCall(destination, path, "org.freedesktop.DBus.Properties", "Get")
        try get.append(interface)
        try get.append("version")
        let reply = try connection.call(get)
        try reply.enterContainer("v", "u")
        return try reply.readUInt32()
    }

    /// Reads exactly ``secretBytes`` from `fd` (libsecret refuses any other
    /// length), then its end of file, within 5 seconds in all: a byte more
    /// is refused, since another writer of the pipe (a bus monitor also
    /// receives its write end) would show so.
    private static func readSecret(from fd: Int32) throws(FileStoreError) -> MasterSecret {
        var secret = [UInt8](repeating: 0, count: secretBytes + 1)
        defer { secret.wipe() }
        var got = 0
        let deadline = Deadline(after: 5_000_000)
        func refusal(_ what: String) -> FileStoreError {
            FileStoreError(.noMasterKey, "the Secret portal gave \(what) the \(secretBytes) bytes of an app's secret")
        }
        while true {
            var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let left = deadline.remaining.map { Int32(min(($0 + 999) / 1000, UInt64(Int32.max))) } ?? 0
            let ready = poll(&poller, 1, left)
            if ready < 0 {
                guard errno == EINTR else { throw refusal("\(got) bytes, then an error, not") }
                continue
            }
            guard ready > 0 else { throw refusal("no end of file after \(got) bytes within 5 s, not") }
            let count = secret.withUnsafeMutableBytes { read(fd, $0.baseAddress! + got, secretBytes + 1 - got) }
            if count < 0 {
                guard errno == EINTR else { throw refusal("\(got) bytes, then an error, not") }
                continue
            }
            if count == 0 {
                guard got == secretBytes else { throw refusal("\(got) bytes, not") }
                return MasterSecret(secret.withUnsafeBytes { SecretBuffer(copying: UnsafeRawBufferPointer(rebasing: $0[..<secretBytes])) })  // the end, after exactly the secret
            }
            got += count
            guard got <= secretBytes else { throw refusal("more than") }
        }
    }

    private static func randomHex() -> String {
        var bytes = [UInt8](repeating: 0, count: 8)
        _ = keychainkit_random_nonce(&bytes, bytes.count)
        return bytes.map { lowercaseHex(UInt32($0), width: 2) }.joined()
    }

    /// A receiver for a connection that subscribes to nothing.
    private final class NoSignals: BusSignalReceiver {
        func receive(_ signal: ReceivedSignal) {}
    }
}

extension Substring {
    /// The bus name as a path element: `.` becomes `_` (`1.42` → `1_42`).
    fileprivate func replacingDots() -> String {
        String(map { $0 == "." ? "_" : $0 })
    }
}
