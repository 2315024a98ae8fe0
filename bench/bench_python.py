# SPDX-License-Identifier: MIT
"""The Python binding against Python `keyring` (get and set);
`keyring.get_password` through our keyring backend (selected explicitly,
and as keyring picks it once installed: its chainer, ours first) against
keyring's SecretService backend; and whole processes: `keychainkit get`
against `secret-tool lookup`, `python -m keyring get` and the floor
(bench/floor.c, $KEYCHAINKIT_BENCH_FLOOR). "keyring" alone is
keyring's SecretService backend, selected explicitly. Runs inside the
private keyring; interleaves the compared operations round by round. Prints
one JSON line per measurement.

Usage: python bench_python.py ROUNDS PROCESS_ROUNDS KEYCHAINKIT_BINARY
"""
import json
import os
import statistics
import subprocess
import sys
import time

import keyring
import keyring.core
from keyring.backends.SecretService import Keyring as SecretServiceKeyring

import keychainkit
from keychainkit.keyring_backend import Keyring as KeychainKitKeyring

SECRET_SERVICE = "keyring.backends.SecretService.Keyring"
# bench/floor.c: the least a correct client does to read one secret in a process.
FLOOR = "the floor (floor.c: sd-bus, DH session, search, GetSecret)"
# The floor again, interleaved with each helper's own comparison, so that a
# helper is measured against the floor of the same minutes.
FLOOR_BESIDE_GIT = FLOOR + ", beside the git helpers"
FLOOR_BESIDE_DOCKER = FLOOR + ", beside the Docker helpers"


def report(group, name, samples):
    print(json.dumps({"group": group, "name": name,
                      "median_ns": int(statistics.median(samples)), "samples": len(samples)}), flush=True)


def timed(function):
    start = time.perf_counter_ns()
    function()
    return time.perf_counter_ns() - start


def compare(group, rounds, sides):
    """sides: list of (name, callable); interleaved, order alternating."""
    samples = {name: [] for name, _ in sides}
    for round_index in range(rounds):
        ordered = sides if round_index % 2 == 0 else list(reversed(sides))
        for name, function in ordered:
            samples[name].append(timed(function))
    for name, _ in sides:
        report(group, name, samples[name])


def main():
    rounds, process_rounds, binary = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
    service = f"kkbench-py.{os.getpid()}"
    installed = keyring.core._detect_backend()  # what keyring picks with no configuration
    keyring.set_keyring(SecretServiceKeyring())
    kc = keychainkit.Keychain(service=service)
    kc["present"] = "benchmark-value"
    keyring.set_password(service, "present", "benchmark-value")
    assert kc["present"] == "benchmark-value"
    assert keyring.get_password(service, "present") == "benchmark-value"

    def binding_get():
        assert kc["present"] == "benchmark-value"

    def keyring_get():
        assert keyring.get_password(service, "present") == "benchmark-value"

    def binding_set():
        kc["present"] = "benchmark-value"

    def keyring_set():
        keyring.set_password(service, "present", "benchmark-value")

    compare("python", rounds, [("binding get", binding_get), ("keyring get", keyring_get)])
    compare("python", rounds, [("binding set", binding_set), ("keyring set", keyring_set)])

    def backend_get(backend):
        def get():
            assert backend.get_password(service, "present") == "benchmark-value"
        return get

    compare("keyring backend", rounds, [
        ("keyring get, keychainkit backend", backend_get(KeychainKitKeyring())),
        ("keyring get, keychainkit installed (keyring's choice)", backend_get(installed)),
        ("keyring get, SecretService backend", backend_get(SecretServiceKeyring())),
    ])

    def process(arguments):
        def run():
            result = subprocess.run(arguments, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
            assert result.returncode == 0 and result.stdout.startswith(b"benchmark-value"), result
        return run

    os.environ["PYTHON_KEYRING_BACKEND"] = SECRET_SERVICE  # for python -m keyring
    floor = process([os.environ["KEYCHAINKIT_BENCH_FLOOR"], service, "present"])
    compare("process", process_rounds, [
        ("keychainkit get", process([binary, "get", "--service", service, "present"])),
        ("secret-tool lookup", process(["secret-tool", "lookup", "service", service, "username", "present"])),
        ("python -m keyring get", process([sys.executable, "-m", "keyring", "get", service, "present"])),
        (FLOOR, floor),
    ])
    # What a process costs before any work: the Swift runtime and the
    # libraries keychainkit loads, against a program that does nothing.
    def started(arguments):
        def run():
            subprocess.run(arguments, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
        return run

    compare("process", process_rounds, [
        ("keychainkit --version", started([binary, "--version"])),
        ("/bin/true", started(["/bin/true"])),
    ])
    git_helpers(process_rounds, os.path.join(os.path.dirname(binary), "git-credential-keychainkit"),
                os.environ["KEYCHAINKIT_BENCH_GIT_LIBSECRET"], floor)
    docker_helpers(process_rounds, os.path.join(os.path.dirname(binary), "docker-credential-keychainkit"), floor)
    kc.close()


def git_helpers(rounds, ours, libsecret, floor):
    """git credential fill through each helper, one credential both find;
    each helper's `get` beside `floor`."""
    host = f"kkbench-git-{os.getpid()}.example"
    request = f"protocol=https\nhost={host}\n\n".encode()
    stored = subprocess.run([ours, "store"], input=request[:-1] + b"username=u\npassword=benchmark-value\n\n")
    assert stored.returncode == 0
    environment = dict(os.environ, GIT_CONFIG_NOSYSTEM="1", GIT_CONFIG_GLOBAL="/dev/null", GIT_TERMINAL_PROMPT="0")

    def run(arguments):
        def once():
            result = subprocess.run(arguments, input=request, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                    env=environment)
            assert result.returncode == 0 and b"password=benchmark-value" in result.stdout, result
        return once

    def fill(helper):
        return run(["git", "-c", f"credential.helper={helper}", "credential", "fill"])

    compare("git credential", rounds, [
        ("git credential fill, git-credential-keychainkit", fill(ours)),
        ("git credential fill, git-credential-libsecret", fill(libsecret)),
    ])
    compare("git credential", rounds, [
        ("git-credential-keychainkit get", run([ours, "get"])),
        ("git-credential-libsecret get", run([libsecret, "get"])),
        (FLOOR_BESIDE_GIT, floor),
    ])
    assert subprocess.run([ours, "erase"], input=request).returncode == 0


def docker_helpers(rounds, ours, floor):
    """`get` as a whole process through each Docker credential helper, one
    login both find (ours stores it as docker-credential-secretservice
    does), beside `floor`."""
    server = f"kkbench-docker-{os.getpid()}.example:5000"
    login = json.dumps({"ServerURL": server, "Username": "u", "Secret": "benchmark-value"}).encode()
    assert subprocess.run([ours, "store"], input=login).returncode == 0

    def get(helper):
        def once():
            result = subprocess.run([helper, "get"], input=server.encode(), stdout=subprocess.PIPE, stderr=subprocess.PIPE)
            assert result.returncode == 0 and b'"Secret":"benchmark-value"' in result.stdout, result
        return once

    compare("docker credential", rounds, [
        ("docker-credential-keychainkit get", get(ours)),
        ("docker-credential-secretservice get", get("docker-credential-secretservice")),
        (FLOOR_BESIDE_DOCKER, floor),
    ])
    assert subprocess.run([ours, "erase"], input=server.encode()).returncode == 0


if __name__ == "__main__":
    main()
