// SPDX-License-Identifier: MIT
import KeychainKitSystem

#if canImport(Glibc)
import Glibc
#endif

/// `inject`: a configuration template whose `{{ keychainkit://SERVICE/ACCOUNT }}`
/// placeholders (spaces inside the braces optional) become the secrets they
/// name. Other `{{ … }}` text is left as it is.
enum TemplateInjection {

    /// A piece of the template: its own bytes, or a placeholder's reference.
    enum Piece {
        case text(ArraySlice<UInt8>)
        case secret(SecretReference)
    }

    /// `template` cut into its text and its placeholders, in order.
    static func pieces(of template: [UInt8]) throws(CLIFailure) -> [Piece] {
        var pieces: [Piece] = []
        var start = template.startIndex
        var index = template.startIndex
        while index + 1 < template.endIndex {
            guard template[index] == UInt8(ascii: "{"), template[index + 1] == UInt8(ascii: "{"),
                  let close = closing(in: template, after: index + 2)
            else {
                index += 1
                continue
            }
            let inside = template[(index + 2)..<close]
            let trimmed = inside.drop { $0 == UInt8(ascii: " ") }.reversed().drop { $0 == UInt8(ascii: " ") }.reversed()
            guard let text = String(validating: Array(trimmed), as: UTF8.self),
                  let reference = try SecretReference.parse(text[...])
            else {
                index += 2
                continue
            }
            pieces.append(.text(template[start..<index]))
            pieces.append(.secret(reference))
            index = close + 2
            start = index
        }
        pieces.append(.text(template[start...]))
        return pieces
    }

    /// Where the `}}` after `start` begins, on the same line.
    private static func closing(in template: [UInt8], after start: Int) -> Int? {
        var index = start
        while index + 1 < template.endIndex, template[index] != UInt8(ascii: "\n") {
            if template[index] == UInt8(ascii: "}") && template[index + 1] == UInt8(ascii: "}") { return index }
            index += 1
        }
        return nil
    }

    /// Writes `bytes` to `path` atomically: a new file (mode 0600) beside
    /// it, flushed to disk, then renamed over it; nothing is left behind
    /// on failure.
    static func writeAtomically(_ bytes: [UInt8], to path: String) throws(CLIFailure) {
        guard let (fd, temporary) = UniqueFile.create(prefix: path + ".keychainkit-new.") else {
            throw CLIFailure(.io, "cannot create a file beside '\(path)': \(String(cString: strerror(errno)))")
        }
        var written = 0
        var ok = fchmod(fd, 0o600) == 0
        while ok && written < bytes.count {
            let count = bytes[written...].withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            ok = count > 0
            if ok { written += count }
        }
        ok = ok && fsync(fd) == 0
        let error = errno
        ok = close(fd) == 0 && ok
        guard ok, rename(temporary, path) == 0 else {
            let reason = String(cString: strerror(ok ? errno : error))
            unlink(temporary)
            throw CLIFailure(.io, "cannot write '\(path)': \(reason)")
        }
    }
}
