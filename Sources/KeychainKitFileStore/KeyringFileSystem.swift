// SPDX-License-Identifier: MIT
import KeychainKitSystem

#if canImport(Glibc)
import Glibc
#endif

/// The system calls of the keyring file: a stat, a whole read of a file
/// only its owner may read, an atomic replace that survives a crash, and
/// the lock writers take. Their errors name the path and the cause.
enum KeyringFileSystem {

    /// The largest keyring file read or written (16 values of the largest
    /// size, `KK_MAX_VALUE_SIZE`, fill it); a bigger file is
    /// ``KeychainError/corruptStore``, and a write that would make one fails.
    static let largestFile = 256 << 20

    /// An open descriptor of one version of the file, kept while that
    /// version is the one held in memory: while it is open, the file's
    /// inode cannot be freed and given to a newer version, so a stamp with
    /// the same device and inode is this version (ext4 hands the inode
    /// numbers of renamed-over files out again at once).
    final class HeldFile: @unchecked Sendable {
        let fd: Int32
        init(_ fd: Int32) { self.fd = fd }
        deinit { close(fd) }
    }

    /// The file's stamp; `nil` when it does not exist. Refuses a directory
    /// another user controls (``requireTrustedDirectory(of:)``): each
    /// operation looks, not only the first.
    static func stamp(of path: String) throws(FileStoreError) -> FileStamp? {
        try requireTrustedDirectory(of: path)
        var status = stat()
        if stat(path, &status) == 0 { return FileStamp(status) }
        if errno == ENOENT { return nil }
        throw failure(errno, "cannot stat", path)
    }

    /// The file's bytes and stamp; `nil` when it does not exist. A file
    /// that is not a regular file of ours that only we can read and write,
    /// or one in a directory another user controls
    /// (``requireTrustedDirectory(of:)``), is refused
    /// (``KeychainError/missingEntitlement``).
    static func read(_ path: String) throws(FileStoreError) -> (bytes: [UInt8], stamp: FileStamp, held: HeldFile)? {
        try requireTrustedDirectory(of: path)
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK)
        if fd < 0 {
            if errno == ENOENT { return nil }
            throw failure(errno, "cannot open", path)
        }
        let held = HeldFile(fd)
        var status = stat()
        guard fstat(fd, &status) == 0 else { throw failure(errno, "cannot stat", path) }
        guard status.st_mode & S_IFMT == S_IFREG else {
            throw FileStoreError(.corruptStore, "\(path) is not a regular file")
        }
        guard status.st_uid == geteuid() else {
            throw FileStoreError(.missingEntitlement, "\(path) belongs to uid \(status.st_uid), not to this user")
        }
        guard status.st_mode & 0o077 == 0 else {
            let mode = String(status.st_mode & 0o777, radix: 8)
            throw FileStoreError(.missingEntitlement, "\(path) has mode \(mode): others may read or change it; chmod 600 it")
        }
        guard status.st_size <= largestFile else {
            throw FileStoreError(.corruptStore, "\(path) is \(status.st_size) bytes, more than a keyring file holds")
        }
        var bytes = [UInt8](repeating: 0, count: Int(status.st_size))
        let error = whole(bytes.count) { done in
            bytes.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress! + done, $0.count - done) }
        }
        if let error { throw failure(error, "cannot read", path) }
        return (bytes, FileStamp(status), held)
    }

    /// Replaces the file with `bytes` atomically and durably: a new file of
    /// mode 0600 beside it, written and synced, renamed over it, then the
    /// directory synced. A reader sees the old file or the new one, never
    /// a part; after a crash, the old one or the new one. Returns the new
    /// file's stamp and descriptor; `nil`, and nothing replaced, when the
    /// file is no longer the version `expected` (`nil`: absent) just before
    /// the rename — another program that takes no lock (libsecret, oo7)
    /// wrote it meanwhile, and the caller reads it and tries again.
    static func replace(
        _ path: String, with bytes: [UInt8], expected: FileStamp?
    ) throws(FileStoreError) -> (stamp: FileStamp, held: HeldFile)? {
        guard bytes.count <= largestFile else {
            throw FileStoreError(
                .unknownError(code: EFBIG, message: "the keyring file would be \(bytes.count) bytes, more than \(largestFile)"))
        }
        guard let (fd, temporary) = UniqueFile.create(prefix: path + newFileInfix) else {
            throw failure(errno, "cannot create a file beside", path)
        }
        var renamed = false
        defer { if !renamed { close(fd); unlink(temporary) } }
        let error = whole(bytes.count) { done in
            bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress! + done, $0.count - done) }
        }
        if let error { throw failure(error, "cannot write", temporary) }
        guard fchmod(fd, 0o600) == 0, fsync(fd) == 0 else { throw failure(errno, "cannot sync", temporary) }
        // The last look before the rename; what another program writes in
        // the microseconds between them is lost, as between two libsecret
        // writers.
        guard try stamp(of: path) == expected else { return nil }
        guard rename(temporary, path) == 0 else { throw failure(errno, "cannot rename a new file to", path) }
        renamed = true
        let held = HeldFile(fd)
        var status = stat()
        guard fstat(fd, &status) == 0 else { throw failure(errno, "cannot stat", path) }
        let directory = open(directoryName(of: path), O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if directory >= 0 {
            // The rename is durable only once the directory is.
            let synced = fsync(directory) == 0
            let error = errno
            close(directory)
            guard synced || error == EINVAL else { throw failure(error, "cannot sync the directory of", path) }
        }
        return (FileStamp(status), held)
    }

    /// What the name of a new file a write makes beside the keyring adds
    /// to the keyring's name, before six random letters and digits: a name
    /// no person gives a file, so that removing a killed writer's leftovers
    /// never removes a file of the user's (`app.keyring.backup`).
    static let newFileInfix = ".keychainkit-new."

    /// Creates the directory of `path` (absolute) and its missing parents,
    /// mode 0700, then requires it trusted (``requireTrustedDirectory(of:)``).
    static func makeDirectory(of path: String) throws(FileStoreError) {
        var prefix = ""
        for component in directoryName(of: path).split(separator: "/", omittingEmptySubsequences: true) {
            prefix += "/" + component
            if mkdir(prefix, 0o700) != 0 && errno != EEXIST {
                throw failure(errno, "cannot create the directory", prefix)
            }
        }
        try requireTrustedDirectory(of: path)
    }

    /// Refuses (``KeychainError/missingEntitlement``) the directory of
    /// `path` when another user could remove or replace what is in it: it
    /// belongs to another user (root aside: a system directory), or others
    /// than its owner and group may write to it (a sticky `/tmp`-like
    /// directory too, where another user plants names). A directory that
    /// does not exist yet is no refusal.
    static func requireTrustedDirectory(of path: String) throws(FileStoreError) {
        let directory = directoryName(of: path)
        var status = stat()
        guard stat(directory, &status) == 0 else {
            if errno == ENOENT { return }
            throw failure(errno, "cannot stat the directory", directory)
        }
        if status.st_uid != geteuid() && status.st_uid != 0 {
            throw FileStoreError(
                .missingEntitlement,
                "the directory \(directory) belongs to uid \(status.st_uid), who could remove or replace the keyring; keep it in a directory of this user's")
        }
        if status.st_mode & 0o002 != 0 {
            let mode = String(status.st_mode & 0o7777, radix: 8)
            throw FileStoreError(
                .missingEntitlement,
                "the directory \(directory) has mode \(mode): any user may create names in it; keep the keyring in a directory of this user's")
        }
    }

    /// Holds the writers' lock of `path` (a lock file beside it, `path` +
    /// ".lock") while `body` runs; waits at most `timeout` milliseconds
    /// for another process to release it.
    static func withWriteLock<R>(
        _ path: String, timeout: Int, _ body: () throws(FileStoreError) -> R
    ) throws(FileStoreError) -> R {
        try makeDirectory(of: path)
        let lockPath = path + ".lock"
        var waited = 0
        while true {
            // Never through a link another user planted: the lock would
            // create or lock a file of their choosing.
            let fd = open(lockPath, O_RDWR | O_CREAT | O_CLOEXEC | O_NOCTTY | O_NOFOLLOW | O_NONBLOCK, 0o600)
            guard fd >= 0 else {
                if errno == ELOOP { throw FileStoreError(.missingEntitlement, "\(lockPath) is a symbolic link, not a lock file; remove it") }
                throw failure(errno, "cannot open the lock", lockPath)
            }
            defer { FileLock.close(fd) }
            var opened = stat()
            guard fstat(fd, &opened) == 0 else { throw failure(errno, "cannot stat", lockPath) }
            guard opened.st_mode & S_IFMT == S_IFREG, opened.st_uid == geteuid() else {
                throw FileStoreError(
                    .missingEntitlement,
                    "\(lockPath) is not a regular file of this user's (uid \(opened.st_uid)), so not a lock of ours; remove it")
            }
            switch FileLock.lock(fd, within: timeout, waited: &waited) {
            case 0: break
            case EWOULDBLOCK:
                throw FileStoreError(
                    .unknownError(code: EWOULDBLOCK, message: "another process held \(lockPath) for more than \(timeout) ms"))
            case let error: throw failure(error, "cannot lock", lockPath)
            }
            // A lock file removed (or replaced) meanwhile locks nobody out:
            // lock the one at the path.
            var held = stat(), named = stat()
            guard fstat(fd, &held) == 0, stat(lockPath, &named) == 0, held.st_ino == named.st_ino,
                  held.st_dev == named.st_dev else { continue }
            removeLeftovers(of: path)
            return try body()
        }
    }

    /// `path` made absolute against the working directory.
    /// A symbolic link at `path` (a keyring file kept elsewhere, as dotfiles
    /// are) is followed to its target, so that a write replaces the target
    /// and the link stays.
    static func absolute(_ path: String) -> String {
        var link = stat()
        if lstat(path, &link) == 0, link.st_mode & S_IFMT == S_IFLNK, let resolved = realpath(path, nil) {
            defer { free(resolved) }
            return String(cString: resolved)
        }
        if path.hasPrefix("/") { return path }
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        guard getcwd(&buffer, buffer.count) != nil else { return path }
        let directory = buffer.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
        return (directory == "/" ? "" : directory) + "/" + path
    }

    /// Removes the new files a writer killed before its rename left beside
    /// `path` (`<name>` + ``newFileInfix`` + six letters or digits, ours,
    /// regular). Called with the writers' lock held, when no writer of ours
    /// has one in progress.
    static func removeLeftovers(of path: String) {
        let directory = directoryName(of: path)
        let prefix = Array(path.utf8.split(separator: UInt8(ascii: "/")).last ?? []) + Array(newFileInfix.utf8)
        guard let stream = opendir(directory) else { return }
        defer { closedir(stream) }
        while let entry = readdir(stream) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { Array($0.prefix { $0 != 0 }) }
            guard name.count == prefix.count + 6, name.starts(with: prefix),
                  name[prefix.count...].allSatisfy({ (0x30...0x39).contains($0) || (0x41...0x5A).contains($0) || (0x61...0x7A).contains($0) })
            else { continue }
            let leftover = directory + "/" + String(decoding: name, as: UTF8.self)
            var status = stat()
            if lstat(leftover, &status) == 0, status.st_mode & S_IFMT == S_IFREG, status.st_uid == geteuid() {
                unlink(leftover)
            }
        }
    }

    /// Calls `step` (a read or write of what is left from its offset) until
    /// `count` bytes are done, again after EINTR; the errno that stopped it
    /// (EIO for an end too early), or `nil`.
    private static func whole(_ count: Int, _ step: (_ done: Int) -> Int) -> Int32? {
        var done = 0
        while done < count {
            let moved = step(done)
            if moved < 0 && errno == EINTR { continue }
            guard moved > 0 else { return moved < 0 ? errno : EIO }
            done += moved
        }
        return nil
    }

    static func directoryName(of path: String) -> String {
        guard let slash = path.utf8.lastIndex(of: UInt8(ascii: "/")) else { return "." }
        return slash == path.utf8.startIndex ? "/" : String(path[..<slash])
    }

    private static func failure(_ code: Int32, _ what: String, _ path: String) -> FileStoreError {
        let message = "\(what) \(path): \(String(cString: strerror(code)))"
        switch code {
        case EACCES, EPERM, EROFS: return FileStoreError(.missingEntitlement, message)
        default: return FileStoreError(.unknownError(code: code, message: message))
        }
    }
}
