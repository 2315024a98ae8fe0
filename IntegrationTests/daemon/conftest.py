# SPDX-License-Identifier: MIT
"""Fixtures of the keychainkitd suite: a private session bus per test, with
keychainkitd on a private data directory, started and stopped as a test
needs (KEYCHAINKITD: the program, build/bin/keychainkitd by default).

Nothing here touches the user's bus, keyring or data: HOME and the XDG
directories point into the test's temporary directory."""
import os
import signal
import subprocess
import time
from pathlib import Path

import pytest
from jeepney import DBusAddress, MatchRule, message_bus, new_method_call
from jeepney.io.blocking import open_dbus_connection

ROOT = Path(__file__).resolve().parents[2]
KEYCHAINKITD = os.environ.get("KEYCHAINKITD", str(ROOT / "build/bin/keychainkitd"))
KEYCHAINKIT = os.environ.get("KEYCHAINKIT", str(ROOT / "build/bin/keychainkit"))
PASSWORD = b"keychainkitd-test"
NAME = "org.freedesktop.secrets"
SERVICE = DBusAddress("/org/freedesktop/secrets", bus_name=NAME, interface="org.freedesktop.Secret.Service")
LOGIN = "/org/freedesktop/secrets/collection/login"


class Bus:
    """A private session bus and the environment that leads clients to it."""

    def __init__(self, tmp_path):
        self.root = tmp_path
        for sub in ("home", "data", "runtime", "config"):
            (tmp_path / sub).mkdir(mode=0o700)
        self.env = {
            key: value for key, value in os.environ.items()
            if key not in ("DBUS_SESSION_BUS_ADDRESS", "DISPLAY", "WAYLAND_DISPLAY", "CREDENTIALS_DIRECTORY")
        }
        self.env.update(HOME=str(tmp_path / "home"), XDG_DATA_HOME=str(tmp_path / "data"),
                        XDG_RUNTIME_DIR=str(tmp_path / "runtime"), XDG_CONFIG_HOME=str(tmp_path / "config"))
        self.process = subprocess.Popen(
            ["dbus-daemon", "--session", "--nofork", "--print-address=1"],
            stdout=subprocess.PIPE, env=self.env, text=True)
        self.address = self.process.stdout.readline().strip()
        self.env["DBUS_SESSION_BUS_ADDRESS"] = self.address
        self.data = tmp_path / "data" / "keyrings" / "v1"

    def connect(self):
        return open_dbus_connection(self.address)

    def owner_pid(self):
        """The PID of the name's owner, or None."""
        with self.connect() as connection:
            reply = connection.send_and_get_reply(
                new_method_call(message_bus, "GetConnectionUnixProcessID", "s", (NAME,)), timeout=5)
            return reply.body[0] if reply.header.message_type.name == "method_return" else None

    def close(self):
        self.process.terminate()
        self.process.wait(timeout=10)


class Daemon:
    """One keychainkitd process on the bus."""

    def __init__(self, bus, password=PASSWORD, args=(), wait=True, prefix=()):
        """`prefix`: a command that execs the daemon (so that its PID is the
        daemon's), to start it under other limits."""
        self.bus = bus
        read, write = os.pipe()
        command = [*prefix, KEYCHAINKITD, *args]
        if password is not None:
            command += ["--master-fd", str(read)]
        self.process = subprocess.Popen(command, env=bus.env, pass_fds=(read,), stderr=subprocess.PIPE)
        os.set_blocking(self.process.stderr.fileno(), False)
        self.stderr = b""
        os.close(read)
        os.write(write, password or b"")
        os.close(write)
        if wait:
            self.wait_owned()

    def read_stderr(self):
        """What the daemon wrote to standard error so far."""
        self.stderr += self.process.stderr.read() or b""
        return self.stderr

    def wait_owned(self):
        deadline = time.monotonic() + 10
        while self.bus.owner_pid() != self.process.pid:
            assert self.process.poll() is None, self.read_stderr().decode()
            assert time.monotonic() < deadline, "keychainkitd did not take the name"
            time.sleep(0.02)

    def stop(self, how=signal.SIGTERM):
        self.process.send_signal(how)
        status = self.process.wait(timeout=10)
        self.read_stderr()
        return status


@pytest.fixture
def bus(tmp_path):
    private = Bus(tmp_path)
    yield private
    private.close()


@pytest.fixture
def daemon(bus):
    running = Daemon(bus)
    yield running
    if running.process.poll() is None:
        running.stop()


def call(connection, address, member, signature="", body=(), interface=None):
    """Calls `member` and returns the reply's body; raises on an error reply."""
    if interface is not None:
        address = DBusAddress(address.object_path, bus_name=address.bus_name, interface=interface)
    reply = connection.send_and_get_reply(new_method_call(address, member, signature, body), timeout=10)
    if reply.header.message_type.name == "error":
        raise DBusError(reply.header.fields.get(4), reply.body)
    return reply.body


class DBusError(Exception):
    def __init__(self, name, body):
        super().__init__(f"{name}: {body}")
        self.name = name


def properties(connection, path, interface):
    address = DBusAddress(path, bus_name=NAME, interface="org.freedesktop.DBus.Properties")
    return {name: value for name, (_, value) in call(connection, address, "GetAll", "s", (interface,))[0].items()}


def subscribe(connection, **rule):
    """Asks the bus for the signals that match `rule` (MatchRule's fields)."""
    call(connection, message_bus, "AddMatch", "s", (MatchRule(type="signal", **rule).serialise(),))
