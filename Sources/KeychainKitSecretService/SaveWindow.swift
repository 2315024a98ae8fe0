// SPDX-License-Identifier: MIT
import KeychainKitBus
import KeychainKitSystem
#if canImport(Glibc)
import Glibc
#endif

/// Keeps changes out of KeePassXC's automatic save.
///
/// KeePassXC (2.7.4, and every later version read: 2.7.9, main of 2025)
/// with `AutoSaveAfterEveryChange`, its default, saves 150 ms after the
/// first change since its last save, in a pool thread, while its main
/// thread goes on serving D-Bus calls; a change served during that save
/// races the serializer and crashes KeePassXC (`Database::markAsModified`,
/// `Database::saveAs`; RELIABILITY.md). No signal tells when a save runs,
/// so changes come in bursts: a change may go while the burst's first
/// change is less than ``openMicroseconds`` old; a later one waits until
/// the save that burst set off has surely ended, and opens the next burst.
///
/// A save takes longer as the database grows, and so do KeePassXC's
/// answers to changes (measured with 0, 200 and 1,000 entries: a create
/// answered in 14, 75 and 210 ms, and the file was replaced 261, 401 and
/// 674 ms after it was sent), so the save is taken to end
/// `150 ms + max(300 ms, 4 × the slowest recent change)` after the burst
/// began, at most ``longestSaveMicroseconds``; the slowest change seen
/// counts for less with each burst (× 3/4), so one slow moment passes.
/// That estimate alone fell short: in the C suite's database the saves
/// grew to 300 ms while changes stayed answered in 10 ms, a change met a
/// save, and KeePassXC crashed (its save file and our changes timed on
/// one clock). So a change also waits while KeePassXC holds its save
/// file open (``isSaving(_:)``), then decides again.
///
/// The bursts are shared by every process of the user that uses this
/// library (a process started right after another's write meets that
/// write's save): they are kept in
/// `$XDG_RUNTIME_DIR/keychainkit-keepassxc-burst`, read and written under
/// `flock`; without that directory, by this process alone. Other programs'
/// changes are not seen. Every wait is bounded by
/// ``longestSaveMicroseconds``, whatever the file says.
enum SaveWindow {

    /// How long after a burst's first change others may follow: before
    /// KeePassXC's 150 ms timer fires, with room for a change's own calls
    /// (a create's prompt).
    static let openMicroseconds: UInt64 = 50_000

    /// The longest a burst's save is waited for.
    static let longestSaveMicroseconds: UInt64 = 5_000_000

    /// The current burst, as kept in the file (two native 64-bit words).
    struct Burst: Equatable {
        /// When its first change went (monotonic microseconds); 0: none yet.
        var start: UInt64 = 0
        /// The slowest change answered lately, in microseconds.
        var slowest: UInt64 = 0

        /// When the save it set off has surely ended.
        var saved: UInt64 {
            start + min(SaveWindow.longestSaveMicroseconds, 150_000 + max(300_000, 4 * slowest))
        }
    }

    /// The burst when no file can hold it.
    private static let local = Locked(Burst())

    /// Runs `change`, a call that changes KeePassXC's items, in a burst:
    /// first waits until it cannot meet a save, then counts how long
    /// KeePassXC took to answer it when `timed` (not a prompt, which may
    /// wait on a person).
    static func pace<Result, Failure: Error>(
        timed: Bool, process: UInt32, _ change: () throws(Failure) -> Result
    ) throws(Failure) -> Result {
        let deadline = Deadline.now() + longestSaveMicroseconds
        while true {
            let wait = withBurst { burst in
                let now = Deadline.now()
                if burst.start > now + longestSaveMicroseconds { burst = Burst() }  // not a time this clock gave
                if burst.start != 0 && now < burst.start + openMicroseconds {
                    return burst.start > now ? burst.start - now : 0  // joins it, once it opens
                }
                let opens = burst.start == 0 ? now : max(now, burst.saved)
                burst = Burst(start: opens, slowest: burst.slowest * 3 / 4)
                return opens - now
            }
            let now = Deadline.now()
            if wait > 0 && now < deadline { usleep(useconds_t(min(wait, deadline - now))) }
            // A save that outlasted its estimate: once it ends, the burst
            // this change would join has closed; decide again. All of it
            // within one bound.
            guard Deadline.now() < deadline, isSaving(process) else { break }
            while Deadline.now() < deadline, isSaving(process) { usleep(2_000) }
        }
        let began = Deadline.now()
        defer {
            if timed {
                let took = Deadline.now() - began
                _ = withBurst { burst in
                    burst.slowest = max(burst.slowest, min(took, longestSaveMicroseconds))
                    return 0
                }
            }
        }
        return try change()
    }

    /// Whether KeePassXC (process `process`) is writing its database: it
    /// holds the file it saves to open while it serializes. With atomic
    /// saves, its default, that is Qt's unnamed temporary file
    /// (`DIR/#INODE (deleted)` in `/proc/PID/fd`: seen there for the
    /// whole write); else the database file itself (`….kdbx`), which it
    /// does not hold open otherwise. A process this one cannot look into
    /// is taken as not saving. About 30 `readlink` calls.
    static func isSaving(_ process: UInt32) -> Bool {
        guard let directory = opendir("/proc/\(process)/fd") else { return false }
        defer { closedir(directory) }
        var target = [UInt8](repeating: 0, count: 4096)
        while let entry = readdir(directory) {
            let count = withUnsafeBytes(of: entry.pointee.d_name) { name in
                target.withUnsafeMutableBytes { buffer in
                    readlinkat(dirfd(directory), name.baseAddress!.assumingMemoryBound(to: CChar.self),
                               buffer.baseAddress!.assumingMemoryBound(to: CChar.self), buffer.count)
                }
            }
            guard count > 0 else { continue }
            if isSaveFile(target[0..<count]) { return true }
        }
        return false
    }

    /// Whether `target`, where a descriptor of KeePassXC's leads, is a file
    /// it saves to (see ``isSaving(_:)``).
    static func isSaveFile(_ target: ArraySlice<UInt8>) -> Bool {
        let name = target.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false).last ?? []
        let deleted = " (deleted)".utf8
        let temporary = name.first == UInt8(ascii: "#") && name.count > deleted.count
            && name.suffix(deleted.count).elementsEqual(deleted)
        return temporary || name.count > 5 && name.suffix(5).elementsEqual(".kdbx".utf8)
    }

    /// Runs `body` on the burst, shared through the file when it can be,
    /// else this process's, and keeps what `body` leaves.
    private static func withBurst(_ body: (inout Burst) -> UInt64) -> UInt64 {
        guard let runtime = try? EnvironmentText.absolutePath("XDG_RUNTIME_DIR") else { return local.withLock(body) }
        let path = runtime + "/keychainkit-keepassxc-burst"
        let descriptor = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK, 0o600)
        guard descriptor >= 0 else { return local.withLock(body) }
        defer { FileLock.close(descriptor) }
        var status = stat(), waited = 0
        // Held for a read and a write: a second's wait means a holder that
        // stopped, and this process's own burst serves instead.
        guard fstat(descriptor, &status) == 0, status.st_mode & S_IFMT == S_IFREG, status.st_uid == getuid(),
              FileLock.lock(descriptor, within: 1000, waited: &waited) == 0
        else { return local.withLock(body) }
        var words: (UInt64, UInt64) = (0, 0)
        let size = MemoryLayout<(UInt64, UInt64)>.size
        if pread(descriptor, &words, size, 0) != size { words = (0, 0) }
        var burst = Burst(start: words.0, slowest: min(words.1, longestSaveMicroseconds))
        let wait = body(&burst)
        words = (burst.start, burst.slowest)
        _ = pwrite(descriptor, &words, size, 0)
        return wait
    }
}

extension SecretServiceClient {

    /// Runs `call`, which changes the service's items (a create, a secret
    /// set, a delete, a label; with `timed` false, a prompt that completes
    /// one), paced as ``SaveWindow`` says when the service is KeePassXC,
    /// told by its process's name (`/proc/PID/comm`, the PID from the bus
    /// daemon), asked once. A process the bus will not name, or whose name
    /// cannot be read (another PID namespace), is taken as not KeePassXC.
    func change<Result>(
        timed: Bool = true, _ call: () throws(SecretServiceFailure) -> Result
    ) throws(SecretServiceFailure) -> Result {
        if keepassxcProcess == nil {
            keepassxcProcess = serverIsGnomeKeyring == true ? 0 : (try? keepassxcProcess(behind: destination)) ?? 0
        }
        guard let process = keepassxcProcess, process != 0 else { return try call() }
        return try SaveWindow.pace(timed: timed, process: process, call)
    }

    /// The process behind the bus name `name` when the kernel names it
    /// `keepassxc`, else 0.
    private func keepassxcProcess(behind name: String) throws(SecretServiceFailure) -> UInt32 {
        let pid = try onBus { () throws(BusFailure) in try bus.processID(of: name) }
        let descriptor = Glibc.open("/proc/\(pid)/comm", O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return 0 }
        defer { close(descriptor) }
        var buffer = [UInt8](repeating: 0, count: 64)
        let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
        guard count > 0 else { return 0 }
        return buffer[0..<count].prefix { $0 != UInt8(ascii: "\n") }.elementsEqual("keepassxc".utf8) ? pid : 0
    }
}
