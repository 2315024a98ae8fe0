// SPDX-License-Identifier: MIT
import CKeychainKitSupport
import KeychainKitAPI

#if canImport(Glibc)
import Glibc
#endif

/// Runs one parsed invocation against a keychain.
struct Commands {

    let keychain: any KeychainProtocol
    let backend: Invocation.Backend
    let service: String
    /// The keychain's items addressed by attributes (git's credentials);
    /// `nil` for the kernel keyring.
    let attributeItems: (any AttributeItemStore)?
    /// The Secret Service, for `unlock` and `lock`; `nil` on the others.
    let secretService: SecretServiceKeychainInterface?

    func run(_ command: Invocation.Command) throws(CLIFailure) {
        switch command {
        case let .set(account):
            let key = try key(account)
            var secret = try StandardStreams.readSecret(prompt: "Secret for '\(account)' on '\(service)': ")
            defer { secret.wipe() }
            try keychainCall(on: keychain, "storing '\(account)'") { () throws(KeychainError) in
                try keychain.updateData(secret, forKey: key)
            }
        case let .get(account, newline):
            let key = try key(account)
            let found = try keychainCall(on: keychain, "reading '\(account)'") { () throws(KeychainError) in
                try keychain.data(forKey: key)
            }
            guard var secret = found else {
                throw CLIFailure(.notFound, "no secret for '\(account)' on '\(service)'")
            }
            defer { secret.wipe() }
            if newline { secret.appendWipingOldStorage([UInt8(ascii: "\n")]) }
            try StandardStreams.write(secret)
        case let .remove(account):
            let key = try key(account)
            try keychainCall(on: keychain, "removing '\(account)'") { () throws(KeychainError) in
                try keychain.removeValue(forKey: key)
            }
        case let .getMany(accounts, format):
            try printMany(accounts, in: format)
        case .list:
            let accounts = try keychainCall(on: keychain, "listing '\(service)'") { () throws(KeychainError) in
                try keychain.accounts(inService: service)
            }
            for account in accounts { try StandardStreams.writeNameLine(account) }
        case let .run(envFiles, bindings, command):
            try runCommand(command, envFiles: envFiles, bindings: bindings)
        case let .inject(input, output):
            try inject(input, into: output)
        case .info:
            try StandardStreams.writeLine("backend: \(backend.rawValue)")
            if let store = keychain.storeIdentity { try StandardStreams.writeNameLine("store: \(store)") }
            try StandardStreams.writeLine("persistence: \(keychain.persistence?.rawValue ?? "unknown")")
        case let .watch(account, interval):
            try KeyWatch(keychain: keychain, key: key(account)).run(polling: interval)
        case let .unlock(collection, passwordDescriptor):
            try unlock(collection, passwordFrom: passwordDescriptor)
        case let .lock(collection):
            guard let secretService else { throw CLIFailure(.usage, "lock is for the Secret Service") }
            try keychainCall(on: keychain, "locking \(Self.named(collection))") { () throws(KeychainError) in
                try secretService.lock(collection: collection)
            }
        case let .gitCredential(operation):
            guard let attributeItems else {
                throw CLIFailure(.usage, "git-credential cannot store in the kernel keyring (its keys have no attributes)")
            }
            try GitCredentialHelper(store: attributeItems).run(operation)
        case .help:
            try StandardStreams.writeLine(Invocation.usage)
        case .version:
            try StandardStreams.writeLine("keychainkit \(String(cString: kk_version_string()))")
        }
    }

    /// Prints the secrets of `accounts` (every account of the service when
    /// empty), read together, in `format`; then fails with "not found"
    /// when one was absent (but for `--all`: an account removed since the
    /// listing is no error).
    private func printMany(_ asked: [String], in format: ManyValuesFormat) throws(CLIFailure) {
        var accounts: [String] = []
        var seen = Set<[UInt8]>()
        for account in asked where seen.insert(Array(account.utf8)).inserted { accounts.append(account) }
        if asked.isEmpty {
            accounts = try keychainCall(on: keychain, "listing '\(service)'") { () throws(KeychainError) in
                try keychain.accounts(inService: service)
            }
        }
        var values = try readMany(accounts)
        defer { for index in values.indices { values[index]?.wipe() } }
        var output = try format.output(accounts, values)
        defer { output.wipe() }
        try StandardStreams.write(output)
        let absent = zip(accounts, values).filter { $0.1 == nil }.map { "'\($0.0)'" }
        if !absent.isEmpty && !asked.isEmpty {
            throw CLIFailure(.notFound, "no secret for \(absent.joined(separator: ", ")) on '\(service)'")
        }
    }

    /// The secrets of `accounts` (`nil`: absent), read together; the first
    /// that cannot be read (locked, ...) fails for all, naming its account.
    private func readMany(_ accounts: [String]) throws(CLIFailure) -> [[UInt8]?] {
        for account in accounts { _ = try key(account) }
        var read = try keychainCall(on: keychain, "reading '\(service)'") { () throws(KeychainError) in
            try keychain.data(forAccounts: accounts, inService: service)
        }
        for (account, result) in zip(accounts, read) {
            if case let .failure(error) = result {
                for index in read.indices { if case var .success(value?) = read[index] { read[index] = .success(nil); value.wipe() } }
                throw CLIFailure(error, doing: "reading '\(account)'", detail: keychain.failureDetail(for: error))
            }
        }
        return read.map { result in
            guard case let .success(value) = result else { return nil }
            return value
        }
    }

    /// Unlocks `collection`: nothing is asked when it is unlocked; with its
    /// password where the service takes one (from `descriptor`, else typed
    /// without echo on a terminal, else stdin), else with the service's own
    /// dialog as `--prompt` allows.
    private func unlock(_ collection: String?, passwordFrom descriptor: Int32?) throws(CLIFailure) {
        guard let secretService else { throw CLIFailure(.usage, "unlock is for the Secret Service") }
        let what = "unlocking \(Self.named(collection))"
        let (locked, takesPassword) = try keychainCall(on: keychain, what) { () throws(KeychainError) in
            (try secretService.isLocked(collection: collection), try secretService.takesPasswords())
        }
        guard locked else { return }
        guard takesPassword else {
            return try keychainCall(on: keychain, what) { () throws(KeychainError) in
                try secretService.unlock(collection: collection)
            }
        }
        var password: [UInt8]
        if let descriptor {
            password = try StandardStreams.readPassword(from: descriptor)
        } else {
            password = try StandardStreams.readSecret(prompt: "Password to unlock \(Self.named(collection)): ")
        }
        defer { password.wipe() }
        try keychainCall(on: keychain, what) { () throws(KeychainError) in
            try secretService.unlock(collection: collection, password: &password)
        }
    }

    /// `inject`: the template from `input` (stdin when `nil`) with its
    /// references' secrets in place, to `output` (stdout when `nil`);
    /// nothing is written when one cannot be read.
    private func inject(_ input: String?, into output: String?) throws(CLIFailure) {
        var template: [UInt8]
        if let input {
            let fd = open(input, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
            guard fd >= 0 else { throw CLIFailure(.io, "cannot open the template '\(input)': \(String(cString: strerror(errno)))") }
            defer { close(fd) }
            template = try StandardStreams.readAll(fd, atMost: 16 << 20, what: "the template '\(input)'")
        } else {
            template = try StandardStreams.readAll(STDIN_FILENO, atMost: 16 << 20, what: "the template")
        }
        defer { template.wipe() }
        let pieces = try TemplateInjection.pieces(of: template)
        let references = pieces.compactMap { piece -> SecretReference? in
            if case let .secret(reference) = piece { return reference }
            return nil
        }
        var secrets = try resolve(references, in: keychain)
        defer { for reference in secrets.keys { secrets[reference]!.wipe() } }
        var result: [UInt8] = []
        defer { result.wipe() }
        for piece in pieces {
            switch piece {
            case let .text(bytes): bytes.withUnsafeBytes { result.appendWipingOldStorage($0) }
            case let .secret(reference): result.appendWipingOldStorage(secrets[reference]!)
            }
        }
        if let output {
            try TemplateInjection.writeAtomically(result, to: output)
        } else {
            try StandardStreams.write(result)
        }
    }

    /// How `unlock` and `lock` name `collection` in messages.
    private static func named(_ collection: String?) -> String {
        collection.map { "the collection '\($0)'" } ?? "the default collection"
    }

    /// Reads the secrets of `envFiles`' references and of `bindings` (one
    /// batch per service), puts every variable in the environment (in
    /// order: files, then bindings; later ones win), and replaces this
    /// process with `command` (so its exit status is the command's).
    /// Nothing is run when a secret is missing or unusable.
    private func runCommand(
        _ command: [String], envFiles: [String], bindings: [(name: String, account: String)]
    ) throws(CLIFailure) {
        for (_, account) in bindings { _ = try key(account) }
        var variables: [(name: String, value: EnvironmentFile.Value)] = []
        for path in envFiles { variables += try EnvironmentFile.read(path) }
        for (name, account) in bindings {
            variables.append((name, .secret(SecretReference(service: service, account: account))))
        }
        let references = variables.compactMap { variable -> SecretReference? in
            if case let .secret(reference) = variable.value { return reference }
            return nil
        }
        var secrets = try resolve(references, in: keychain)
        defer { for reference in secrets.keys { secrets[reference]!.wipe() } }
        for (_, value) in variables {
            if case let .secret(reference) = value, secrets[reference]!.contains(0) {
                throw CLIFailure(.usage, "the secret \(reference.description) holds a NUL byte, which no environment variable can")
            }
            if case let .text(bytes) = value, bytes.contains(0) {
                throw CLIFailure(.usage, "an env file value holds a NUL byte, which no environment variable can")
            }
        }
        for (name, value) in variables {
            var text: [UInt8]
            switch value {
            case let .text(bytes): text = bytes + [0]
            case let .secret(reference): text = secrets[reference]! + [0]
            }
            _ = text.withUnsafeBytes { setenv(name, $0.baseAddress!.assumingMemoryBound(to: CChar.self), 1) }
            text.wipe()
        }
        // The command's own bytes after `--`, not `command` (Swift repairs
        // arguments that are not UTF-8 into U+FFFD: `rm d/$'\xff'` would
        // remove another file).
        let argv = UnsafeBufferPointer(start: CommandLine.unsafeArgv, count: Int(CommandLine.argc))
        guard let separator = argv.firstIndex(where: { $0.map { strcmp($0, "--") == 0 } ?? false }),
              argv.count - separator - 1 == command.count
        else { throw CLIFailure(.usage, "run takes its COMMAND after --") }
        var arguments = argv[(separator + 1)...].map { $0.flatMap { strdup($0) } } + [nil]
        keychainkit_restore_core_dumps()  // the command's own, as it was
        execvp(arguments[0]!, &arguments)
        let error = errno
        for argument in arguments { free(argument) }
        let code: ExitCode = error == ENOENT ? .commandNotFound : .commandNotExecutable
        throw CLIFailure(code, "cannot run '\(command[0])': \(String(cString: strerror(error)))")
    }

    /// The key of `account`; one that cannot address an item is bad usage,
    /// refused before the keychain is called (whose backend would add its
    /// own words for other invalid arguments).
    private func key(_ account: String) throws(CLIFailure) -> KeychainAttributes {
        let key = KeychainAttributes(account: account, service: service)
        if let reason = key.invalidReason { throw CLIFailure(.usage, "\(KeychainError.invalidArgument): \(reason)") }
        return key
    }
}

/// Runs a call of `keychain`, turning its error into a failure that names
/// what was attempted (never the secret).
func keychainCall<R>(on keychain: any KeychainProtocol, _ what: String, _ body: () throws(KeychainError) -> R) throws(CLIFailure) -> R {
    try keychainCall(what, detail: keychain.failureDetail(for:), body)
}

/// Runs a backend call, turning its error into a failure that names what
/// was attempted and adds `detail`'s words for the cause.
func keychainCall<R>(
    _ what: String, detail: (KeychainError) -> String?, _ body: () throws(KeychainError) -> R
) throws(CLIFailure) -> R {
    do {
        return try body()
    } catch {
        throw CLIFailure(error, doing: what, detail: detail(error))
    }
}
