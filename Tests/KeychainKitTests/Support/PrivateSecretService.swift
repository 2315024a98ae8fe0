// SPDX-License-Identifier: MIT
import Foundation
import Testing

/// A D-Bus bus and gnome-keyring of a test's own, in a temporary directory,
/// that the test may kill and restart without disturbing any other test.
/// The bus activates nothing: when the keyring daemon is down, the service
/// is absent. Reach it with `SecretServiceKeychainInterface(busAddress:)`.
final class PrivateSecretService: @unchecked Sendable {

    let directory: URL
    let address: String
    let password = "private-\(UInt32.random(in: 0...UInt32.max))"
    private var busPID: pid_t = 0
    private(set) var daemonPID: pid_t = 0

    /// Starts the bus, and gnome-keyring on it unless `withDaemon` is false
    /// (a bus with no Secret Service).
    init(withDaemon: Bool = true) throws {
        try requirePrivateKeyring()
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("kk-private-\(UUID().uuidString)")
        for sub in ["home", "data", "config", "runtime"] {
            try FileManager.default.createDirectory(at: directory.appendingPathComponent(sub), withIntermediateDirectories: true)
        }
        chmod(directory.appendingPathComponent("runtime").path, 0o700)
        address = "unix:path=\(directory.path)/bus"
        try startBus()
        if withDaemon { try startDaemon() }
    }

    deinit {
        if daemonPID > 0 { kill(daemonPID, SIGCONT); kill(daemonPID, SIGKILL) }
        if busPID > 0 { kill(busPID, SIGTERM) }
        try? FileManager.default.removeItem(at: directory)
    }

    private func startBus() throws {
        let config = directory.appendingPathComponent("bus.conf")
        try """
        <busconfig>
          <type>session</type>
          <listen>\(address)</listen>
          <auth>EXTERNAL</auth>
          <policy context="default">
            <allow send_destination="*" eavesdrop="true"/>
            <allow eavesdrop="true"/>
            <allow own="*"/>
          </policy>
        </busconfig>
        """.write(to: config, atomically: true, encoding: .utf8)
        let pidFile = directory.appendingPathComponent("bus.pid").path
        let status = system("dbus-daemon --config-file='\(config.path)' --fork --print-pid=1 >'\(pidFile)' 2>/dev/null </dev/null")
        guard status == 0, let pid = pid_t(try String(contentsOfFile: pidFile, encoding: .utf8)
            .trimmingCharacters(in: .whitespacesAndNewlines)) else { throw AdminFailure(description: "dbus-daemon did not start") }
        busPID = pid
    }

    /// Starts gnome-keyring on the private bus with the keyring files of
    /// this directory (created unlocked on the first start) and waits until
    /// it owns its name.
    func startDaemon() throws {
        let pidFile = directory.appendingPathComponent("daemon.pid").path
        let d = directory.path
        let command = """
        printf %s '\(password)' | env HOME='\(d)/home' XDG_DATA_HOME='\(d)/data' XDG_CONFIG_HOME='\(d)/config' \
        XDG_RUNTIME_DIR='\(d)/runtime' DBUS_SESSION_BUS_ADDRESS='\(address)' \
        gnome-keyring-daemon --foreground --unlock --components=secrets >>'\(d)/daemon.log' 2>&1 &
        echo $! >'\(pidFile)'
        """
        guard system(command) == 0 else { throw AdminFailure(description: "gnome-keyring did not start") }
        // `$!` is the pid of the pipeline's last command: the daemon.
        daemonPID = pid_t(try String(contentsOfFile: pidFile, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
        let waited = system("gdbus wait --address '\(address)' --timeout 10 org.freedesktop.secrets >/dev/null 2>&1")
        guard waited == 0 else { throw AdminFailure(description: "gnome-keyring did not claim its name") }
        // The name is claimed before the login keyring is unlocked or
        // created: wait (at most 10 s) until the default alias points to it.
        let ready = system("""
            for i in $(seq 100); do
              gdbus call --address '\(address)' --dest org.freedesktop.secrets --object-path /org/freedesktop/secrets \
                --method org.freedesktop.Secret.Service.ReadAlias default 2>/dev/null | grep -q collection/login && exit 0
              sleep 0.1
            done; exit 1
            """)
        guard ready == 0 else { throw AdminFailure(description: "gnome-keyring has no default collection") }
    }

    /// Kills the daemon with SIGKILL and waits until it is gone.
    func killDaemon() {
        guard daemonPID > 0 else { return }
        kill(daemonPID, SIGKILL)
        var status: Int32 = 0
        // Not our child (started by a shell): poll until it is gone.
        while kill(daemonPID, 0) == 0 {
            _ = waitpid(daemonPID, &status, WNOHANG)
            usleep(10_000)
        }
        daemonPID = 0
    }

    /// Stops (SIGSTOP) or resumes (SIGCONT) the daemon: a service that owns
    /// its name but does not answer.
    func freezeDaemon(_ frozen: Bool) {
        if daemonPID > 0 { kill(daemonPID, frozen ? SIGSTOP : SIGCONT) }
    }

    /// Kills the bus itself.
    func killBus() {
        guard busPID > 0 else { return }
        kill(busPID, SIGKILL)
        busPID = 0
    }
}
