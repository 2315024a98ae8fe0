// SPDX-License-Identifier: MIT
#if canImport(Glibc)
import Glibc
#endif

/// A `.env` file for `run --env-file`: `NAME=value` lines, whose values
/// pass to the command as they are, and `NAME=keychainkit://SERVICE/ACCOUNT`
/// lines, whose secrets do. Blank lines and `#` comments are skipped; an
/// `export ` before a name is allowed. Values are taken literally: no
/// quotes are removed, nothing is expanded.
enum EnvironmentFile {

    /// What a variable gets: bytes as written, or the secret of a reference.
    enum Value {
        case text([UInt8])
        case secret(SecretReference)
    }

    /// The variables of the file at `path`, in order.
    static func read(_ path: String) throws(CLIFailure) -> [(name: String, value: Value)] {
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard fd >= 0 else {
            throw CLIFailure(.io, "cannot open the env file '\(path)': \(String(cString: strerror(errno)))")
        }
        defer { close(fd) }
        var bytes = try StandardStreams.readAll(fd, atMost: 1 << 20, what: "the env file '\(path)'")
        defer { bytes.wipe() }
        var variables: [(name: String, value: Value)] = []
        for (index, rawLine) in bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).enumerated() {
            var line = rawLine[...]
            if line.last == UInt8(ascii: "\r") { line = line.dropLast() }
            let content = line.drop { $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") }
            if content.isEmpty || content.first == UInt8(ascii: "#") { continue }
            var assignment = content
            if assignment.starts(with: Array("export ".utf8)) { assignment = assignment.dropFirst(7) }
            guard let equals = assignment.firstIndex(of: UInt8(ascii: "=")),
                  let name = String(validating: assignment[..<equals], as: UTF8.self),
                  Invocation.isEnvironmentName(name[...])
            else {
                throw CLIFailure(.usage, "\(path):\(index + 1): not NAME=value (NAME letters, digits and _)")
            }
            let value = Array(assignment[assignment.index(after: equals)...])
            if let text = String(validating: value, as: UTF8.self), let reference = try SecretReference.parse(text[...]) {
                variables.append((name, .secret(reference)))
            } else {
                variables.append((name, .text(value)))
            }
        }
        return variables
    }
}
