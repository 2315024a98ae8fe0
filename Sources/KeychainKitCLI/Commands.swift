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
            try watch(account, every: interval)
        case .help:
            try StandardStreams.writeLine(Invocation.usage)
        case .version:
            try StandardStreams.writeLine("keychainkit \(String(cString: kk_version_string()))")
        }
    }

    private func key(_ account: String) -> KeychainAttributes {
        KeychainAttributes(account: account, service: service)
    }

    /// Polls the key with fresh reads and prints one line per change of
    /// state: present (with a change counter, never the value), absent,
    /// locked, unavailable.
    private func watch(_ account: String, every interval: Duration) throws(CLIFailure) {
        // Interrupting ends the watch, even when the shell that started us
        // in the background made us ignore SIGINT.
        signal(SIGINT, SIG_DFL)
        var last: String?
        var previousValue: [UInt8]?
        var changes = 0
        try StandardStreams.writeLine("watching '\(account)' on '\(service)'; interrupt to stop")
        while true {
            let state: String
            do throws(KeychainError) {
                let value = try keychain.data(forKey: key(account))
                if let value {
                    if value != previousValue, previousValue != nil || last != nil { changes += 1 }
                    state = "present (change \(changes))"
                } else {
                    state = "absent"
                }
                previousValue?.wipe()  // in place: a `var` copy would wipe nothing
                previousValue = value
            } catch {
                state = "\(error)"
            }
            if state != last {
                try StandardStreams.writeLine("\(account): \(state)")
                last = state
            }
            let (seconds, attoseconds) = interval.components
            var delay = timespec(tv_sec: Int(seconds), tv_nsec: Int(attoseconds / 1_000_000_000))
            var remaining = timespec()
            while nanosleep(&delay, &remaining) != 0 && errno == EINTR { delay = remaining }
        }
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
