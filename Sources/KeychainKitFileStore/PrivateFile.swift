// SPDX-License-Identifier: MIT
import KeychainKitCore

#if canImport(Glibc)
import Glibc
#endif

/// A small file of the user's beside the keyring files, kept by the same
/// rules as they are (``KeyringFileSystem``): read only when it is a regular
/// file of the user's, mode 0600, in a directory no other user controls;
/// replaced atomically and durably (a new file synced and renamed over it,
/// the directory synced). keychainkitd keeps its aliases in one.
package enum PrivateFile {

    /// Why a private file was refused or could not be written.
    package struct Failure: Error {
        package let message: String
    }

    /// The file's bytes; `nil` when it does not exist.
    package static func read(_ path: String) throws(Failure) -> [UInt8]? {
        do throws(FileStoreError) {
            return try KeyringFileSystem.read(path)?.bytes
        } catch {
            throw Failure(message: error.detail ?? "\(path): \(error.error)")
        }
    }

    /// Replaces the file (or creates it) with `bytes`.
    package static func write(_ bytes: [UInt8], to path: String) throws(Failure) {
        do throws(FileStoreError) {
            KeyringFileSystem.removeLeftovers(of: path)
            // Written by one process (the daemon's one thread): the file
            // changes between the look and the rename only if another
            // program writes it meanwhile; then it is written again.
            for _ in 0..<3 {
                if try KeyringFileSystem.replace(path, with: bytes, expected: try KeyringFileSystem.stamp(of: path)) != nil {
                    return
                }
            }
            throw FileStoreError(.unknownError(code: EAGAIN, message: "\(path) kept changing while it was written"))
        } catch {
            throw Failure(message: error.detail ?? "\(path): \(error.error)")
        }
    }
}
