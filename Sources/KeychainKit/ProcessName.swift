/// The name of the running program, as the default service.
enum ProcessName {

    /// The last path component of `argv[0]`, or `"keychainkit"` when the
    /// process has no usable name.
    static var current: String {
        guard let argument0 = CommandLine.arguments.first,
              let name = argument0.split(separator: "/").last,
              !name.isEmpty, !name.utf8.contains(0)
        else { return "keychainkit" }
        return String(name)
    }
}
