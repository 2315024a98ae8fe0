// SPDX-License-Identifier: MIT
#if canImport(Glibc)
import Glibc
#endif

/// Reading secrets from stdin and writing results, with errors reported
/// instead of signals (SIGPIPE is ignored by main).
enum StandardStreams {

    /// The secret for `set`: from a terminal, one line typed without echo
    /// after a prompt on stderr; otherwise all of stdin, minus one trailing
    /// newline ("\n" or "\r\n"). Empty input is refused.
    static func readSecret(prompt: String) throws(CLIFailure) -> [UInt8] {
        var bytes: [UInt8]
        if isatty(STDIN_FILENO) == 1 {
            bytes = try readWithoutEcho(prompt: prompt)
        } else {
            bytes = try readAll(STDIN_FILENO)
        }
        if bytes.last == UInt8(ascii: "\n") {
            bytes.removeLast()
            if bytes.last == UInt8(ascii: "\r") { bytes.removeLast() }
        }
        guard !bytes.isEmpty else { throw CLIFailure(.usage, "no secret on standard input") }
        return bytes
    }

    /// A password from `descriptor` (`--password-fd`): read to its end, at
    /// most 64 KiB, one trailing newline dropped; empty is refused.
    static func readPassword(from descriptor: Int32) throws(CLIFailure) -> [UInt8] {
        var bytes = try readAll(descriptor, atMost: 65536, what: "the password")
        if bytes.last == UInt8(ascii: "\n") {
            bytes.removeLast()
            if bytes.last == UInt8(ascii: "\r") { bytes.removeLast() }
        }
        guard !bytes.isEmpty else { throw CLIFailure(.usage, "no password on descriptor \(descriptor)") }
        return bytes
    }

    private static func readWithoutEcho(prompt: String) throws(CLIFailure) -> [UInt8] {
        writeError(prompt)
        var original = termios()
        let canRestore = tcgetattr(STDIN_FILENO, &original) == 0
        if canRestore {
            var silent = original
            silent.c_lflag &= ~tcflag_t(ECHO)
            tcsetattr(STDIN_FILENO, TCSAFLUSH, &silent)
        }
        defer {
            if canRestore { tcsetattr(STDIN_FILENO, TCSAFLUSH, &original) }
            writeError("\n")
        }
        var line: [UInt8] = []
        var byte: UInt8 = 0
        defer { byte = 0 }
        while true {
            let count = read(STDIN_FILENO, &byte, 1)
            if count < 0 && errno == EINTR { continue }
            if count < 0 { throw CLIFailure(.io, "cannot read standard input") }
            if count == 0 || byte == UInt8(ascii: "\n") { break }
            line.appendWipingOldStorage([byte])
        }
        return line
    }

    /// What `descriptor` gives until its end, or until what was read so far
    /// satisfies `complete` (then possibly a little more); buffers it grew
    /// from are wiped.
    static func readAll(
        _ descriptor: Int32, atMost limit: Int = .max, what: String = "the input",
        until complete: ([UInt8]) -> Bool = { _ in false }
    ) throws(CLIFailure) -> [UInt8] {
        var result: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        defer { chunk.wipe() }
        while true {
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            if count < 0 { throw CLIFailure(.io, "cannot read standard input") }
            if count == 0 { break }
            chunk.withUnsafeBytes { result.appendWipingOldStorage(UnsafeRawBufferPointer(rebasing: $0[0..<count])) }
            if complete(result) { break }
            if result.count > limit {
                result.wipe()
                let size = limit >= 1 << 20 ? "\(limit >> 20) MiB" : "\(limit) bytes"
                throw CLIFailure(.usage, "\(what) is longer than \(size)")
            }
        }
        return result
    }

    /// Writes all of `bytes` to stdout.
    static func write(_ bytes: [UInt8]) throws(CLIFailure) {
        var offset = 0
        while offset < bytes.count {
            let count = bytes[offset...].withUnsafeBytes { Glibc.write(STDOUT_FILENO, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            if count <= 0 { throw CLIFailure(.io, "cannot write standard output") }
            offset += count
        }
    }

    static func writeLine(_ text: String) throws(CLIFailure) {
        try write(Array((text + "\n").utf8))
    }

    /// Writes a line naming something stored (an account, a service), which
    /// anyone who can write to the keychain chose: to a terminal with its
    /// control characters escaped (`\x1b`; a backslash as `\\`), so that
    /// no escape sequence reaches the terminal; elsewhere (a pipe, a file)
    /// as it is, for scripts.
    static func writeNameLine(_ text: String) throws(CLIFailure) {
        try writeLine(isatty(STDOUT_FILENO) == 1 ? TerminalText.escaped(text) : text)
    }

    /// Writes to stderr; errors are ignored (there is nowhere left to report them).
    static func writeError(_ text: String) {
        var bytes = Array(text.utf8)
        _ = bytes.withUnsafeMutableBytes { Glibc.write(STDERR_FILENO, $0.baseAddress, $0.count) }
    }
}
