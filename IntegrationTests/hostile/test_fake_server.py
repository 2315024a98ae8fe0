# SPDX-License-Identifier: MIT
"""Checks the hostile fake Secret Service itself (fake_secret_service.py),
mostly with the real libsecret client, secret-tool (Debian libsecret-tools).

Run it outside any harness:

    $(scripts/python-venv.sh) -m pytest IntegrationTests/hostile/test_fake_server.py -q

(`pytest IntegrationTests/hostile` also collects the tests of our client against the
fake, which run inside the harness instead.)

Every test starts its own private bus, HOME and fake through
scripts/with-fake-secret-service.sh (a subprocess per test, with the modes
the test needs) and runs a shell script in it, so no test sees another's
items or modes. The script finds this Python (with jeepney) as "$PY".
"""
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
HARNESS = ROOT / 'scripts' / 'with-fake-secret-service.sh'
CONTROL = ('dbus-send --session --print-reply --dest=org.freedesktop.secrets '
           '/io/github/keychainkit/FakeControl io.github.keychainkit.FakeControl')
CALL = 'gdbus call --session --dest org.freedesktop.secrets'
STORE_ALICE = "printf alice-pw | secret-tool store --label=alice service app username alice"

pytestmark = pytest.mark.skipif(shutil.which('secret-tool') is None,
                                reason='secret-tool (libsecret-tools) is not installed')


def run(script: str, *modes: str, timeout: float = 20, **env: str) -> subprocess.CompletedProcess:
    """Runs `script` with sh inside the harness, with the fake in `modes`
    and `env` added to the environment."""
    arguments = [str(HARNESS)]
    for mode in modes:
        arguments += ['--mode', mode]
    environment = dict(os.environ, PY=sys.executable, **env)
    environment.pop('KEYCHAINKIT_FAKE_VERBOSE', None)
    return subprocess.run(arguments + ['sh', '-c', script], capture_output=True, text=True,
                          timeout=timeout, env=environment)


def lines(result: subprocess.CompletedProcess) -> list:
    assert result.returncode == 0, result.stderr
    return result.stdout.splitlines()


def test_store_lookup_clear_round_trip():
    out = lines(run(f"""
        {STORE_ALICE} && echo stored
        secret-tool lookup service app username alice; echo
        secret-tool search service app 2>&1 | grep -E '^(label|attribute)'
        {CONTROL}.Items | grep -c 'string "alice"'
        secret-tool clear service app username alice && echo cleared
        secret-tool lookup service app username alice || echo absent
    """))
    assert out == ['stored', 'alice-pw', 'label = alice', 'attribute.service = app',
                   'attribute.username = alice', '1', 'cleared', 'absent']


def test_store_replaces_the_item_with_the_same_attributes():
    out = lines(run(f"""
        {STORE_ALICE}
        printf new-pw | secret-tool store --label=alice service app username alice
        secret-tool lookup service app username alice; echo
        {CONTROL}.Items | grep -c 'object path'
    """))
    assert out == ['new-pw', '1']


def test_loose_match_returns_another_accounts_secret():
    # keepassxreboot/keepassxc#7776: "bob|" matches every username.
    out = lines(run(f"""
        {STORE_ALICE}
        secret-tool lookup service app username bob || echo no-bob
        secret-tool lookup service app username 'bob|'; echo
        secret-tool lookup service app username '|bob'; echo
    """, 'loose-match'))
    assert out == ['no-bob', 'alice-pw', 'alice-pw']


def test_loose_match_replace_overwrites_another_account():
    out = lines(run(f"""
        {STORE_ALICE}
        printf bob-pw | secret-tool store --label=bob service app username 'bob|'
        secret-tool lookup service app username alice; echo
    """, 'loose-match'))
    assert out == ['bob-pw']


def test_mode_set_at_run_time_with_dbus_send():
    out = lines(run(f"""
        {STORE_ALICE}
        secret-tool lookup service app username 'bob|' || echo strict
        {CONTROL}.SetMode string:loose-match string: >/dev/null
        secret-tool lookup service app username 'bob|'; echo
        {CONTROL}.ClearModes >/dev/null
        secret-tool lookup service app username 'bob|' || echo strict
    """))
    assert out == ['strict', 'alice-pw', 'strict']


def test_search_everything_returns_any_item_for_any_search():
    out = lines(run(f"""
        {STORE_ALICE}
        secret-tool lookup service nothing username nobody; echo
        secret-tool search --all no such 2>&1 | grep -c '^label'
        {CALL} -o /org/freedesktop/secrets/aliases/default \
            -m org.freedesktop.Secret.Collection.SearchItems "{{'x': 'y'}}"
    """, 'search-everything'))
    assert out == ['alice-pw', '1', "([objectpath '/org/freedesktop/secrets/collection/login/1'],)"]


def test_plain_only_refuses_dh_and_secret_tool_falls_back_to_plain():
    out = lines(run(f"""
        {CALL} -o /org/freedesktop/secrets -m org.freedesktop.Secret.Service.OpenSession \
            dh-ietf1024-sha256-aes128-cbc-pkcs7 '<@ay [1]>' 2>&1 | grep -o 'Error.NotSupported'
        {STORE_ALICE}
        secret-tool lookup service app username alice; echo
    """, 'plain-only'))
    assert out == ['Error.NotSupported', 'alice-pw']


SECRETSTORAGE = r'''
import secretstorage
from secretstorage.util import open_session
conn = secretstorage.dbus_init()
print('encrypted', open_session(conn).encrypted)
item = secretstorage.get_default_collection(conn).create_item('x', {'service': 'py'}, b'py-pw')
print(item.get_secret().decode())
'''


@pytest.mark.parametrize('modes, encrypted', [((), True), (('plain-only',), False)])
def test_secretstorage_transfer_session(modes, encrypted):
    # Python SecretStorage (dhcrypto.py) must agree with the fake's DH and AES.
    out = lines(run(f"""
        "$PY" -c "$SECRETSTORAGE"
        secret-tool lookup service py; echo
    """, *modes, SECRETSTORAGE=SECRETSTORAGE))
    assert out == [f'encrypted {encrypted}', 'py-pw', 'py-pw']


def test_errors_introspection_and_properties():
    out = lines(run(f"""
        S=/org/freedesktop/secrets
        {STORE_ALICE}
        {CALL} -o $S -m org.freedesktop.DBus.Introspectable.Introspect | grep -c org.gnome.keyring.
        {CALL} -o $S -m org.freedesktop.DBus.Introspectable.Introspect | grep -c 'org.freedesktop.Secret.Service'
        {CALL} -o $S/collection/login/9 -m org.freedesktop.Secret.Item.GetSecret / 2>&1 | grep -o 'Error[.][A-Za-z]*'
        {CALL} -o /org/nothing -m org.freedesktop.Secret.Item.GetSecret / 2>&1 | grep -o 'Error[.][A-Za-z]*'
        {CALL} -o $S -m org.freedesktop.Secret.Service.Nothing 2>&1 | grep -o 'Error[.][A-Za-z]*'
        {CALL} -o $S/collection/login/1 -m org.freedesktop.Secret.Item.GetSecret $S/session/99 2>&1 | grep -o 'Error[.][A-Za-z]*'
        {CALL} -o $S -m org.freedesktop.Secret.Service.Lock "['$S/aliases/default']"
        {CALL} -o $S/aliases/default -m org.freedesktop.DBus.Properties.Get org.freedesktop.Secret.Collection Locked
        {CALL} -o $S/collection/login/1 -m org.freedesktop.Secret.Item.GetSecret / 2>&1 | grep -o 'Error[.][A-Za-z]*'
        {CALL} -o $S -m org.freedesktop.Secret.Service.SearchItems "{{'username': 'alice'}}"
        {CALL} -o / -m org.freedesktop.DBus.Peer.Ping
    """))
    assert out == ['0', '1', 'Error.NoSuchObject', 'Error.UnknownObject', 'Error.UnknownMethod',
                   'Error.NoSession', "([objectpath '/org/freedesktop/secrets/aliases/default'], objectpath '/')",
                   '(<true>,)', 'Error.IsLocked',
                   "(@ao [], [objectpath '/org/freedesktop/secrets/collection/login/1'])", '()']


def test_locked_collection_is_unlocked_through_a_prompt():
    out = lines(run(f"""
        {STORE_ALICE} && echo stored
        secret-tool lookup service app username alice; echo
        {CONTROL}.Stats | grep -A1 '"Prompt"' | grep -o 'uint64 [0-9]*'
    """, 'locked'))
    assert out == ['stored', 'alice-pw', 'uint64 1']  # CreateItem's prompt unlocked it


def test_prompt_always_does_the_work_when_the_prompt_completes():
    out = lines(run(f"""
        {STORE_ALICE} && echo stored
        secret-tool lookup service app username alice; echo
        secret-tool clear service app username alice && echo cleared
        secret-tool lookup service app username alice || echo absent
        {CONTROL}.Stats | grep -A1 '"Prompt"' | grep -o 'uint64 [0-9]*'
    """, 'prompt-always'))
    assert out == ['stored', 'alice-pw', 'cleared', 'absent', 'uint64 2']


def test_prompt_never_never_completes():
    out = lines(run(f"""
        printf pw | timeout 2 secret-tool store --label=a service app username alice; echo status $?
        {CONTROL}.Items | grep -c 'object path' || true
    """, 'prompt-never'))
    assert out == ['status 124', '0']


def test_no_reply_and_slow_do_not_hold_up_other_calls():
    out = lines(run(f"""
        S=/org/freedesktop/secrets
        {CALL} --timeout 1 -o $S -m org.freedesktop.Secret.Service.SearchItems {{}} 2>&1 | grep -o 'Timeout'
        start=$(date +%s%N)
        {CALL} -o $S -m org.freedesktop.Secret.Service.ReadAlias default >/dev/null &
        sleep 0.1
        {CALL} -o $S -m org.freedesktop.DBus.Peer.Ping
        echo ping_ms $(( ($(date +%s%N) - start) / 1000000 ))
        wait
        echo alias_ms $(( ($(date +%s%N) - start) / 1000000 ))
    """, 'no-reply=SearchItems', 'slow=ReadAlias:1500'))
    assert out[:2] == ['Timeout', '()']
    ping_ms, alias_ms = int(out[2].split()[1]), int(out[3].split()[1])
    assert ping_ms < 1000 and alias_ms >= 1500, out


def test_wrong_types():
    out = lines(run(f"""
        S=/org/freedesktop/secrets
        {STORE_ALICE}
        {CALL} -o $S -m org.freedesktop.Secret.Service.SearchItems {{}}
        {CALL} -o $S -m org.freedesktop.DBus.Properties.Get org.freedesktop.Secret.Service Collections
        {CALL} -o $S/collection/login/1 -m org.freedesktop.Secret.Item.GetSecret /
        {CALL} -o $S -m org.freedesktop.Secret.Service.ReadAlias default
    """, 'wrong-types=SearchItems', 'wrong-types=Get', 'wrong-types=GetSecret'))
    assert out == ["('nope',)", "('nope',)", '(uint32 7,)',
                   "(objectpath '/org/freedesktop/secrets/collection/login',)"]


def test_bad_paths():
    out = lines(run(f"""
        S=/org/freedesktop/secrets
        session=$({CALL} -o $S -m org.freedesktop.Secret.Service.OpenSession plain '<"">' |
            grep -o "$S/session/[0-9]*")
        {CALL} -o $S/aliases/default -m org.freedesktop.Secret.Collection.CreateItem \\
            "{{'org.freedesktop.Secret.Item.Label': <'x'>}}" \\
            "(objectpath '$session', @ay [], @ay [120], 'text/plain')" true
        {CALL} -o $S -m org.freedesktop.Secret.Service.SearchItems {{}}
        {CALL} -o $S/aliases/default -m org.freedesktop.Secret.Collection.SearchItems {{}}
    """, 'bad-paths'))
    item = "objectpath '/org/freedesktop/secrets/collection/login/1'"
    assert out == ["(objectpath '/org/evil/item', objectpath '/')",
                   f"([{item}, '/org/evil/1'], [objectpath '/org/evil/2'])",
                   f"([{item}, '/org/evil/1'],)"]


LISTENER = r'''
import sys
from jeepney import MatchRule, DBusAddress, new_method_call
from jeepney.io.blocking import open_dbus_connection
conn = open_dbus_connection('SESSION', enable_fds=True)
rule = MatchRule(type='signal', interface='org.freedesktop.Secret.Collection')
conn.send_and_get_reply(new_method_call(
    DBusAddress('/org/freedesktop/DBus', 'org.freedesktop.DBus', 'org.freedesktop.DBus'),
    'AddMatch', 's', (rule.serialise(),)))
control = DBusAddress('/io/github/keychainkit/FakeControl', 'org.freedesktop.secrets',
                      'io.github.keychainkit.FakeControl')
calls = [('Emit', 'ssuu', ('ItemDeleted', '/x/y', 3, 0)),
         ('Emit', 'ssuu', ('ItemCreated', '/x/z', 2, 5000)),
         ('EmitWithFds', 'u', (2,))]
for member, signature, body in calls:
    conn.send(new_method_call(control, member, signature, body))
# A Ping to the secrets objects: flood-on-call sends its signals first.
conn.send(new_method_call(DBusAddress('/org/freedesktop/secrets', 'org.freedesktop.secrets',
                                      'org.freedesktop.DBus.Peer'), 'Ping'))
seen = []
while len(seen) < 3 + 2 + 2 + 4:
    msg = conn.receive(timeout=5)
    if msg.header.message_type.name != 'signal':
        continue
    sig = msg.header.fields.get(8, '')
    extra = len(msg.body[1]) if sig == 'oay' else type(msg.body[1]).__name__ if sig == 'oh' else ''
    seen.append(f'{msg.header.fields[3]} {sig} {msg.body[0]} {extra}'.strip())
    if sig == 'oh':
        msg.body[1].close()
print('\n'.join(seen))
'''


def test_control_emit_fds_and_flood_on_call():
    out = lines(run('"$PY" -c "$LISTENER"', 'flood-on-call=4:100', LISTENER=LISTENER))
    collection = '/org/freedesktop/secrets/collection/login'
    assert out == (['ItemDeleted o /x/y'] * 3 + ['ItemCreated oay /x/z 5000'] * 2
                   + [f'ItemChanged oh {collection} FileDescriptor'] * 2
                   + [f'ItemChanged oay {collection} 100'] * 4)


def test_bad_mode_is_refused_at_once():
    start = time.monotonic()
    result = run('true', 'slow=nonsense')
    assert result.returncode == 2 and 'METHOD:MS' in result.stderr
    assert time.monotonic() - start < 5


# ---- personalities: the servers of 2026 (SERVERS-2026.md)

ITEMS = f'{CONTROL}.Items'


def test_oo7_replaces_only_the_exact_attribute_set_at_a_new_path():
    out = lines(run(f"""
        {STORE_ALICE}
        {ITEMS} | grep -c 'xdg:content-type'
        printf new-pw | secret-tool store --label=alice service app username alice
        {ITEMS} | grep -o 'collection/Login/[0-9]*'
        printf other | secret-tool store --label=alice service app username alice extra x
        {ITEMS} | grep -c 'object path'
    """, 'personality=oo7'))
    assert out == ['1', 'collection/Login/2', '2']


def test_oo7_hides_a_locked_collections_items_from_searches_and_their_attributes():
    out = lines(run(f"""
        {STORE_ALICE}
        {CONTROL}.SetMode string:locked string: >/dev/null
        {CALL} --object-path /org/freedesktop/secrets --method org.freedesktop.Secret.Service.SearchItems "{{'service': 'app'}}"
        {CALL} --object-path /org/freedesktop/secrets/collection/Login --method org.freedesktop.DBus.Properties.Get org.freedesktop.Secret.Collection Items
        {CALL} --object-path /org/freedesktop/secrets/collection/Login/1 --method org.freedesktop.DBus.Properties.Get org.freedesktop.Secret.Item Attributes 2>&1 | grep -o 'Cannot get attributes'
    """, 'personality=oo7'))
    assert out == ['(@ao [], @ao [])', "(<[objectpath '/org/freedesktop/secrets/collection/Login/1']>,)",
                   'Cannot get attributes']


def test_ksecretd_refuses_text_that_is_not_utf8_and_short_keys_are_unpadded():
    import fake_secret_service as fake
    _, padded = fake.dh_exchange((2).to_bytes(1, 'big'), short=True)
    assert len(padded) < 128
    result = run("printf '\\377' | secret-tool store --label=x service app username alice",
                 'personality=ksecretd')
    assert result.returncode != 0 and 'UTF-8' in result.stderr


def test_restart_locked_comes_back_under_a_new_name_with_hashed_attributes():
    out = lines(run(f"""
        {STORE_ALICE}
        before=$(gdbus call --session --dest org.freedesktop.DBus --object-path /org/freedesktop/DBus --method org.freedesktop.DBus.GetNameOwner org.freedesktop.secrets)
        {CONTROL}.RestartLocked >/dev/null
        sleep 0.3
        after=$(gdbus call --session --dest org.freedesktop.DBus --object-path /org/freedesktop/DBus --method org.freedesktop.DBus.GetNameOwner org.freedesktop.secrets)
        [ "$before" != "$after" ] && echo moved
        {CALL} --object-path /org/freedesktop/secrets/collection/login/1 --method org.freedesktop.DBus.Properties.Get org.freedesktop.Secret.Item Attributes
        secret-tool lookup service app username alice; echo  # unlocks through the prompt
    """))
    md5 = __import__('hashlib').md5
    assert out[0] == 'moved'
    assert f"'gkr:compat:hashed:username': <'{md5(b'alice').hexdigest()}'>" in out[1] or \
        f"'gkr:compat:hashed:username': '{md5(b'alice').hexdigest()}'" in out[1]
    assert "'username'" not in out[1]
    assert out[2] == 'alice-pw'


def test_idle_lock_locks_after_the_quiet_time_and_announces_it_late():
    out = lines(run(f"""
        {STORE_ALICE}
        {CONTROL}.SetMode string:idle-lock string:200 >/dev/null
        secret-tool lookup service app username alice; echo
        sleep 0.5
        {CALL} --object-path /org/freedesktop/secrets/collection/login --method org.freedesktop.DBus.Properties.Get org.freedesktop.Secret.Collection Locked
        secret-tool search service app 2>&1 | grep -c '^label' || true
    """, 'personality=keepassxc-idle'))
    assert out == ['alice-pw', '(<true>,)', '0']
