import CKeychainKitSupport
import KeychainKit

#if canImport(Glibc)
import Glibc
#endif

/// Runs one parsed invocation against a keychain.
struct Commands {

    let keychain: any KeychainProtocol
    let service: String

    func run(_ command: Invocation.Command) throws(CLIFailure) {
        switch command {
        case let .set(account):
            var secret = try StandardStreams.readSecret(prompt: "Secret for '\(account)' on '\(service)': ")
            defer { secret.wipe() }
            try keychainCall("storing '\(account)'") { () throws(KeychainError) in
                try keychain.updateData(secret, forKey: key(account))
            }
        case let .get(account, newline):
            let found = try keychainCall("reading '\(account)'") { () throws(KeychainError) in
                try keychain.data(forKey: key(account))
            }
            guard var secret = found else {
                throw CLIFailure(.notFound, "no secret for '\(account)' on '\(service)'")
            }
            defer { secret.wipe() }
            if newline { secret.appendWipingOldStorage([UInt8(ascii: "\n")]) }
            try StandardStreams.write(secret)
        case let .remove(account):
            try keychainCall("removing '\(account)'") { () throws(KeychainError) in
                try keychain.removeValue(forKey: key(account))
            }
        case .list:
            let accounts = try keychainCall("listing '\(service)'") { () throws(KeychainError) in
                try keychain.accounts(inService: service)
            }
            for account in accounts { try StandardStreams.writeLine(account) }
        case let .watch(account, interval):
            try KeyWatch(keychain: keychain, key: key(account)).run(polling: interval)
        case .help:
            try StandardStreams.writeLine(Invocation.usage)
        case .version:
            try StandardStreams.writeLine("keychainkit \(String(cString: kk_version_string()))")
        }
    }

    private func key(_ account: String) -> KeychainAttributes {
        KeychainAttributes(account: account, service: service)
    }
}

/// Runs a keychain call, turning its error into a failure that names what
/// was attempted (never the secret).
func keychainCall<R>(_ what: String, _ body: () throws(KeychainError) -> R) throws(CLIFailure) -> R {
    do {
        return try body()
    } catch {
        throw CLIFailure(error, doing: what)
    }
}
