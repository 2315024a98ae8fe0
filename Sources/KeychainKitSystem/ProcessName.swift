// SPDX-License-Identifier: MIT
#if canImport(Glibc)
import Glibc
#endif

/// The name of the running program, as the default service.
package enum ProcessName {

    /// The last path component of `argv[0]`, from `/proc/self/cmdline`
    /// (the Swift runtime's `CommandLine.arguments` is empty in a library
    /// loaded after the host changed its environment), or `"keychainkit"`
    /// when the process has no usable name.
    package static var current: String {
        guard let argument0 = commandLineArgument0(),
              let name = argument0.split(separator: "/").last,
              !name.isEmpty
        else { return "keychainkit" }
        return String(name)
    }

    private static func commandLineArgument0() -> String? {
        let descriptor = open("/proc/self/cmdline", O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return CommandLine.arguments.first }
        defer { close(descriptor) }
        var buffer = [UInt8](repeating: 0, count: 4096)
        let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
        guard count > 0 else { return CommandLine.arguments.first }
        let first = buffer[0..<count].prefix { $0 != 0 }
        return String(validating: first, as: UTF8.self)
    }
}
