// SPDX-License-Identifier: MIT
import KeychainKitHelperProtocols
import CKeychainKitSupport
import KeychainKitAPI

#if canImport(Glibc)
import Glibc
#endif

/// The credential helper of Docker and Podman (docker-credential-helpers'
/// protocol): run as `docker-credential-keychainkit ACTION` (a link to this
/// program, which Docker runs for `"credsStore": "keychainkit"` or a
/// `credHelpers` entry) or as `keychainkit docker-credential ACTION`.
///
/// - `store`: a JSON `{"ServerURL", "Username", "Secret"}` on stdin;
/// - `get`: a server URL on stdin; prints that JSON, or exits 1 with
///   "credentials not found in native keychain";
/// - `erase`: a server URL on stdin; erasing what is not there succeeds
///   (Podman 4.3 crashes on a failing erase);
/// - `list`: a JSON object of server URL → username;
/// - `version`.
///
/// As the upstream helpers do, errors go to stdout (Docker and Podman show
/// what is there), the server URL is taken as given (Docker and Podman
/// normalise it before asking: `127.0.0.1:5000`,
/// `https://index.docker.io/v1/`), and lines of stdin are joined.
/// Items are `docker-credential-secretservice`'s (``DockerCredentialItems``),
/// so either helper finds the other's logins. Nothing waits without a
/// bound (Docker and Podman wait on a helper forever).
struct DockerCredentialHelper {

    let store: any AttributeItemStore

    static let name = "docker-credential-keychainkit"

    static let usage = """
    usage: docker-credential-keychainkit store|get|erase|list|version

    Docker's and Podman's credential helper on the Secret Service: registry
    logins in the keyring instead of base64 in config.json or auth.json.
    Configure it in ~/.docker/config.json ("credsStore": "keychainkit", or
    "credHelpers": {"registry.example.com": "keychainkit"}) or in Podman's
    auth.json ("credHelpers"). Items are shared with
    docker-credential-secretservice (io.docker.Credentials). Errors are written
    to standard output, as Docker and Podman expect.

    commands:
      store             store the JSON {"ServerURL", "Username", "Secret"} read
                        from stdin, as the server's one login
      get               print the login of the server URL read from stdin as
                        that JSON
      erase             remove the login of the server URL read from stdin
                        (none is no error)
      list              print a JSON object of server URL to username
      version           print the version

    exit codes:
      0                 success
      1                 not found, bad input or usage (the upstream helpers'
                        status)
      3                 keychain locked
      4                 no Secret Service
      5                 access denied
      7                 other keychain error
      8                 input/output error
    """

    /// The input a helper reads at most (a login is a few hundred bytes).
    static let longestInput = 1 << 20

    /// Runs `action` and ends the process: 0 on success; on failure, the
    /// message on stdout and the failure's status.
    static func main(_ arguments: [String], store: () throws(CLIFailure) -> any AttributeItemStore) -> Never {
        do throws(CLIFailure) {
            guard arguments.count == 1 else { throw CLIFailure(.notFound, "Usage: \(name) <store|get|erase|list|version>") }
            switch arguments[0] {
            case "--help", "-h": try StandardStreams.writeLine(usage)
            case "version", "--version", "-v": try StandardStreams.writeLine("\(name) (keychainkit) \(String(cString: kk_version_string()))")
            case let action where ["store", "get", "erase", "list"].contains(action):
                try DockerCredentialHelper(store: try store()).run(action)
            case let action: throw CLIFailure(.notFound, "Unknown credential action `\(action)`")
            }
            exit(ExitCode.success.rawValue)
        } catch {
            // The protocol's failures are exit 1 (the upstream helpers'); the
            // keychain's keep their own statuses.
            _ = try? StandardStreams.writeLine(error.message)
            exit(error.code == .usage ? ExitCode.notFound.rawValue : error.code.rawValue)
        }
    }

    private func run(_ action: String) throws(CLIFailure) {
        var input = try StandardStreams.readAll(STDIN_FILENO, atMost: Self.longestInput, what: "the request")
        defer { input.wipe() }
        switch action {
        case "store": try save(input)
        case "get": try get(serverURL(input))
        case "erase": try erase(serverURL(input))
        default: try list()
        }
    }

    // MARK: Actions

    private func save(_ input: [UInt8]) throws(CLIFailure) {
        var fields: [String: [UInt8]]
        var joined = Self.joinedLines(input)
        defer { joined.wipe() }
        do throws(CredentialJSON.Fault) {
            fields = try CredentialJSON.stringFields(
                ["ServerURL", "Username", "Secret"], of: joined, structName: "credentials.Credentials")
        } catch {
            throw Self.protocolFailure(error.message)
        }
        defer { fields["Secret"]?.wipe() }
        // Never repaired into other bytes (U+FFFD): that would store the
        // login under another server's or user's name.
        guard let server = String(validating: fields["ServerURL"] ?? [], as: UTF8.self),
              let username = String(validating: fields["Username"] ?? [], as: UTF8.self)
        else { throw Self.protocolFailure("the server URL or username is not valid UTF-8") }
        guard !server.isEmpty else { throw Self.missingServerURL }
        guard !username.isEmpty else { throw Self.protocolFailure("no credentials username") }
        guard !server.utf8.contains(0), !username.utf8.contains(0) else {
            throw Self.protocolFailure("the server URL or username holds a NUL character")
        }
        let secret = fields["Secret"] ?? []
        try call("storing the login") { () throws(KeychainError) in
            try DockerCredentialItems.store(secret, server: server, username: username, in: store)
        }
    }

    private func get(_ server: String?) throws(CLIFailure) {
        // No item can be stored for a URL that is not UTF-8 (D-Bus strings
        // are), as the reference helper finds.
        guard let server else { throw Self.notFound }
        // Bound once, so that wiping it wipes the one copy.
        guard var login = try call("reading the login", { () throws(KeychainError) in
            try DockerCredentialItems.login(of: server, in: store)
        }) else { throw Self.notFound }
        defer { login.secret.wipe() }
        var output = Array("{\"ServerURL\":".utf8) + CredentialJSON.quoted(Array(server.utf8))
            + Array(",\"Username\":".utf8) + CredentialJSON.quoted(Array(login.username.utf8))
            + Array(",\"Secret\":".utf8)
        var quotedSecret = CredentialJSON.quoted(login.secret)
        defer { quotedSecret.wipe(); output.wipe() }
        output.appendWipingOldStorage(quotedSecret)
        output.appendWipingOldStorage(Array("}\n".utf8))
        try StandardStreams.write(output)
    }

    private func erase(_ server: String?) throws(CLIFailure) {
        guard let server else { return }  // nothing stored for it: erased, as for any absent login
        try call("erasing the login") { () throws(KeychainError) in
            try DockerCredentialItems.erase(server, in: store)
        }
    }

    private func list() throws(CLIFailure) {
        let logins = try call("listing the logins") { () throws(KeychainError) in
            try DockerCredentialItems.list(in: store)
        }
        let entries = logins.map { CredentialJSON.quoted(Array($0.server.utf8)) + [UInt8(ascii: ":")] + CredentialJSON.quoted(Array($0.username.utf8)) }
        var output: [UInt8] = [UInt8(ascii: "{")]
        for (index, entry) in entries.enumerated() {
            if index > 0 { output.append(UInt8(ascii: ",")) }
            output += entry
        }
        try StandardStreams.write(output + Array("}\n".utf8))
    }

    // MARK: Input and failures

    /// Lines joined without their line ends, as the upstream helpers read
    /// stdin (a `\r` before a newline goes too).
    static func joinedLines(_ input: [UInt8]) -> [UInt8] {
        var joined: [UInt8] = []
        joined.reserveCapacity(input.count)  // never regrown: no stale copy of a secret
        for line in input.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false) {
            joined += line.last == UInt8(ascii: "\r") ? line.dropLast() : line
        }
        return joined
    }

    /// The server URL `get` and `erase` read: the input's lines joined,
    /// white space trimmed from both ends; `nil` when it is not UTF-8 (no
    /// login can be stored for it), never repaired into another URL.
    private func serverURL(_ input: [UInt8]) throws(CLIFailure) -> String? {
        var joined = Self.joinedLines(input)
        defer { joined.wipe() }
        let isSpace: (UInt8) -> Bool = { $0 == 0x20 || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D || $0 == 0x0B || $0 == 0x0C }
        guard let first = joined.firstIndex(where: { !isSpace($0) }), let last = joined.lastIndex(where: { !isSpace($0) }) else {
            throw Self.missingServerURL
        }
        guard let server = String(validating: joined[first...last], as: UTF8.self) else { return nil }
        guard !server.utf8.contains(0) else { throw Self.protocolFailure("the server URL holds a NUL character") }
        return server
    }

    /// The upstream helpers' texts, which Docker and Podman recognise.
    static let notFound = protocolFailure("credentials not found in native keychain")
    static let missingServerURL = protocolFailure("no credentials server URL")

    private static func protocolFailure(_ message: String) -> CLIFailure {
        CLIFailure(.notFound, message)
    }

    private func call<R>(_ what: String, _ body: () throws(KeychainError) -> R) throws(CLIFailure) -> R {
        try keychainCall(what, detail: store.failureDetail(for:), body)
    }
}
