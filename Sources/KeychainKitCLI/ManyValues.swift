// SPDX-License-Identifier: MIT
import KeychainKitHelperProtocols
import KeychainKitAPI

/// How `get` prints the secrets of several accounts, for scripts to parse.
enum ManyValuesFormat {
    /// One JSON object, the accounts in the order asked, each to its secret
    /// as a string, or to `null` when absent: `{"db":"s3cret","api":null}`.
    case json
    /// `ACCOUNT NUL SECRET NUL` for each account found, in the order asked;
    /// absent accounts are left out.
    case nulSeparated

    /// The output for `accounts` and their `values` (`nil`: absent); throws
    /// for a secret the format cannot hold (JSON: one that is not UTF-8;
    /// NUL-separated: one holding NUL), naming its account, so that nothing
    /// is printed.
    func output(_ accounts: [String], _ values: [[UInt8]?]) throws(CLIFailure) -> [UInt8] {
        var out: [UInt8] = []
        // Sized once: growing would leave a stale copy of a secret behind.
        out.reserveCapacity(accounts.reduce(2) { $0 + $1.utf8.count * 6 + 8 } + values.reduce(0) { $0 + ($1?.count ?? 0) * 6 })
        switch self {
        case .json:
            out.append(UInt8(ascii: "{"))
            for (index, (account, value)) in zip(accounts, values).enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                out += CredentialJSON.quoted(Array(account.utf8))
                out.append(UInt8(ascii: ":"))
                guard let value else {
                    out += Array("null".utf8)
                    continue
                }
                guard value.isValidUTF8 else {
                    out.wipe()
                    throw CLIFailure(.usage, "the secret of '\(account)' is not UTF-8, which JSON cannot hold; use -0")
                }
                var quoted = CredentialJSON.quoted(value)
                out += quoted
                quoted.wipe()
            }
            out += Array("}\n".utf8)
        case .nulSeparated:
            for (account, value) in zip(accounts, values) {
                guard let value else { continue }
                guard !value.contains(0) else {
                    out.wipe()
                    throw CLIFailure(.usage, "the secret of '\(account)' holds a NUL byte, which -0 cannot separate; use --json")
                }
                out += Array(account.utf8) + [0]
                out += value
                out.append(0)
            }
        }
        return out
    }
}
