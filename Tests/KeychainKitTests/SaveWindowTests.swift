// SPDX-License-Identifier: MIT
@testable import KeychainKitSecretService
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// How a change tells that KeePassXC is saving (``SaveWindow``): a file
/// it saves to is open in its process. Checked on this process, which
/// opens such files itself.
@Suite("KeePassXC's save, seen from /proc")
struct SaveWindowTests {

    @Test func anUnnamedTemporaryFileOrADatabaseFileOpenIsASave() throws {
        let process = UInt32(getpid())
        #expect(!SaveWindow.isSaving(process))
        let directory = try #require(getenv("TMPDIR").map { String(cString: $0) } ?? "/tmp")
        // What Qt's QSaveFile opens: O_TMPFILE (which Glibc's module does
        // not export: __O_TMPFILE | O_DIRECTORY), shown as
        // "DIR/#INODE (deleted)".
        let temporary = open(directory, 0o20_000_000 | O_DIRECTORY | O_RDWR | O_CLOEXEC, 0o600)
        try #require(temporary >= 0)
        #expect(SaveWindow.isSaving(process))
        close(temporary)
        #expect(!SaveWindow.isSaving(process))
        // What it writes with atomic saves off: the database itself.
        let path = "\(directory)/keychainkit-save-window-\(getpid()).kdbx"
        let database = open(path, O_CREAT | O_RDWR | O_CLOEXEC, 0o600)
        try #require(database >= 0)
        defer { unlink(path) }
        #expect(SaveWindow.isSaving(process))
        close(database)
        #expect(!SaveWindow.isSaving(process))
    }

    @Test func onlyThoseNamesCount() {
        let names = [
            ("/home/u/db/#16229208 (deleted)", true), ("/home/u/Passwords.kdbx", true),
            ("/home/u/notes (deleted)", false), ("/home/u/#draft", false), ("socket:[2144282]", false),
            ("/usr/share/mime/mime.cache", false), ("/home/u/.kdbx", false), ("kdbx", false), ("", false),
        ]
        for (target, expected) in names {
            #expect(SaveWindow.isSaveFile(ArraySlice(target.utf8)) == expected, "\(target)")
        }
    }

    @Test func aProcessThatCannotBeSeenIsNotSaving() {
        #expect(!SaveWindow.isSaving(UInt32(Int32.max)))
    }
}
