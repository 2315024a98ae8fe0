// SPDX-License-Identifier: MIT
import KeychainKitSystem

/// A credential in git's credential helper protocol (gitcredentials(7),
/// git-credential(1)): `key=value` lines, ended by an empty line or the end
/// of input. The secrets (`password`, `oauth_refresh_token`) stay bytes and
/// are wiped by ``wipe()``.
package struct GitCredential {

    /// A fault in git's input; its message never repeats the input.
    package struct Fault: Error {
        package let message: String
    }

    package var protocolName: String?
    /// The host without its port.
    package var host: String?
    /// The port `host` carried after a colon (`example.com:8443`).
    package var port: UInt16?
    package var path: String?
    package var username: String?
    package var password: [UInt8]?
    /// When the password expires, in seconds since the Unix epoch (decimal).
    package var passwordExpiryUTC: String?
    package var oauthRefreshToken: [UInt8]?

    package init() {}

    /// Parses git's input. Lines with names this helper does not use
    /// (`capability[]`, `wwwauth[]`, `authtype`, ...) are ignored, as git
    /// asks of helpers. A line without `=`, or text that is not UTF-8, is
    /// refused; the message never repeats the input (it may hold a secret).
    /// A line's trailing CR is dropped, as git drops it.
    package init(parsing input: [UInt8]) throws(Fault) {
        for var line in input.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false) {
            if line.last == UInt8(ascii: "\r") { line = line.dropLast() }
            if line.isEmpty { break }
            guard let equals = line.firstIndex(of: UInt8(ascii: "=")) else {
                throw Fault(message: "invalid credential line: no '=' in it")
            }
            let name = String(decoding: line[line.startIndex..<equals], as: UTF8.self)
            let value = line[(equals + 1)...]
            func text() throws(Fault) -> String {
                guard let string = String(validating: value, as: UTF8.self) else {
                    throw Fault(message: "the credential's \(name) is not UTF-8")
                }
                return string
            }
            switch name {
            case "protocol": protocolName = try text()
            case "host": (host, port) = Self.splitPort(try text())
            case "path": path = try text()
            case "username": username = try text()
            case "password":
                password?.wipe()
                password = Array(value)
            case "password_expiry_utc": passwordExpiryUTC = try text()
            case "oauth_refresh_token":
                oauthRefreshToken?.wipe()
                oauthRefreshToken = Array(value)
            default: continue
            }
        }
    }

    /// The most input a credential may take: far beyond any real one (a
    /// 1 MiB password still fits), so that endless input ends.
    package static let longestInput = 4 << 20

    /// Whether `input` holds a whole credential: it has an empty line
    /// (which a CR before its newline leaves empty).
    package static func isComplete(_ input: [UInt8]) -> Bool {
        let newline = UInt8(ascii: "\n"), carriageReturn = UInt8(ascii: "\r")
        var lineStart = true
        var lineHasOnlyCR = false
        for byte in input {
            if byte == newline {
                if lineStart || lineHasOnlyCR { return true }
                lineStart = true
                lineHasOnlyCR = false
            } else {
                lineHasOnlyCR = lineStart && byte == carriageReturn
                lineStart = false
            }
        }
        return false
    }

    /// Whether every value ``output()`` would write fits on its line and
    /// reads back as itself: no newline (which would start a line of its
    /// own: an item whose `user` is `alice\nhost=evil.example` must not tell
    /// git of another host), no NUL, and no CR at its end (git, as this
    /// parser, drops a line's last CR: `p\r` would reach git as `p`; found
    /// by the fuzzer, IntegrationTests/fuzz/regressions-git).
    package var canBeWritten: Bool {
        let values: [[UInt8]?] = [
            username.map { Array($0.utf8) }, password, passwordExpiryUTC.map { Array($0.utf8) }, oauthRefreshToken,
        ]
        return values.allSatisfy { value in
            value.map { !$0.contains(UInt8(ascii: "\n")) && !$0.contains(0) && $0.last != UInt8(ascii: "\r") } ?? true
        }
    }

    /// `host` split at its last colon when a port (1 to 65535) follows it
    /// outside IPv6 brackets: `[::1]:8080` is `[::1]` and 8080, `[::1]` no port.
    package static func splitPort(_ host: String) -> (String, UInt16?) {
        let bytes = Array(host.utf8)
        guard let colon = bytes.lastIndex(of: UInt8(ascii: ":")),
              !bytes[..<colon].contains(UInt8(ascii: "[")) || bytes[..<colon].last == UInt8(ascii: "]"),
              let port = UInt16(String(decoding: bytes[(colon + 1)...], as: UTF8.self)), port > 0
        else { return (host, nil) }
        return (String(decoding: bytes[..<colon], as: UTF8.self), port)
    }

    /// Whether ``passwordExpiryUTC`` names a time before `now`.
    package func hasExpired(now: UInt64) -> Bool {
        passwordExpiryUTC.flatMap { UInt64($0) }.map { $0 <= now } ?? false
    }

    /// The lines git reads back from `get`: what is set among `username`,
    /// `password`, `password_expiry_utc`, `oauth_refresh_token`.
    package func output() -> [UInt8] {
        var bytes: [UInt8] = []
        func line(_ name: String, _ value: [UInt8]?) {
            guard let value else { return }
            bytes.appendWipingOldStorage(Array("\(name)=".utf8))
            bytes.appendWipingOldStorage(value)
            bytes.appendWipingOldStorage([UInt8(ascii: "\n")])
        }
        line("username", username.map { Array($0.utf8) })
        line("password", password)
        line("password_expiry_utc", passwordExpiryUTC.map { Array($0.utf8) })
        line("oauth_refresh_token", oauthRefreshToken)
        return bytes
    }

    package mutating func wipe() {
        password?.wipe()
        oauthRefreshToken?.wipe()
    }
}
