# SPDX-License-Identifier: MIT
"""keychainkitd's own promises, spoken to over the bus (jeepney): who owns
the name, how it ends, what survives a SIGKILL, what one client may make it
hold, whose session is whose, the signals of every change, and the
password."""
import contextlib
import os
import resource
import signal
import subprocess
import threading
import time
from pathlib import Path

import pytest
from conftest import (KEYCHAINKIT, KEYCHAINKITD, LOGIN, NAME, PASSWORD, SERVICE, Daemon, DBusError, call,
                      properties, subscribe)
from jeepney import DBusAddress, message_bus, new_method_call

COLLECTION = DBusAddress(LOGIN, bus_name=NAME, interface="org.freedesktop.Secret.Collection")
UNLOCK = "org.gnome.keyring.InternalUnsupportedGuiltRiddenInterface"


def plain_session(connection):
    return call(connection, SERVICE, "OpenSession", "sv", ("plain", ("s", "")))[1]


def create(connection, session, attributes, value, label="item", replace=True, content_type="text/plain"):
    props = {"org.freedesktop.Secret.Item.Label": ("s", label),
             "org.freedesktop.Secret.Item.Attributes": ("a{ss}", attributes)}
    return call(connection, COLLECTION, "CreateItem", "a{sv}(oayays)b",
                (props, (session, b"", value, content_type), replace))[0]


def secret(connection, session, item):
    return call(connection, DBusAddress(item, bus_name=NAME, interface="org.freedesktop.Secret.Item"),
                "GetSecret", "o", (session,))[0]


def search(connection, attributes):
    return call(connection, SERVICE, "SearchItems", "a{ss}", (attributes,))


def locked_kib(pid):
    """VmLck of process `pid`: how much of its memory is locked, in KiB."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmLck:"):
            return int(line.split()[1])
    raise AssertionError("no VmLck in /proc/PID/status")


def may_lock_everything():
    """Whether this process could lock all it maps (so the daemon it starts
    can): CAP_IPC_LOCK, or an RLIMIT_MEMLOCK hard limit of 1 GiB or more."""
    effective = next(line for line in Path("/proc/self/status").read_text().splitlines() if line.startswith("CapEff:"))
    hard = resource.getrlimit(resource.RLIMIT_MEMLOCK)[1]
    return int(effective.split()[1], 16) & (1 << 14) != 0 or hard == resource.RLIM_INFINITY or hard >= 1 << 30


# ---- memory ----------------------------------------------------------------

# What the secret memory pool locks of its own (chunks of 64 KiB, within any
# limit) when the process is not locked whole; a whole daemon is megabytes.
SECRET_POOL_KIB = 1024


def test_memory_is_locked_where_the_system_allows_it(bus):
    """With CAP_IPC_LOCK (or a large RLIMIT_MEMLOCK) every page is locked
    against swapping; under the usual 8 MiB without the capability only the
    secret memory the items' secrets are kept in is (locking what is to
    come would make allocations fail past the limit), and the journal says
    why."""
    daemon = Daemon(bus)
    try:
        assert (locked_kib(daemon.process.pid) > SECRET_POOL_KIB) == may_lock_everything()
    finally:
        assert daemon.stop() == 0
    # capsh (libcap2-bin) drops the capability, prlimit (util-linux) sets the limit.
    limited = Daemon(bus, prefix=["capsh", "--drop=cap_ipc_lock", "--", "-c",
                                  'exec prlimit --memlock=8388608:8388608 "$0" "$@"'])
    try:
        assert locked_kib(limited.process.pid) <= SECRET_POOL_KIB
        assert b"memory not locked against swapping: RLIMIT_MEMLOCK is 8192 KiB" in limited.read_stderr()
        with bus.connect() as connection:  # and it serves
            assert search(connection, {"service": "none"}) == ([], [])
    finally:
        assert limited.stop() == 0


# ---- its directory -----------------------------------------------------------

def test_a_directory_that_is_not_utf8_is_refused_not_changed(bus, tmp_path):
    """Decoding such bytes would name another directory (U+FFFD)."""
    odd = os.fsencode(tmp_path) + b"/keyrings\xff"
    given = subprocess.run([os.fsencode(KEYCHAINKITD), b"--data-dir", odd], env=bus.env, capture_output=True, timeout=30)
    assert given.returncode == 2 and b"argument 2 is not valid UTF-8" in given.stderr
    env = {**bus.env, "XDG_DATA_HOME": odd}
    default = subprocess.run([KEYCHAINKITD], env=env, capture_output=True, timeout=30)
    assert default.returncode == 2 and b"XDG_DATA_HOME is not valid UTF-8: give --data-dir" in default.stderr
    assert not [path for path in tmp_path.rglob("*") if "\ufffd" in path.name]  # nothing of a repaired name


# ---- the name --------------------------------------------------------------

def test_a_second_daemon_refuses_the_name_and_replace_takes_it(daemon):
    second = subprocess.run([KEYCHAINKITD], env=daemon.bus.env, capture_output=True, timeout=30)
    assert second.returncode == 1
    assert b"another service owns org.freedesktop.secrets" in second.stderr and b"--replace" in second.stderr
    replacing = Daemon(daemon.bus, args=["--replace"])
    assert daemon.process.wait(timeout=10) == 0  # the first lost the name and ended
    assert replacing.stop() == 0


def test_sigterm_ends_it_with_every_write_on_disk(bus):
    first = Daemon(bus)
    with bus.connect() as connection:
        session = plain_session(connection)
        for n in range(20):
            create(connection, session, {"service": "term", "username": str(n)}, b"v%d" % n)
    assert first.stop(signal.SIGTERM) == 0
    again = Daemon(bus)
    with bus.connect() as connection:
        session = plain_session(connection)
        unlocked, locked = search(connection, {"service": "term"})
        assert len(unlocked) == 20 and locked == []
        assert sorted(secret(connection, session, item)[2] for item in unlocked) == sorted(b"v%d" % n for n in range(20))
    again.stop()


def test_sigkill_during_writes_loses_no_acknowledged_write(bus):
    """Four clients write as fast as they can; the daemon is SIGKILLed
    under them; started again with the same password, every write whose
    reply came is there, and the file is whole."""
    first = Daemon(bus)
    acknowledged = {writer: -1 for writer in range(4)}
    stop = threading.Event()

    def writer(number):
        with bus.connect() as connection:
            session = plain_session(connection)
            for step in range(100_000):
                if stop.is_set():
                    return
                try:
                    create(connection, session, {"service": "kill", "username": str(number)}, b"%d" % step)
                except Exception:
                    return
                acknowledged[number] = step

    threads = [threading.Thread(target=writer, args=(n,)) for n in range(4)]
    for thread in threads:
        thread.start()
    time.sleep(1.5)
    first.process.kill()
    first.process.wait(timeout=10)
    stop.set()
    for thread in threads:
        thread.join(timeout=30)
    assert all(step >= 0 for step in acknowledged.values()), acknowledged
    again = Daemon(bus)
    with bus.connect() as connection:
        session = plain_session(connection)
        for number, step in acknowledged.items():
            unlocked, _ = search(connection, {"service": "kill", "username": str(number)})
            assert len(unlocked) == 1  # replaced in place: one item per writer
            # The last acknowledged write, or the one in flight at the kill.
            assert int(secret(connection, session, unlocked[0])[2]) in (step, step + 1)
    again.stop()


def test_no_session_bus_is_a_clear_error_at_once(tmp_path):
    env = {key: value for key, value in os.environ.items() if key not in ("DBUS_SESSION_BUS_ADDRESS", "XDG_RUNTIME_DIR")}
    env.update(HOME=str(tmp_path), XDG_DATA_HOME=str(tmp_path / "data"))
    started = time.monotonic()
    done = subprocess.run([KEYCHAINKITD], env=env, capture_output=True, timeout=30)
    assert done.returncode == 3 and b"no session bus" in done.stderr
    assert time.monotonic() - started < 5


# ---- sessions and limits ----------------------------------------------------

def test_a_session_serves_only_the_connection_that_opened_it(daemon):
    with daemon.bus.connect() as owner, daemon.bus.connect() as other:
        session = plain_session(owner)
        item = create(owner, session, {"service": "mine"}, b"secret")
        with pytest.raises(DBusError) as refused:
            secret(other, session, item)
        assert refused.value.name == "org.freedesktop.Secret.Error.NoSession"
        with pytest.raises(DBusError):
            call(other, SERVICE, "GetSecrets", "aoo", ([item], session))
        assert secret(owner, session, item)[2] == b"secret"


def test_a_forged_client_left_signal_ends_no_session(daemon):
    """NameOwnerChanged and NameLost are believed from the bus daemon only:
    another peer that sends them straight to the daemon ends no client's
    session and not the daemon (a forged NameOwnerChanged ended the
    victim's session before the sender was checked)."""
    from jeepney import new_signal
    from jeepney.low_level import HeaderFields
    with daemon.bus.connect() as victim, daemon.bus.connect() as forger:
        session = plain_session(victim)
        item = create(victim, session, {"service": "forged"}, b"kept")
        owner = call(forger, DBusAddress("/org/freedesktop/DBus", bus_name="org.freedesktop.DBus",
                                         interface="org.freedesktop.DBus"), "GetNameOwner", "s", (NAME,))[0]
        forged = new_signal(DBusAddress("/org/freedesktop/DBus", interface="org.freedesktop.DBus"),
                            "NameOwnerChanged", "sss", (victim.unique_name, victim.unique_name, ""))
        forged.header.fields[HeaderFields.destination] = owner  # the daemon itself
        forger.send(forged)
        # Nor does a forged NameLost of its own name end the daemon.
        lost = new_signal(DBusAddress("/org/freedesktop/DBus", interface="org.freedesktop.DBus"), "NameLost", "s", (NAME,))
        lost.header.fields[HeaderFields.destination] = owner
        forger.send(lost)
        call(forger, SERVICE, "ReadAlias", "s", ("default",))  # the forgeries were handled before this
        assert secret(victim, session, item)[2] == b"kept"
        assert daemon.process.poll() is None


def test_sessions_end_when_their_client_leaves_and_are_capped_per_client(daemon):
    with daemon.bus.connect() as connection:
        for _ in range(64):
            plain_session(connection)
        with pytest.raises(DBusError) as refused:
            plain_session(connection)
        assert refused.value.name == "org.freedesktop.DBus.Error.LimitsExceeded"
    # That client left: its sessions are gone, another client opens its own.
    with daemon.bus.connect() as connection:
        for _ in range(64):
            plain_session(connection)


def send_at_once(connection, messages, first_serial=1000):
    """Writes `messages` in one go without waiting for answers, as a client
    flooding the daemon does, and waits until the bus daemon has passed
    them on (a call to the bus daemon after them has its answer); returns
    their serials."""
    serials = range(first_serial, first_serial + len(messages))
    connection.sock.sendall(b"".join(message.serialise(serial=serial) for message, serial in zip(messages, serials)))
    connection.send_and_get_reply(new_method_call(message_bus, "GetId"), timeout=60)
    return set(serials)


def answers(connection, serials):
    """The answers to the calls of `serials`: (their serials as the daemon
    numbered them, the error names among them)."""
    numbered, errors = [], []
    while len(numbered) < len(serials):
        message = connection.receive(timeout=120)
        if message.header.fields.get(5) in serials:  # 5: REPLY_SERIAL
            numbered.append(message.header.serial)
            if message.header.message_type.name == "error":
                errors.append(message.header.fields.get(4))  # 4: ERROR_NAME
    return numbered, errors


@contextlib.contextmanager
def paused(daemon):
    """The daemon stopped (SIGSTOP) while the calls sent meanwhile wait at
    the bus daemon in the order they came, then continued: it finds them
    all at once, as a busy daemon would."""
    daemon.process.send_signal(signal.SIGSTOP)
    try:
        yield
    finally:
        daemon.process.send_signal(signal.SIGCONT)


def fill(connection, count):
    """`count` items of service=flood in the session collection (in memory:
    quick to fill), which the flood's searches each find."""
    session = plain_session(connection)
    in_memory = DBusAddress("/org/freedesktop/secrets/aliases/session", bus_name=NAME,
                            interface="org.freedesktop.Secret.Collection")
    for n in range(count):
        props = {"org.freedesktop.Secret.Item.Label": ("s", "flood"),
                 "org.freedesktop.Secret.Item.Attributes": ("a{ss}", {"service": "flood", "n": str(n)})}
        call(connection, in_memory, "CreateItem", "a{sv}(oayays)b", (props, (session, b"", b"v", "text/plain"), False))


FLOOD_SEARCH = new_method_call(SERVICE, "SearchItems", "a{ss}", ({"service": "flood"},))


def test_a_flooding_client_does_not_hold_up_another(daemon):
    """One client's 4,000 searches sent at once, then another client's
    call: the other is answered in its turn, ahead of most of the backlog.
    (Answered in the order they came, it came after every one.)"""
    with daemon.bus.connect() as flooder, daemon.bus.connect() as other:
        fill(flooder, 200)
        with paused(daemon):
            sent = send_at_once(flooder, [FLOOD_SEARCH] * 4000)
            (serial,) = send_at_once(other, [new_method_call(SERVICE, "ReadAlias", "s", ("default",))])
        reply = other.receive(timeout=60)
        assert reply.header.fields.get(5) == serial and reply.body == (LOGIN,)
        numbered, errors = answers(flooder, sent)
        assert errors == []
        later = sum(1 for number in numbered if number > reply.header.serial)
        assert later > 3000, f"only {later} of the flood's 4,000 answers came after the other client's"


def test_calls_past_a_clients_share_are_refused_at_once_and_it_is_served_after(daemon):
    """More calls at once than the daemon holds for one client (4,096
    waiting): the excess is answered LimitsExceeded at once, not held, and
    every call gets an answer. (The bus daemon passes calls on faster than
    searches that each find 300 items are answered, so the backlog grows.)"""
    with daemon.bus.connect() as flooder:
        fill(flooder, 300)
        with paused(daemon):
            sent = send_at_once(flooder, [FLOOD_SEARCH] * 12_000)
        numbered, errors = answers(flooder, sent)
        assert len(numbered) == len(sent)
        assert errors and set(errors) == {"org.freedesktop.DBus.Error.LimitsExceeded"}, len(errors)
        assert len(search(flooder, {"service": "flood"})[0]) == 300


def test_the_calls_a_client_left_waiting_open_no_session(daemon):
    """Clients that send 64 OpenSession at once and leave before the busy
    daemon reads them: what is still waiting when it hears one left is
    dropped, not done for nobody (sessions nobody would end), so 100 of them
    (6,400 calls, more than the 4,096 sessions the daemon holds) leave room
    for the next client's sessions."""
    opening = new_method_call(SERVICE, "OpenSession", "sv", ("plain", ("s", "")))
    with paused(daemon):
        for _ in range(100):
            with daemon.bus.connect() as leaving:
                send_at_once(leaving, [opening] * 64)
    with daemon.bus.connect() as connection:
        for _ in range(64):
            plain_session(connection)


def test_what_one_item_may_hold_is_bounded(daemon):
    with daemon.bus.connect() as connection:
        session = plain_session(connection)
        too_many = {f"a{n}": "v" for n in range(65)}
        for attributes, value, label in [
            (too_many, b"v", "x"),
            ({"service": "x" * 4097}, b"v", "x"),
            ({"service": "big"}, b"v", "x" * 4097),
            ({"service": "big"}, b"v" * (16 * 1024 * 1024 + 1), "x"),
        ]:
            with pytest.raises(DBusError) as refused:
                create(connection, session, attributes, value, label=label)
            assert refused.value.name == "org.freedesktop.DBus.Error.LimitsExceeded"
        assert search(connection, {"service": "big"}) == ([], [])
        # At the limits, accepted.
        create(connection, session, {f"a{n}": "v" for n in range(64)}, b"v" * (1024 * 1024), label="x" * 4096)


def test_calls_of_the_wrong_shape_are_refused_and_the_daemon_lives(daemon):
    with daemon.bus.connect() as connection:
        with pytest.raises(DBusError) as refused:
            call(connection, SERVICE, "SearchItems", "s", ("not a dictionary",))
        assert refused.value.name == "org.freedesktop.DBus.Error.InvalidArgs"
        with pytest.raises(DBusError) as refused:
            call(connection, SERVICE, "OpenSession", "sv", ("rot13", ("s", "")))
        assert refused.value.name == "org.freedesktop.DBus.Error.NotSupported"
        with pytest.raises(DBusError) as refused:
            call(connection, SERVICE, "OpenSession", "sv", ("dh-ietf1024-sha256-aes128-cbc-pkcs7", ("ay", b"\x01")))
        assert refused.value.name == "org.freedesktop.DBus.Error.InvalidArgs"
        with pytest.raises(DBusError) as refused:
            call(connection, DBusAddress(LOGIN + "/999", bus_name=NAME, interface="org.freedesktop.Secret.Item"),
                 "Delete")
        assert refused.value.name == "org.freedesktop.Secret.Error.NoSuchObject"
        assert call(connection, SERVICE, "ReadAlias", "s", ("default",)) == (LOGIN,)


def test_a_hostile_client_neither_crashes_nor_stops_it(daemon):
    """Every member of every interface on every kind of path, with
    arguments of every shape the protocol uses, filled at random (long
    strings, odd paths, empty and huge byte arrays): each gets an answer,
    and the daemon serves a well-behaved client afterwards."""
    import random
    rng = random.Random(35)
    members = {
        "org.freedesktop.Secret.Service": ["OpenSession", "CreateCollection", "SearchItems", "Unlock", "Lock",
                                           "GetSecrets", "ReadAlias", "SetAlias"],
        "org.freedesktop.Secret.Collection": ["Delete", "SearchItems", "CreateItem"],
        "org.freedesktop.Secret.Item": ["Delete", "GetSecret", "SetSecret"],
        "org.freedesktop.Secret.Session": ["Close"],
        "org.freedesktop.Secret.Prompt": ["Prompt", "Dismiss"],
        "org.freedesktop.DBus.Properties": ["Get", "GetAll", "Set"],
        UNLOCK: ["UnlockWithMasterPassword", "CreateWithMasterPassword", "ChangeWithMasterPassword"],
    }
    paths = ["/org/freedesktop/secrets", LOGIN, LOGIN + "/1", LOGIN + "/4294967295", LOGIN + "/x",
             "/org/freedesktop/secrets/aliases/default", "/org/freedesktop/secrets/aliases/nothing",
             "/org/freedesktop/secrets/collection/session", "/org/freedesktop/secrets/session/1",
             "/org/freedesktop/secrets/prompt/1", "/org/freedesktop/secrets/collection", "/org/freedesktop/secrets/a/b/c"]

    def text():
        return rng.choice(["", "login", "default", "plain", "dh-ietf1024-sha256-aes128-cbc-pkcs7", "x" * 5000,
                           "\u00e9\u4e2d", "org.freedesktop.Secret.Item.Label", "org.freedesktop.Secret.Item"])

    def path():
        return rng.choice(paths + ["/", "/org/freedesktop/secrets/session/99"])

    def value(kind):
        return {"s": text, "o": path, "b": lambda: rng.random() < 0.5,
                "ay": lambda: bytes(rng.getrandbits(8) for _ in range(rng.choice([0, 1, 16, 128, 129]))),
                "ao": lambda: [path() for _ in range(rng.randint(0, 5))],
                "a{ss}": lambda: {text(): text() for _ in range(rng.randint(0, 4))},
                "a{sv}": lambda: {rng.choice(["org.freedesktop.Secret.Item.Label", "org.freedesktop.Secret.Item.Attributes",
                                              "org.freedesktop.Secret.Collection.Label", text()]):
                                  rng.choice([("s", text()), ("a{ss}", {text(): text()}), ("u", 7)])
                                  for _ in range(rng.randint(0, 3))},
                "v": lambda: rng.choice([("s", text()), ("ay", bytes(rng.getrandbits(8) for _ in range(128))),
                                         ("a{ss}", {text(): text()}), ("b", True)]),
                "(oayays)": lambda: (path(), value("ay"), value("ay"), text())}[kind]()

    shapes = [[], ["s"], ["o"], ["ao"], ["a{ss}"], ["s", "v"], ["a{sv}", "s"], ["a{sv}", "(oayays)", "b"],
              ["(oayays)"], ["s", "s", "v"], ["s", "s"], ["ao", "o"], ["s", "o"], ["o", "(oayays)"],
              ["a{sv}", "(oayays)"], ["o", "(oayays)", "(oayays)"]]
    with daemon.bus.connect() as connection:
        for _ in range(3000):
            interface = rng.choice(list(members))
            shape = rng.choice(shapes)
            address = DBusAddress(rng.choice(paths), bus_name=NAME, interface=interface)
            message = new_method_call(address, rng.choice(members[interface]), "".join(shape),
                                      tuple(value(kind) for kind in shape))
            reply = connection.send_and_get_reply(message, timeout=10)  # an answer, error or not
            assert reply.header.message_type.name in ("method_return", "error")
    assert daemon.process.poll() is None
    with daemon.bus.connect() as connection:
        session = plain_session(connection)
        item = create(connection, session, {"service": "after"}, b"fine")
        assert secret(connection, session, item)[2] == b"fine"


def test_the_session_collection_and_collections_are_bounded(daemon):
    session_collection = DBusAddress("/org/freedesktop/secrets/collection/session", bus_name=NAME,
                                     interface="org.freedesktop.Secret.Collection")
    with daemon.bus.connect() as connection:
        session = plain_session(connection)
        props = {"org.freedesktop.Secret.Item.Label": ("s", "big")}
        big = b"x" * (16 * 1024 * 1024)
        refused = None
        for n in range(17):
            props["org.freedesktop.Secret.Item.Attributes"] = ("a{ss}", {"n": str(n)})
            try:
                call(connection, session_collection, "CreateItem", "a{sv}(oayays)b", (props, (session, b"", big, "text/plain"), False))
            except DBusError as error:
                refused = error
                break
        assert refused is not None and refused.name == "org.freedesktop.DBus.Error.LimitsExceeded"
        assert n == 15  # 15 of 16 MiB and their labels: a 16th would pass 256 MiB
        made = 0
        with pytest.raises(DBusError) as limit:
            for n in range(100):
                call(connection, SERVICE, "CreateCollection", "a{sv}s",
                     ({"org.freedesktop.Secret.Collection.Label": ("s", f"c{n}")}, ""))
                made += 1
        assert limit.value.name == "org.freedesktop.DBus.Error.LimitsExceeded" and made == 64 - 2  # login, session


# ---- signals -----------------------------------------------------------------

def test_every_change_is_announced(daemon):
    with daemon.bus.connect() as watcher, daemon.bus.connect() as writer:
        subscribe(watcher, interface="org.freedesktop.Secret.Collection")
        session = plain_session(writer)
        item = create(writer, session, {"service": "sig"}, b"1")
        call(writer, DBusAddress(item, bus_name=NAME, interface="org.freedesktop.Secret.Item"),
             "SetSecret", "(oayays)", ((session, b"", b"2", "text/plain"),))
        call(writer, DBusAddress(item, bus_name=NAME, interface="org.freedesktop.Secret.Item"), "Delete")
        heard = []
        while len(heard) < 3:
            message = watcher.receive(timeout=5)
            if message.header.message_type.name == "signal":
                heard.append((message.header.fields[3], message.body[0]))
        assert heard == [("ItemCreated", item), ("ItemChanged", item), ("ItemDeleted", item)]


def test_another_programs_write_to_the_file_is_announced_unasked(daemon):
    env = {key: value for key, value in daemon.bus.env.items() if key != "DBUS_SESSION_BUS_ADDRESS"}
    env.update(SECRET_BACKEND="file", SECRET_FILE_TEST_PATH=str(daemon.bus.data / "login.keyring"),
               SECRET_FILE_TEST_PASSWORD=PASSWORD.decode())
    with daemon.bus.connect() as watcher:
        subscribe(watcher, interface="org.freedesktop.Secret.Collection")
        written = subprocess.run(["secret-tool", "store", "--label=theirs", "service", "outside", "username", "x"],
                                 env=env, input=b"v", capture_output=True, timeout=30)
        assert written.returncode == 0, written.stderr
        message = watcher.receive(timeout=10)  # no call made: inotify woke the daemon
        assert (message.header.fields[3], message.body[0].startswith(LOGIN + "/")) == ("ItemCreated", True)


# ---- the password ------------------------------------------------------------

def test_a_locked_start_unlocks_with_the_password_only(bus):
    first = Daemon(bus)
    with bus.connect() as connection:
        create(connection, plain_session(connection), {"service": "pw"}, b"kept")
    first.stop()
    Daemon(bus, password=None)
    env = bus.env
    wrong = subprocess.run([KEYCHAINKIT, "unlock", "--password-fd", "0"], env=env, input=b"wrong",
                           capture_output=True, timeout=30)
    assert wrong.returncode == 9, wrong.stderr  # KK_EWRONGKEY's exit status
    with bus.connect() as connection:
        assert properties(connection, LOGIN, "org.freedesktop.Secret.Collection")["Locked"] is True
        unlocked, locked = search(connection, {"service": "pw"})
        assert unlocked == [] and len(locked) == 1  # listed locked, never absent
    right = subprocess.run([KEYCHAINKIT, "unlock", "--password-fd", "0"], env=env, input=PASSWORD,
                           capture_output=True, timeout=30)
    assert right.returncode == 0, right.stderr
    with bus.connect() as connection:
        unlocked, _ = search(connection, {"service": "pw"})
        assert secret(connection, plain_session(connection), unlocked[0])[2] == b"kept"
    locked = subprocess.run([KEYCHAINKIT, "lock"], env=env, capture_output=True, timeout=30)
    assert locked.returncode == 0, locked.stderr
    with bus.connect() as connection:
        assert properties(connection, LOGIN, "org.freedesktop.Secret.Collection")["Locked"] is True


def test_a_wrong_password_at_start_is_refused(bus):
    first = Daemon(bus)
    with bus.connect() as connection:
        create(connection, plain_session(connection), {"service": "pw"}, b"kept")
    first.stop()
    read, write = os.pipe()
    os.write(write, b"not it")
    os.close(write)
    started = subprocess.run([KEYCHAINKITD, "--master-fd", str(read)], env=bus.env, pass_fds=(read,),
                             capture_output=True, timeout=30)
    os.close(read)
    assert started.returncode == 4 and b"opens none" in started.stderr


def test_the_password_changes_and_only_the_new_one_opens_the_file(bus):
    first = Daemon(bus)
    with bus.connect() as connection:
        session = plain_session(connection)
        create(connection, session, {"service": "rekey"}, b"kept")
        address = DBusAddress("/org/freedesktop/secrets", bus_name=NAME, interface=UNLOCK)
        with pytest.raises(DBusError) as refused:
            call(connection, address, "ChangeWithMasterPassword", "o(oayays)(oayays)",
                 (LOGIN, (session, b"", b"not it", "text/plain"), (session, b"", b"new password", "text/plain")))
        assert refused.value.name == "org.gnome.keyring.Error.Denied"
        call(connection, address, "ChangeWithMasterPassword", "o(oayays)(oayays)",
             (LOGIN, (session, b"", PASSWORD, "text/plain"), (session, b"", b"new password", "text/plain")))
        # Still served, and what is written now is sealed with the new one.
        create(connection, session, {"service": "rekey", "n": "2"}, b"after")
    assert first.stop() == 0
    read, write = os.pipe()
    os.write(write, PASSWORD)
    os.close(write)
    old = subprocess.run([KEYCHAINKITD, "--master-fd", str(read)], env=bus.env, pass_fds=(read,),
                         capture_output=True, timeout=30)
    os.close(read)
    assert old.returncode == 4
    Daemon(bus, password=b"new password")
    with bus.connect() as connection:
        session = plain_session(connection)
        unlocked, _ = search(connection, {"service": "rekey"})
        assert sorted(secret(connection, session, item)[2] for item in unlocked) == [b"after", b"kept"]
    env = {key: value for key, value in bus.env.items() if key != "DBUS_SESSION_BUS_ADDRESS"}
    env.update(SECRET_BACKEND="file", SECRET_FILE_TEST_PATH=str(bus.data / "login.keyring"),
               SECRET_FILE_TEST_PASSWORD="new password")
    found = subprocess.run(["secret-tool", "search", "--all", "service", "rekey"], env=env, capture_output=True, timeout=30)
    assert b"secret = kept" in found.stdout and b"secret = after" in found.stdout


def test_a_collection_of_another_password_starts_locked_beside_login(bus):
    first = Daemon(bus)
    with bus.connect() as connection:
        session = plain_session(connection)
        address = DBusAddress("/org/freedesktop/secrets", bus_name=NAME, interface=UNLOCK)
        work = call(connection, address, "CreateWithMasterPassword", "a{sv}(oayays)",
                    ({"org.freedesktop.Secret.Collection.Label": ("s", "Work")}, (session, b"", b"work pw", "text/plain")))[0]
        assert work == "/org/freedesktop/secrets/collection/work"
        props = {"org.freedesktop.Secret.Item.Label": ("s", "w"), "org.freedesktop.Secret.Item.Attributes": ("a{ss}", {"k": "v"})}
        call(connection, DBusAddress(work, bus_name=NAME, interface="org.freedesktop.Secret.Collection"),
             "CreateItem", "a{sv}(oayays)b", (props, (session, b"", b"w", "text/plain"), True))
    first.stop()
    Daemon(bus)  # the login password: work's file does not open with it
    with bus.connect() as connection:
        assert properties(connection, work, "org.freedesktop.Secret.Collection")["Locked"] is True
        assert properties(connection, LOGIN, "org.freedesktop.Secret.Collection")["Locked"] is False
        session = plain_session(connection)
        call(connection, DBusAddress("/org/freedesktop/secrets", bus_name=NAME, interface=UNLOCK),
             "UnlockWithMasterPassword", "o(oayays)", (work, (session, b"", b"work pw", "text/plain")))
        unlocked, _ = search(connection, {"k": "v"})
        assert [secret(connection, session, item)[2] for item in unlocked] == [b"w"]


def test_files_are_private(daemon):
    with daemon.bus.connect() as connection:
        create(connection, plain_session(connection), {"service": "mode"}, b"v")
    assert os.stat(daemon.bus.data).st_mode & 0o777 == 0o700
    assert os.stat(daemon.bus.data / "login.keyring").st_mode & 0o777 == 0o600


# ---- aliases -----------------------------------------------------------------

def test_aliases_outlive_a_restart_and_the_session_ones_do_not(bus):
    first = Daemon(bus)
    with bus.connect() as connection:
        work = call(connection, SERVICE, "CreateCollection", "a{sv}s",
                    ({"org.freedesktop.Secret.Collection.Label": ("s", "Work")}, "office"))[0]
        call(connection, SERVICE, "SetAlias", "so", ("default", work))
        call(connection, SERVICE, "SetAlias", "so", ("builds", work))
        call(connection, SERVICE, "SetAlias", "so", ("scratch", "/org/freedesktop/secrets/collection/session"))
    first.stop()
    # A collection made before its first item is a file already (it was not: it vanished at a restart).
    assert (bus.data / "work.keyring").exists()
    aliases = bus.data / "aliases"
    assert os.stat(aliases).st_mode & 0o777 == 0o600
    Daemon(bus)
    with bus.connect() as connection:
        for alias in ("default", "office", "builds"):
            assert call(connection, SERVICE, "ReadAlias", "s", (alias,)) == (work,), alias
        assert call(connection, SERVICE, "ReadAlias", "s", ("scratch",)) == ("/",)
        assert call(connection, SERVICE, "ReadAlias", "s", ("session",)) == ("/org/freedesktop/secrets/collection/session",)
        # Removed, and the collection's deletion takes its aliases with it, in the file too.
        call(connection, SERVICE, "SetAlias", "so", ("builds", "/"))
        call(connection, DBusAddress(work, bus_name=NAME, interface="org.freedesktop.Secret.Collection"), "Delete")
        assert call(connection, SERVICE, "ReadAlias", "s", ("default",)) == ("/",)
    assert b"work" not in aliases.read_bytes()


def test_an_aliases_file_others_could_change_is_not_believed(bus):
    """Written by another user, or readable and writable by others: refused,
    said so, and the built-in aliases serve; the lines it holds are not
    taken, nor lines naming what is not a collection."""
    bus.data.mkdir(parents=True, mode=0o700)
    aliases = bus.data / "aliases"
    aliases.write_bytes(b"default session\nx ../../etc\nnot a line\nother login\n")
    aliases.chmod(0o666)
    daemon = Daemon(bus)
    with bus.connect() as connection:
        assert call(connection, SERVICE, "ReadAlias", "s", ("other",)) == ("/",)
        assert call(connection, SERVICE, "ReadAlias", "s", ("default",)) == (LOGIN,)
        with pytest.raises(DBusError):  # not written over a file it will not believe
            call(connection, SERVICE, "SetAlias", "so", ("more", LOGIN))
    assert b"mode 666" in daemon.read_stderr()
    daemon.stop()
    aliases.chmod(0o600)
    Daemon(bus)
    with bus.connect() as connection:
        assert call(connection, SERVICE, "ReadAlias", "s", ("other",)) == (LOGIN,)
        assert call(connection, SERVICE, "ReadAlias", "s", ("default",)) == (LOGIN,)  # not the session collection
        assert call(connection, SERVICE, "ReadAlias", "s", ("x",)) == ("/",)
