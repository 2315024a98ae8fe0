// SPDX-License-Identifier: MIT
import KeychainKitCore
import KeychainKitSystem
#if canImport(Glibc)
import Glibc
#endif

/// The changes other handles and processes make to a keyring file, for a
/// keychain over a ``FileKeychainInterface``: inotify watches the file's
/// directory (a write renames a new file into place); when the file's
/// name is touched, the interface reads it again and tells each source
/// the keys whose items differ. Without inotify (refused, or out of
/// watches), the file is looked at every second.
final class FileChangeSource: OutsideChangeSource, @unchecked Sendable {

    private weak var interface: FileKeychainInterface?

    /// The ``ForkGeneration`` it was made in.
    let generation = ForkGeneration.current
    private let name: [UInt8]
    private let queue = OutsideChangeQueue()
    private var inotify: Int32 = -1
    /// The watched directory was removed or moved: the watch is over.
    private var watchEnded = false

    init(interface: FileKeychainInterface) {
        self.interface = interface
        name = Array(interface.path.utf8.split(separator: UInt8(ascii: "/")).last ?? [])
        interface.state.withLock { $0.sources[ObjectIdentifier(self)] = self }
    }

    /// Queues changes the interface found (called under its lock).
    func post(_ changes: [OutsideChange]) {
        queue.post(changes)
    }

    /// Watches the directory from now on (once; it may not exist yet: then
    /// again on the next call).
    func listen(for keys: Set<KeychainAttributes>) {
        guard inotify < 0, let interface else { return }
        let fd = inotify_init1(Int32(IN_CLOEXEC | IN_NONBLOCK))
        guard fd >= 0 else { return }
        let mask = UInt32(IN_CLOSE_WRITE | IN_MOVED_TO | IN_MOVED_FROM | IN_CREATE | IN_DELETE | IN_ATTRIB | IN_DELETE_SELF
            | IN_MOVE_SELF)
        guard inotify_add_watch(fd, KeyringFileSystem.directoryName(of: interface.path), mask) >= 0 else {
            Glibc.close(fd)
            return
        }
        inotify = fd
        // The versions from now on are the baseline: what changed before
        // the watch began is read now, and not reported.
        _ = try? interface.state.withLock { state throws(FileStoreError) in
            try interface.refresh(&state)
            queue.removeAll()
        }
    }

    func waitForChanges(of keys: Set<KeychainAttributes>, wakingOn wake: Int32) -> [OutsideChange] {
        if queue.isEmpty {
            if inotify < 0 { listen(for: keys) }
            var fds = [pollfd(fd: wake, events: Int16(POLLIN), revents: 0),
                       pollfd(fd: inotify, events: Int16(POLLIN), revents: 0)]
            _ = poll(&fds, 2, 1000)
            if inotify < 0 || fds[1].revents != 0 && touchesFile() { refresh() }
            if watchEnded {
                // The directory went (removed, moved): watch its path anew,
                // looking every second until it is back.
                Glibc.close(inotify)
                inotify = -1
                watchEnded = false
            }
        }
        return queue.take(for: keys)
    }

    func close() {
        interface?.state.withLock { $0.sources[ObjectIdentifier(self)] = nil }
        if inotify >= 0 { Glibc.close(inotify) }
        inotify = -1
    }

    /// Drains the pending events; whether one names the file (or events
    /// were lost).
    private func touchesFile() -> Bool {
        var touched = false
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let got = buffer.withUnsafeMutableBytes { read(inotify, $0.baseAddress!, $0.count) }
            guard got > 0 else { return touched }
            var offset = 0
            while offset + MemoryLayout<inotify_event>.size <= got {
                let (mask, length) = buffer.withUnsafeBytes { raw in
                    let event = raw.loadUnaligned(fromByteOffset: offset, as: inotify_event.self)
                    return (event.mask, Int(event.len))
                }
                let start = offset + MemoryLayout<inotify_event>.size
                let end = min(start + length, got)
                let eventName = buffer[start..<end].prefix { $0 != 0 }
                if mask & UInt32(IN_Q_OVERFLOW) != 0 || eventName.elementsEqual(name) { touched = true }
                if mask & UInt32(IN_IGNORED | IN_DELETE_SELF | IN_MOVE_SELF) != 0 {
                    touched = true
                    watchEnded = true
                }
                offset = start + length
            }
        }
    }

    /// Has the interface read the file again if it changed (which posts
    /// the differences to every source). A failure (the file unreadable
    /// for now) is tried again on the next change.
    private func refresh() {
        guard let interface else { return }
        _ = try? interface.state.withLock { state throws(FileStoreError) in try interface.refresh(&state) }
    }
}
