# SPDX-License-Identifier: MIT
"""KeychainKit against a hostile Secret Service: each finding of the
trust-boundary issue, asserting the correct outcome.

Runs inside scripts/with-fake-secret-service.sh, one fake for the whole
run (make test-hostile does both): each test resets the fake's items
and modes through its control object (control.py) and opens keychains of
its own through the Python binding, which is the C ABI one call deep. The
git helper and the CLI run as processes, as their users run them.
"""
from __future__ import annotations

import os
import subprocess
import threading
import time
from pathlib import Path
from typing import Iterator, List

import pytest

import keychainkit
from keychainkit import ChangeEvent, Keychain, KeychainError, ServiceUnavailable
from control import CHANGES_INTERFACE, COLLECTION_INTERFACE, SERVICE_INTERFACE, Fake

ROOT = Path(__file__).resolve().parents[2]
CLI = ROOT / "build" / "bin" / "keychainkit"
GIT_HELPER = ROOT / "build" / "bin" / "git-credential-keychainkit"
COLLECTION = "/org/freedesktop/secrets/collection/login"

if os.environ.get("KEYCHAINKIT_TEST_KEYRING") != "fake":
    pytest.fail("run inside scripts/with-fake-secret-service.sh (make test-hostile)", pytrace=False)


@pytest.fixture
def fake() -> Iterator[Fake]:
    control = Fake()
    control.clear_modes()
    control.reset()
    try:
        yield control
    finally:
        control.clear_modes()
        control.reset()
        control.close()


@pytest.fixture
def kc(fake: Fake) -> Iterator[Keychain]:
    keychain = Keychain(service="app", prompts="never")
    try:
        yield keychain
    finally:
        keychain.close()


def detail() -> str:
    """kk_error_message() of this thread's last call."""
    return (keychainkit._ffi.kk_error_message() or b"").decode()


def accounts(fake: Fake) -> List[str]:
    return sorted(attributes.get("username", "") for _, attributes in fake.items())


# -- 1. search answers are verified ------------------------------------------

@pytest.mark.parametrize("mode", ["loose-match", "search-everything"])
def test_a_loose_server_never_returns_another_accounts_secret(fake: Fake, kc: Keychain, mode: str) -> None:
    kc["alice"] = "alice's"
    kc["carol"] = "carol's"
    fake.set_mode(mode)
    assert kc.value("bob|") is None
    assert "server fault" in detail() and "ignored" in detail()
    assert "bob|" not in kc
    assert kc["alice"] == "alice's"


@pytest.mark.parametrize("mode", ["loose-match", "search-everything"])
def test_a_secret_asked_for_along_with_the_check_is_never_returned_for_another_account(
        fake: Fake, kc: Keychain, mode: str) -> None:
    # A server of gnome-keyring's kind (the fake as oo7) is asked for the
    # secret of the one item a search finds along with its attributes; the
    # check still decides: another account's lone item is never returned.
    fake.set_mode("personality", "oo7")
    kc["alice"] = "alice's"
    fake.set_mode(mode)
    asked = fake.stats().get("GetSecret", 0)
    assert kc.value("bob|") is None
    assert fake.stats().get("GetSecret", 0) == asked + 1  # asked along with the check, then dropped
    assert "server fault" in detail() and "ignored" in detail()
    assert kc["alice"] == "alice's"


@pytest.mark.parametrize("mode", ["loose-match", "search-everything"])
def test_a_loose_server_never_gets_another_account_overwritten_or_deleted(fake: Fake, kc: Keychain, mode: str) -> None:
    kc["alice"] = "alice's"
    kc["carol"] = "carol's"
    fake.set_mode(mode)
    kc["bob|"] = "bob's"
    assert accounts(fake) == ["alice", "bob|", "carol"]
    assert (kc["alice"], kc["bob|"], kc["carol"]) == ("alice's", "bob's", "carol's")
    kc["bob|"] = "bob's again"
    assert (kc["alice"], kc["bob|"], kc["carol"]) == ("alice's", "bob's again", "carol's")
    kc.remove_value("bob|")
    assert accounts(fake) == ["alice", "carol"]
    assert kc.value("bob|") is None
    kc.remove_value("bob|")  # absent: nothing else goes
    assert accounts(fake) == ["alice", "carol"]


def test_listing_on_an_everything_server_lists_the_service_only(fake: Fake, kc: Keychain) -> None:
    kc["alice"] = "a"
    with Keychain(service="other-app", prompts="never") as other:
        other["mallory"] = "m"
    fake.set_mode("search-everything")
    assert list(kc) == ["alice"]


@pytest.mark.parametrize("mode", ["loose-match", "search-everything"])
def test_a_batch_on_a_loose_server_reads_each_account_its_own_secret(fake: Fake, kc: Keychain, mode: str) -> None:
    # One search of the service answers with every item (or every item of
    # a loosely matched value): each is checked, and another service's or
    # account's secret never stands for an asked account.
    kc["alice"] = "alice's"
    kc["bob|"] = "bob's"
    with Keychain(service="other-app", prompts="never") as other:
        other["carol"] = "other-app's carol"
    fake.set_mode(mode)
    assert kc.get_many(["alice", "bob|", "carol", "|"]) == {
        "alice": "alice's", "bob|": "bob's", "carol": None, "|": None}
    assert dict(kc) == {"alice": "alice's", "bob|": "bob's"}
    assert sorted(kc.items()) == [("alice", "alice's"), ("bob|", "bob's")]


def test_a_batch_on_a_server_naming_outside_paths_is_a_server_fault(fake: Fake, kc: Keychain) -> None:
    kc["alice"] = "a"
    fake.set_mode("bad-paths")
    with pytest.raises(KeychainError) as raised:
        kc.get_many(["alice", "bob"])
    assert "server fault" in str(raised.value) and "/org/evil" in str(raised.value)


def test_a_batch_on_a_locked_server_is_never_absent(fake: Fake, kc: Keychain) -> None:
    kc["alice"] = "a"
    fake.set_mode("locked")
    with pytest.raises(KeychainError) as raised:
        kc.get_many(["alice", "bob"])
    assert "locked" in str(raised.value)


def test_paths_outside_the_service_are_a_server_fault(fake: Fake, kc: Keychain) -> None:
    kc["alice"] = "a"
    fake.set_mode("bad-paths")
    with pytest.raises(KeychainError) as raised:
        kc.value("someone else")
    assert "server fault" in str(raised.value) and "/org/evil" in str(raised.value)


def test_replies_of_the_wrong_type_are_a_server_fault(fake: Fake, kc: Keychain) -> None:
    kc["alice"] = "a"
    with Keychain(service="app", prompts="never") as fresh:  # nothing cached
        fake.set_mode("wrong-types", "SearchItems")
        with pytest.raises(KeychainError) as raised:
            fresh.value("alice")
    assert "server fault" in str(raised.value)


def test_a_search_for_one_key_answered_with_too_many_items_fails_clearly(fake: Fake, kc: Keychain) -> None:
    for index in range(300):
        kc[f"user{index}"] = "v"
    fake.set_mode("search-everything")
    with Keychain(service="app", prompts="never") as fresh:
        started = time.monotonic()
        with pytest.raises(KeychainError) as raised:
            fresh.value("user7")
        assert time.monotonic() - started < 2.0  # not 300 reads
    assert "more than the 256" in str(raised.value) and "server fault" in str(raised.value)
    with Keychain(service="app", prompts="never") as lister:
        assert len(lister.accounts()) == 300  # a listing has no cap, and verifies every item


# -- 2. signals from anyone but the service's owner are dropped ----------------

class Recorder:
    def __init__(self) -> None:
        self.events: List[ChangeEvent] = []
        self.arrived = threading.Condition()

    def __call__(self, event: ChangeEvent) -> None:
        with self.arrived:
            self.events.append(event)
            self.arrived.notify_all()

    def wait_for(self, count: int, within: float = 5) -> List[ChangeEvent]:
        with self.arrived:
            self.arrived.wait_for(lambda: len(self.events) >= count, timeout=within)
            return list(self.events)


def test_forged_signals_tell_observers_nothing(fake: Fake, kc: Keychain) -> None:
    kc["alice"] = "a"
    path = fake.path_of(username="alice")
    heard = Recorder()
    kc.observe("alice", heard)
    time.sleep(0.3)  # the watcher has connected and searched
    for member in ("ItemDeleted", "ItemChanged", "ItemCreated"):
        fake.forge(COLLECTION, COLLECTION_INTERFACE, member, path)
    fake.forge("/org/freedesktop/secrets", SERVICE_INTERFACE, "CollectionDeleted", COLLECTION)
    # KeychainKit's own announcement, of an item not changed for 10 s and more.
    fake.set_modified(path, int(time.time()) - 60)
    fake.forge("/io/github/keychainkit", CHANGES_INTERFACE, "SecretChanged", path)
    # Announcements of what is no observed item, and a flood of them about
    # two that are: no event, and no overflow into "everything".
    fake.forge("/io/github/keychainkit", CHANGES_INTERFACE, "SecretChanged", "/org/freedesktop/secrets")
    fake.forge("/io/github/keychainkit", CHANGES_INTERFACE, "SecretChanged", COLLECTION)
    kc["carol"] = "c"
    carol = fake.path_of(username="carol")
    other = Recorder()
    kc.observe("carol", other)
    time.sleep(0.3)
    fake.set_modified(carol, int(time.time()) - 60)
    fake.forge_many("/io/github/keychainkit", CHANGES_INTERFACE, "SecretChanged", [alice_or_carol
                    for _ in range(1500) for alice_or_carol in (path, carol)])
    assert heard.wait_for(1, within=1.5) == [] and other.wait_for(1, within=0.1) == []
    # The real thing is still heard.
    fake.emit("ItemDeleted", path)
    assert [event.kind for event in heard.wait_for(1)] == ["deleted"]


@pytest.mark.parametrize("mode", ["loose-match", "search-everything"])
def test_a_loose_server_never_makes_another_keys_change_an_observed_keys(fake: Fake, kc: Keychain, mode: str) -> None:
    kc["alice"] = "a"
    alice = fake.path_of(username="alice")
    fake.set_mode(mode)
    heard = Recorder()
    kc.observe("bob|", heard)
    time.sleep(0.3)  # the watcher has connected and searched for bob|
    fake.emit("ItemChanged", alice)
    fake.emit("ItemDeleted", alice)
    assert heard.wait_for(1, within=1.0) == []


def test_a_forged_item_created_cannot_fail_later_calls(fake: Fake, kc: Keychain) -> None:
    kc["alice"] = "a"
    assert kc["alice"] == "a"  # cached
    fake.forge(COLLECTION, COLLECTION_INTERFACE, "ItemCreated", "/org/freedesktop/secrets")
    assert kc["alice"] == "a"
    # Even the service's own ItemCreated of a path that names no item only
    # makes the handle search again.
    fake.emit("ItemCreated", "/org/freedesktop/secrets")
    assert kc["alice"] == "a"
    fake.emit("ItemCreated", "/org/freedesktop/secrets/collection/login/404")
    assert kc["alice"] == "a"


# -- 3. bounded work ----------------------------------------------------------

def duplicates(count: int) -> None:
    """`count` items of the key (app, dup), each with an attribute more, as
    other tools leave them (our own writes would collapse them)."""
    for index in range(count):
        subprocess.run(["secret-tool", "store", "--label=dup", "service", "app", "username", "dup", "n", str(index)],
                       input=b"v", check=True, timeout=10)


def test_one_operation_has_one_deadline(fake: Fake) -> None:
    duplicates(12)
    # The items' attributes (12 Gets), then, as the key has several, their
    # times (12 GetAlls): each batch is sent at once and answered in 0.3 s,
    # within the 0.5 s a call may take, but the two exceed the operation's.
    fake.set_mode("slow", "Get:300")
    fake.set_mode("slow", "GetAll:300")
    with Keychain(service="app", prompts="never", timeout=0.5) as slow:
        started = time.monotonic()
        with pytest.raises(ServiceUnavailable) as raised:
            slow.value("dup")
        elapsed = time.monotonic() - started
    # One deadline (0.5 s) for the search and every read: not 24 × 0.3 s.
    assert elapsed < 2.0, elapsed
    assert "deadline" in str(raised.value) and "did not answer in time" in str(raised.value)


def test_a_batch_on_a_slow_server_has_one_deadline(fake: Fake) -> None:
    with Keychain(service="app", prompts="never") as writer:
        writer["alice"] = "a"
        writer["bob"] = "b"
    fake.set_mode("slow", "GetSecrets:2000")
    with Keychain(service="app", prompts="never", timeout=0.5) as slow:
        started = time.monotonic()
        with pytest.raises(ServiceUnavailable) as raised:
            slow.get_many(["alice", "bob"])
        elapsed = time.monotonic() - started
    assert elapsed < 2.0, elapsed  # bounded by the operation, not the slow call
    assert "GetSecrets" in str(raised.value) and "did not answer in time" in str(raised.value)


@pytest.mark.parametrize("call, named", [("SearchItems", "SearchItems"), ("Get(Collections)", "Get"),
                                         ("Get(Locked)", "Get")])
def test_a_call_without_reply_names_the_call_and_the_time(fake: Fake, call: str, named: str) -> None:
    """A call the server never answers makes the read unavailable, naming
    the call and the time, within the operation's time; never absent,
    never a hang. The gets of the collections and their locks too: a read
    must know the locks before its first search (KeePassXC answers a search
    of a locked database only after its unlock dialog), so it asks for them
    along with its first calls."""
    with Keychain(service="app", prompts="never") as writer:
        writer["alice"] = "a"
    fake.set_mode("no-reply", call)
    with Keychain(service="app", prompts="never", timeout=0.3) as kc:
        started = time.monotonic()
        with pytest.raises(ServiceUnavailable) as raised:
            kc.value("alice")
        assert time.monotonic() - started < 2.0
    message = str(raised.value)
    assert named in message and "300 ms" in message and "did not answer in time" in message


def resident_kib() -> int:
    with open("/proc/self/status") as status:
        return next(int(line.split()[1]) for line in status if line.startswith("VmRSS:"))


def test_a_signal_flood_during_a_call_costs_no_memory(fake: Fake, kc: Keychain) -> None:
    kc["alice"] = "a"
    before = resident_kib()
    fake.set_mode("flood-on-call", "1024:131072")  # 128 MiB before each reply
    assert kc["alice"] == "a"
    fake.clear_modes()
    assert resident_kib() - before < 48 * 1024


def test_file_descriptors_in_signals_never_reach_us(fake: Fake, kc: Keychain) -> None:
    kc["alice"] = "a"
    heard = Recorder()
    kc.observe("alice", heard)
    before = len(os.listdir("/proc/self/fd"))
    fake.emit_with_fds(2000)
    assert kc["alice"] == "a"
    kc["alice"] = "b"
    assert len(os.listdir("/proc/self/fd")) - before < 10


def test_a_prompt_that_never_completes_is_bounded(fake: Fake) -> None:
    fake.set_mode("prompt-never")
    with Keychain(service="app", prompts="never", timeout=0.5) as kc:
        started = time.monotonic()
        with pytest.raises(KeychainError):
            kc["alice"] = "a"
        assert time.monotonic() - started < 3.0


# -- 9. plain transfer is never silent ----------------------------------------

def test_plain_transfer_is_visible_and_can_be_refused(fake: Fake) -> None:
    with Keychain(service="app", prompts="never") as encrypted:
        assert encrypted.transfer_encrypted
    fake.set_mode("plain-only")
    with Keychain(service="app", prompts="never") as plain:
        plain["alice"] = "a"
        assert plain["alice"] == "a"
        assert not plain.transfer_encrypted
        assert plain.value("nobody") is None
        assert "unencrypted" in detail()
    with Keychain(service="app", prompts="never", require_encryption=True) as strict:
        with pytest.raises(keychainkit.AccessDenied) as raised:
            strict.value("alice")
        assert "plain" in str(raised.value) and "requires encryption" in str(raised.value)


# -- 5. the git helper ----------------------------------------------------------

def git(operation: str, request: str) -> subprocess.CompletedProcess:
    return subprocess.run([str(GIT_HELPER), "--prompt", "never", operation], input=request.encode(),
                          capture_output=True, timeout=20)


def test_git_get_never_answers_for_another_host_or_user(fake: Fake) -> None:
    assert git("store", "protocol=https\nhost=a.example\nusername=alice\npassword=alice-pw\n").returncode == 0
    fake.set_mode("search-everything")
    other_host = git("get", "protocol=https\nhost=b.example\n")
    assert other_host.returncode == 0 and b"alice-pw" not in other_host.stdout
    fake.clear_modes()
    fake.set_mode("loose-match")
    other_user = git("get", "protocol=https\nhost=a.example\nusername=bob|\n")
    assert other_user.returncode == 0 and b"alice-pw" not in other_user.stdout
    fake.clear_modes()
    fake.set_mode("search-everything")
    assert git("erase", "protocol=https\nhost=b.example\n").returncode == 0
    assert accounts(fake) == [""]  # alice's item (attribute "user", not "username") stays
    assert b"password=alice-pw" in git("get", "protocol=https\nhost=a.example\n").stdout


def test_git_get_never_writes_a_line_an_item_planted(fake: Fake) -> None:
    planted = subprocess.run(
        ["secret-tool", "store", "--label=planted", "xdg:schema", "org.gnome.keyring.NetworkPassword",
         "user", "alice\nhost=evil.example\npath=x", "protocol", "https", "server", "a.example"],
        input=b"pw", timeout=10)
    assert planted.returncode == 0
    got = git("get", "protocol=https\nhost=a.example\n")
    assert got.returncode == 0
    assert b"evil.example" not in got.stdout and got.stdout == b""
    assert b"newline or NUL" in got.stderr


def test_git_input_with_crlf_and_oversized_input(fake: Fake) -> None:
    stored = git("store", "protocol=https\r\nhost=a.example\r\nusername=alice\r\npassword=pw\r\n\r\n")
    assert stored.returncode == 0
    got = git("get", "protocol=https\nhost=a.example\n")
    assert got.stdout == b"username=alice\npassword=pw\n"
    huge = git("get", "protocol=https\nhost=a.example\npath=" + "x" * (5 << 20) + "\n")
    assert huge.returncode == 2 and b"longer than 4 MiB" in huge.stderr


# -- 10. a service that dies is named as such ----------------------------------

def test_a_service_that_dies_during_a_call_is_reported_as_gone(fake: Fake) -> None:
    # A fake of its own (a private bus), stuck in SearchItems, then killed.
    script = f"""
        start=$(date +%s%N)
        "{CLI}" --timeout 5000 get --service app x 2>"$work/err" & client=$!
        sleep 0.5
        pid=$(gdbus call --session --dest org.freedesktop.DBus --object-path /org/freedesktop/DBus \\
              --method org.freedesktop.DBus.GetConnectionUnixProcessID org.freedesktop.secrets |
              sed -n 's/.*uint32 \\([0-9]*\\).*/\\1/p')
        kill -9 "$pid"
        wait $client; status=$?
        echo "status=$status ms=$((($(date +%s%N) - start) / 1000000))"
        cat "$work/err"
    """
    work = os.environ.get("TMPDIR", "/tmp")
    result = subprocess.run([str(ROOT / "scripts" / "with-fake-secret-service.sh"), "--mode", "no-reply=SearchItems",
                             "sh", "-c", script], capture_output=True, text=True, timeout=60,
                            env=dict(os.environ, work=work))
    first, *rest = result.stdout.splitlines()
    assert first.startswith("status=4 "), result.stdout + result.stderr
    assert int(first.split("ms=")[1]) < 4000  # not the 5 s timeout: the bus said it left
    assert "left the bus without answering" in "\n".join(rest), result.stdout
