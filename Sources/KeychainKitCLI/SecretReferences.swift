// SPDX-License-Identifier: MIT
import KeychainKitAPI

#if canImport(Glibc)
import Glibc
#endif

/// A secret named by reference, `keychainkit://SERVICE/ACCOUNT`, as `.env`
/// files (`run --env-file`) and templates (`inject`) name them: either name
/// percent-encoded (`%2F`, `%25`, `%20`) where it holds `/`, `%`, a space
/// or other bytes that would end the reference; the decoded bytes must be
/// UTF-8 and the service not empty.
struct SecretReference: Hashable {

    static let scheme = "keychainkit://"

    let service: String
    let account: String

    /// The reference `text` is, whole; `nil` when it does not begin with
    /// the scheme; a usage failure when it does but is malformed.
    static func parse(_ text: Substring) throws(CLIFailure) -> SecretReference? {
        guard text.hasPrefix(scheme) else { return nil }
        let rest = text.dropFirst(scheme.count)
        let parts = rest.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count == 2, let service = decode(parts[0]), let account = decode(parts[1]), !service.isEmpty else {
            throw CLIFailure(.usage, "'\(text)' is not a reference: \(scheme)SERVICE/ACCOUNT, percent-encoding '/', '%' and spaces in the names")
        }
        return SecretReference(service: service, account: account)
    }

    /// `text` with each `%XX` decoded; `nil` when it holds a `/`, a space,
    /// a control character or a `%` not followed by two hex digits, or
    /// decodes to bytes that are not UTF-8.
    private static func decode(_ text: Substring) -> String? {
        var bytes: [UInt8] = []
        var iterator = text.utf8.makeIterator()
        while let byte = iterator.next() {
            if byte == UInt8(ascii: "%") {
                guard let high = iterator.next().flatMap(hexValue), let low = iterator.next().flatMap(hexValue) else { return nil }
                bytes.append(high << 4 | low)
            } else if byte == UInt8(ascii: "/") || byte <= UInt8(ascii: " ") || byte == 0x7F {
                return nil
            } else {
                bytes.append(byte)
            }
        }
        return String(validating: bytes, as: UTF8.self)
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    /// How messages name it (names only: never a secret).
    var description: String { "'\(account)' on '\(service)'" }
}

/// Reads the secrets `references` name, one batch per service (in the order
/// services first appear); throws at the first reference (in order) that
/// names no secret or cannot be read, having wiped what was read.
func resolve(_ references: [SecretReference], in keychain: any KeychainProtocol) throws(CLIFailure) -> [SecretReference: [UInt8]] {
    var services: [String] = []
    var accounts: [String: [String]] = [:]
    for reference in references where accounts[reference.service]?.contains(reference.account) != true {
        if accounts[reference.service] == nil { services.append(reference.service) }
        accounts[reference.service, default: []].append(reference.account)
    }
    var found: [SecretReference: [UInt8]] = [:]
    func wipeAll() { for key in found.keys { found[key]!.wipe() } }
    for service in services {
        let names = accounts[service]!
        let read: [Result<[UInt8]?, KeychainError>]
        do {
            read = try keychain.data(forAccounts: names, inService: service)
        } catch {
            wipeAll()
            throw CLIFailure(error, doing: "reading '\(service)'", detail: keychain.failureDetail(for: error))
        }
        for (account, result) in zip(names, read) {
            if case let .success(value?) = result { found[SecretReference(service: service, account: account)] = value }
        }
        for (account, result) in zip(names, read) {
            if case let .failure(error) = result {
                wipeAll()
                throw CLIFailure(error, doing: "reading '\(account)' on '\(service)'", detail: keychain.failureDetail(for: error))
            }
        }
    }
    for reference in references where found[reference] == nil {
        wipeAll()
        throw CLIFailure(.notFound, "no secret for \(reference.description)")
    }
    return found
}
