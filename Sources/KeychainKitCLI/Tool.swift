// SPDX-License-Identifier: MIT
import CKeychainKitSupport
import KeychainKitAPI
import KeychainKitSystem

#if canImport(Glibc)
import Glibc
#endif

/// keychainkit — the command-line tool. See `keychainkit --help`.
///
/// The whole program, called by main.swift. Not top-level code: in Swift 6
/// that is the main actor's, and its closures check the executor at run time,
/// which links Swift's concurrency runtime and libdispatch into the tool
/// (about 0.17 ms at every start, for nothing it does).
func runTool() -> Never {
    signal(SIGPIPE, SIG_IGN)

    // Its secrets pass through ordinary memory: no core file may hold them
    // (nor may another process of the user ptrace it), unless asked. Inside a
    // Flatpak or Snap sandbox only the core file is refused: the Secret portal
    // tells the app by its /proc/PID/root, which a process that is not dumpable
    // hides from it.
    if getenv("KEYCHAINKIT_ALLOW_CORE_DUMPS").map({ String(cString: $0) }) != "1" {
        _ = keychainkit_forbid_core_dumps(DefaultStore.isSandboxed ? 0 : 1)
    }

    // Run as git-credential-keychainkit (a link to this program, which git runs
    // for `credential.helper keychainkit`), it is `keychainkit git-credential`.
    let program = CommandLine.arguments.first.map { String($0.split(separator: "/").last ?? "") } ?? ""

    // Run as docker-credential-keychainkit (a link to this program, which Docker
    // and Podman run for the `keychainkit` credential helper), it speaks their
    // protocol, on the default store (``DefaultStore``) whatever the
    // environment's backend.
    if program == DockerCredentialHelper.name || CommandLine.arguments.dropFirst().first == "docker-credential" {
        let actions = Array(CommandLine.arguments.dropFirst(program == DockerCredentialHelper.name ? 1 : 2))
        DockerCredentialHelper.main(actions) { () throws(CLIFailure) -> any AttributeItemStore in
            do throws(KeychainError) {
                return try DefaultStore.open().attributeItems
            } catch {
                throw CLIFailure(error, doing: "opening the keyring file", detail: FileKeychainInterface.openFailureDetail)
            }
        }
    }

    let runAsGitHelper = program == "git-credential-keychainkit"
    let arguments = (runAsGitHelper ? ["git-credential"] : []) + CommandLine.arguments.dropFirst()
    let name = runAsGitHelper ? program : "keychainkit"

    // git's helper stores in the default store whatever the environment's backend.
    let environmentBackend = runAsGitHelper ? nil : getenv("KEYCHAINKIT_BACKEND").map { String(cString: $0) }
    do throws(CLIFailure) {
        let invocation = try Invocation(arguments, environmentBackend: environmentBackend)
        // Swift repairs arguments that are not UTF-8 (U+FFFD for each bad
        // byte): refused, so that no other account than the one typed is
        // read or written. `run`'s COMMAND and its arguments are passed on as
        // they are.
        let raw = UnsafeBufferPointer(start: CommandLine.unsafeArgv, count: Int(CommandLine.argc)).dropFirst()
        let checked = if case .run = invocation.command { raw.prefix { $0.map { strcmp($0, "--") != 0 } ?? false } } else { raw[...] }
        if let bad = firstArgumentNotUTF8(in: checked) {
            throw CLIFailure(.usage, "argument \(bad) is not valid UTF-8")
        }
        if runAsGitHelper, case .help = invocation.command {
            try StandardStreams.writeLine(Invocation.gitHelperUsage)
            exit(ExitCode.success.rawValue)
        }
        let keychain: any KeychainProtocol
        let attributeItems: (any AttributeItemStore)?
        var secretService: SecretServiceKeychainInterface?
        switch invocation.backend {
        case .secretService:
            let backend = SecretServiceKeychainInterface(
                collection: invocation.collection, timeout: invocation.timeout,
                prompts: invocation.prompts, promptTimeout: invocation.promptTimeout, transfer: invocation.transfer)
            (keychain, attributeItems, secretService) = (Keychain(interface: backend), backend, backend)
        case .kernel: (keychain, attributeItems) = (Keychain(interface: KernelKeyringInterface()), nil)
        case .memory:
            let backend = InMemoryKeychainInterface()
            (keychain, attributeItems) = (Keychain(interface: backend), backend)
        case .file where invocation.defaultStore == .sandboxFile:
            // What kk_open_default and the Docker helper open there, whatever
            // the file options: one store for every front end of the app.
            do throws(KeychainError) {
                switch try DefaultStore.open(.sandboxFile) {
                case let .sandboxFile(file): (keychain, attributeItems) = (Keychain(interface: file), file)
                case let .secretService(service): (keychain, attributeItems) = (Keychain(interface: service), service)
                }
            } catch {
                throw CLIFailure(error, doing: "opening the keyring file", detail: FileKeychainInterface.openFailureDetail)
            }
        case .file:
            let path: String?
            do throws(NotUTF8) { path = if let given = invocation.filePath { given } else { try EnvironmentText.value("KEYCHAINKIT_FILE") } } catch {
                throw CLIFailure(.usage, error.description)
            }
            let master: FileKeychainMaster = invocation.masterDescriptor.map { .fileDescriptor($0) } ?? .automatic
            do throws(KeychainError) {
                let backend = try FileKeychainInterface(
                    path: path.flatMap { $0.isEmpty ? nil : $0 }, master: master, cacheMaster: invocation.cacheMaster)
                (keychain, attributeItems) = (Keychain(interface: backend), backend)
            } catch {
                throw CLIFailure(error, doing: "opening the keyring file", detail: FileKeychainInterface.openFailureDetail)
            }
            // Read to its end, and not for the command `run` executes.
            if let fd = invocation.masterDescriptor { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        }
        let commands = Commands(
            keychain: keychain, backend: invocation.backend, service: invocation.service ?? Invocation.defaultService,
            attributeItems: attributeItems, secretService: secretService)
        try commands.run(invocation.command)
        exit(ExitCode.success.rawValue)
    } catch {
        StandardStreams.writeError("\(name): \(error.message)\n")
        if error.code == .usage { StandardStreams.writeError("try 'keychainkit --help'\n") }
        exit(error.code.rawValue)
    }
}
