// SPDX-License-Identifier: MIT
import KeychainKitBus
import KeychainKitCore
import KeychainKitSystem
#if canImport(Glibc)
import Glibc
#endif

/// Where a ``FileKeychainInterface`` gets the master secret its file's key
/// is derived from. There is no default and no fallback: with no source
/// that yields a secret, opening fails with ``KeychainError/noMasterKey``
/// and writes nothing. A secret is never derived from nothing, nor
/// stored in clear.
public enum FileKeychainMaster: Sendable {

    /// The secret itself (at least one byte), used as given: libsecret's
    /// `SECRET_FILE_TEST_PASSWORD`, oo7's secret. The caller wipes its
    /// own copy.
    case secret([UInt8])

    /// Read from a file descriptor to its end (a pipe, a file, standard
    /// input — as `gnome-keyring-daemon --unlock` reads it), at most
    /// ``largestSecret`` bytes and at most ``readTimeout`` milliseconds;
    /// the bytes as they are, a final newline included. The descriptor
    /// is not closed.
    case fileDescriptor(Int32)

    /// The systemd credential `keychainkit.master`:
    /// `$CREDENTIALS_DIRECTORY/keychainkit.master`, as a unit with
    /// `LoadCredentialEncrypted=keychainkit.master:…` provides it.
    case systemdCredential

    /// The app's secret from the Secret portal of Flatpak and Snap
    /// (``SecretPortal``), as libsecret and oo7 get it inside a sandbox:
    /// 64 bytes, kept in the user's keyring by the portal's backend.
    case portal

    /// The first source found: the systemd credential, else — inside a
    /// Flatpak or Snap sandbox — the Secret portal, else a copy cached in
    /// the kernel's persistent keyring by an earlier open of the file
    /// (``KernelMasterCache``).
    case automatic

    /// The most bytes read as a secret.
    public static let largestSecret = 4096

    /// How long reading a descriptor may wait for its writer.
    public static let readTimeout = 5000

    /// The name of the systemd credential.
    public static let credentialName = "keychainkit.master"

    /// The secret, read from its source, and whether it came from the
    /// kernel's cache; ``KeychainError/noMasterKey`` (with what to do) when
    /// the source has none.
    func resolve(for path: String) throws(FileStoreError) -> (secret: MasterSecret, cached: Bool) {
        if case .automatic = self {
            if let secret = try Self.credential() { return (secret, false) }
            if SecretPortal.isSandboxed { return (try Self.fromPortal(), false) }
            if let secret = KernelMasterCache.master(for: path) { return (secret, true) }
            throw FileStoreError(.noMasterKey, "no master secret for \(path): " + Self.options(for: path))
        }
        return (try resolveNamed(for: path), false)
    }

    /// The secret's bytes, read from the source (the kernel's cache is
    /// not one: `automatic` tries the credential, then the portal), or
    /// why not (``FileKeychainInterface/openFailureDetail`` says more). For
    /// a server that keeps the secret to unlock and seal its collections;
    /// the caller wipes the bytes.
    package func bytes(for path: String) -> Result<[UInt8], KeychainError> {
        do throws(FileStoreError) {
            let secret: MasterSecret
            if case .automatic = self {
                if let credential = try Self.credential() {
                    secret = credential
                } else if SecretPortal.isSandboxed {
                    secret = try Self.fromPortal()
                } else {
                    throw FileStoreError(.noMasterKey)
                }
            } else {
                secret = try resolveNamed(for: path)
            }
            return .success(try secret.withBytes { Array($0) })
        } catch {
            FailureDetail.set(error.detail)
            return .failure(error.error)
        }
    }

    /// The secret of a source named explicitly.
    private func resolveNamed(for path: String) throws(FileStoreError) -> MasterSecret {
        switch self {
        case let .secret(bytes):
            guard !bytes.isEmpty else { throw FileStoreError(.noMasterKey, "the master secret given is empty") }
            return MasterSecret(SecretBuffer(copying: bytes))
        case let .fileDescriptor(fd):
            return try Self.read(fd, what: "file descriptor \(fd)")
        case .systemdCredential:
            guard let secret = try Self.credential() else {
                throw FileStoreError(.noMasterKey, "no systemd credential \(Self.credentialName): " + Self.options(for: path))
            }
            return secret
        case .portal:
            return try Self.fromPortal()
        case .automatic:  // resolved by resolve(for:)
            throw FileStoreError(.noMasterKey, "no master secret for \(path): " + Self.options(for: path))
        }
    }

    /// The Secret portal's secret, each call bounded by the bus's default
    /// timeout and the answer (the portal's backend may show an unlock
    /// prompt) by the default time a person has to answer.
    private static func fromPortal() throws(FileStoreError) -> MasterSecret {
        try SecretPortal.retrieveSecret(
            timeout: BusTimeouts.microseconds(BusTimeouts.call),
            answerTimeout: BusTimeouts.microseconds(BusTimeouts.answer))
    }

    /// What to do when no source has a secret.
    static func options(for path: String) -> String {
        "give one on a file descriptor (keychainkit --master-fd, kk_file_options.master_fd), "
            + "as bytes (kk_file_options.master, Keychain.file(master=...)), or as the systemd credential "
            + "\(credentialName) (LoadCredentialEncrypted=\(credentialName):..., read from $CREDENTIALS_DIRECTORY); "
            + "inside a Flatpak or Snap sandbox, the Secret portal; "
            + "or, after an open that cached it (kk_file_options.flags KK_FILE_CACHE_MASTER, --cache-master), "
            + "the kernel's persistent keyring"
    }

    /// The systemd credential's bytes; `nil` when there is none.
    private static func credential() throws(FileStoreError) -> MasterSecret? {
        let named: String?
        do throws(NotUTF8) { named = try EnvironmentText.absolutePath("CREDENTIALS_DIRECTORY") } catch {
            throw FileStoreError(.noMasterKey, "\(error.description): the credential's path cannot be read")
        }
        guard let directory = named else { return nil }
        let path = directory + "/" + credentialName
        // Non-blocking, and only a regular file: a FIFO put there would
        // block the open, or the read, without bound.
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK)
        guard fd >= 0 else {
            if errno == ENOENT { return nil }
            throw FileStoreError(.noMasterKey, "cannot open \(path): \(String(cString: strerror(errno)))")
        }
        defer { close(fd) }
        var status = stat()
        guard fstat(fd, &status) == 0, status.st_mode & S_IFMT == S_IFREG else {
            throw FileStoreError(.noMasterKey, "\(path) is not a regular file: not a systemd credential")
        }
        return try read(fd, what: path)
    }

    /// Reads `fd` to its end, within the bounds.
    private static func read(_ fd: Int32, what: String) throws(FileStoreError) -> MasterSecret {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(largestSecret + 1)
        var chunk = [UInt8](repeating: 0, count: 512)
        defer { chunk.wipe() }
        var deadline = timespec()
        clock_gettime(CLOCK_MONOTONIC, &deadline)
        let end = Int64(deadline.tv_sec) * 1000 + Int64(deadline.tv_nsec) / 1_000_000 + Int64(readTimeout)
        while true {
            var now = timespec()
            clock_gettime(CLOCK_MONOTONIC, &now)
            let left = end - (Int64(now.tv_sec) * 1000 + Int64(now.tv_nsec) / 1_000_000)
            var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let ready = left > 0 ? poll(&poller, 1, Int32(left)) : 0
            if ready < 0 && errno == EINTR { continue }
            guard ready > 0 else {
                bytes.wipe()
                throw FileStoreError(
                    .noMasterKey, ready == 0 ? "\(what) gave no end of the master secret within \(readTimeout) ms"
                        : "cannot wait for \(what): \(String(cString: strerror(errno)))")
            }
            let got = Glibc.read(fd, &chunk, chunk.count)
            if got < 0 && (errno == EINTR || errno == EAGAIN) { continue }
            guard got >= 0 else {
                let reason = String(cString: strerror(errno))
                bytes.wipe()
                throw FileStoreError(.noMasterKey, "cannot read the master secret from \(what): \(reason)")
            }
            if got == 0 { break }
            guard bytes.count + got <= largestSecret else {
                bytes.wipe()
                throw FileStoreError(.noMasterKey, "\(what) holds more than \(largestSecret) bytes: not a master secret")
            }
            bytes.append(contentsOf: chunk[..<got])
        }
        guard !bytes.isEmpty else { throw FileStoreError(.noMasterKey, "\(what) holds no master secret (it is empty)") }
        return MasterSecret(SecretBuffer(wiping: &bytes))
    }
}

/// The master secret a file keychain holds while open (the file's salt
/// may change, when another program creates the file anew, and the key
/// must be derived again), in secret memory.
final class MasterSecret: Sendable {
    private let secret: Locked<SecretBuffer>

    init(_ secret: SecretBuffer) {
        self.secret = Locked(secret)
    }

    func withBytes<R>(_ body: (UnsafeRawBufferPointer) throws(FileStoreError) -> R) throws(FileStoreError) -> R {
        try secret.withLock { secret throws(FileStoreError) in try secret.withUnsafeBytes(body) }
    }

    /// Becomes `new` (the file's password changed); the old bytes are
    /// wiped once no derivation uses them.
    func replace(with new: SecretBuffer) {
        secret.withLock { $0 = new }
    }
}
