// SPDX-License-Identifier: MIT
import KeychainKitAPI
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// `keychainkit watch`: a line per change of one key — present (with a
/// change counter, never the value), absent, locked, unavailable — until
/// interrupted.
///
/// Changes are heard as the service announces them (the keychain's
/// observer of changes made elsewhere); with an interval, the key is also
/// re-read that often, for changes no service announces (another tool's
/// update in place).
final class KeyWatch: Sendable {

    private let keychain: any KeychainProtocol
    private let key: KeychainAttributes

    private struct State {
        var line: String?
        var value: [UInt8]?
        var changes = 0
    }

    private let state = Mutex(State())

    init(keychain: any KeychainProtocol, key: KeychainAttributes) {
        self.keychain = keychain
        self.key = key
    }

    /// Prints the key's state, then a line per change, until the process is
    /// interrupted.
    func run(polling interval: Duration?) throws(CLIFailure) {
        // Interrupting ends the watch, even when the shell that started us
        // in the background made us ignore SIGINT.
        signal(SIGINT, SIG_DFL)
        try StandardStreams.writeNameLine("watching '\(key.account)' on '\(key.service)'; interrupt to stop")
        let token = keychain.addObserver(forKey: key) { [self] change in
            guard change.event == .changed || change.event == .deleted else { return }
            try? report()
        }
        defer { keychain.removeObserver(token) }
        try report()
        while true {
            guard let interval else {
                pause()
                continue
            }
            let (seconds, attoseconds) = interval.components
            var delay = timespec(tv_sec: Int(seconds), tv_nsec: Int(attoseconds / 1_000_000_000))
            var remaining = timespec()
            while nanosleep(&delay, &remaining) != 0 && errno == EINTR { delay = remaining }
            try report()
        }
    }

    /// Reads the key and prints its state when it differs from the last
    /// one printed (a new value counts as a change; an equal one rewritten
    /// does not), however the change was noticed.
    private func report() throws(CLIFailure) {
        let line: String? = state.withLock { state in
            let now: String
            do throws(KeychainError) {
                let value = try keychain.data(forKey: key)
                if let value {
                    let first = state.line == nil
                    if !first && value != state.value { state.changes += 1 }
                    now = "present (change \(state.changes))"
                } else {
                    now = "absent"
                }
                state.value?.wipe()  // in place: a `var` copy would wipe nothing
                state.value = value
            } catch {
                now = "\(error)"
            }
            defer { state.line = now }
            return now == state.line ? nil : now
        }
        if let line { try StandardStreams.writeNameLine("\(key.account): \(line)") }
    }
}
