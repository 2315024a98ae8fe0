#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""A scriptable, hostile fake of the freedesktop Secret Service, for tests.

It owns org.freedesktop.secrets on the session bus and keeps, in memory, the
collections "login" (alias "default") and "session" (alias "session"). It
speaks the protocol well enough for libsecret's secret-tool (plain and
dh-ietf1024-sha256-aes128-cbc-pkcs7 transfer sessions, prompts, locking) and
misbehaves on demand: see MODES, or run it with --list-modes. Modes come
from --mode NAME[=ARG] (repeatable) and, at run time, from the control object
/io/github/keychainkit/FakeControl (interface io.github.keychainkit.FakeControl).

One thread: a loop receives messages from a jeepney blocking connection and
runs what is due on a heap of timers (slow replies, prompt completions), so
that a slow reply never holds up another call. It prints nothing on stdout
unless asked (--print-ready, --list-modes) and logs to stderr only with
--verbose. Usually started by scripts/with-fake-secret-service.sh; see
IntegrationTests/hostile/README.md.
"""
import argparse
import hashlib
import heapq
import itertools
import os
import re
import sys
import time
import traceback
from collections import Counter
from dataclasses import dataclass, field
from typing import Callable, Optional

from cryptography.hazmat.primitives import hashes, padding
from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes
from cryptography.hazmat.primitives.kdf.hkdf import HKDF
from jeepney import (DBusAddress, HeaderFields, MessageFlag, MessageType,
                     new_error, new_method_return, new_signal)
from jeepney.bus_messages import DBusNameFlags, message_bus
from jeepney.io.blocking import open_dbus_connection

BUS_NAME = 'org.freedesktop.secrets'
ROOT = '/org/freedesktop/secrets'
CONTROL_PATH = '/io/github/keychainkit/FakeControl'
EVIL_PATH = '/org/evil'

SERVICE = 'org.freedesktop.Secret.Service'
COLLECTION = 'org.freedesktop.Secret.Collection'
ITEM = 'org.freedesktop.Secret.Item'
SESSION = 'org.freedesktop.Secret.Session'
PROMPT = 'org.freedesktop.Secret.Prompt'
PROPS = 'org.freedesktop.DBus.Properties'
INTROSPECTABLE = 'org.freedesktop.DBus.Introspectable'
PEER = 'org.freedesktop.DBus.Peer'
CONTROL = 'io.github.keychainkit.FakeControl'
# gnome-keyring's private interface on the service object, which oo7-daemon
# serves too (the personality oo7 has it; the plain fake does not, so that
# nothing takes it for gnome-keyring by name).
INTERNAL = 'org.gnome.keyring.InternalUnsupportedGuiltRiddenInterface'
# The password UnlockWithMasterPassword takes (the harness passes it to its
# command as KEYCHAINKIT_TEST_KEYRING_PASSWORD).
PASSWORD = b'fake-keyring-password'

NO_SUCH_OBJECT = 'org.freedesktop.Secret.Error.NoSuchObject'
IS_LOCKED = 'org.freedesktop.Secret.Error.IsLocked'
NO_SESSION = 'org.freedesktop.Secret.Error.NoSession'
UNKNOWN_OBJECT = 'org.freedesktop.DBus.Error.UnknownObject'
UNKNOWN_METHOD = 'org.freedesktop.DBus.Error.UnknownMethod'
UNKNOWN_PROPERTY = 'org.freedesktop.DBus.Error.UnknownProperty'
READ_ONLY = 'org.freedesktop.DBus.Error.PropertyReadOnly'
INVALID_ARGS = 'org.freedesktop.DBus.Error.InvalidArgs'
NOT_SUPPORTED = 'org.freedesktop.DBus.Error.NotSupported'
FAILED = 'org.freedesktop.DBus.Error.Failed'

DH_ALGORITHM = 'dh-ietf1024-sha256-aes128-cbc-pkcs7'
# RFC 2409's second Oakley group (1024 bits); the generator is 2.
DH_PRIME = int(
    'FFFFFFFFFFFFFFFFC90FDAA22168C234C4C6628B80DC1CD129024E088A67CC74'
    '020BBEA63B139B22514A08798E3404DDEF9519B3CD3A431B302B0A6DF25F1437'
    '4FE1356D6D51C245E485B576625E7EC6F44C42E9A637ED6B0BFF5CB6F406B7ED'
    'EE386BFB5A899FA5AE9F24117C4B1FE649286651ECE65381FFFFFFFFFFFFFFFF', 16)

# interface -> method -> (argument signature, reply signature)
METHODS = {
    SERVICE: {'OpenSession': ('sv', 'vo'), 'SearchItems': ('a{ss}', 'aoao'),
              'Unlock': ('ao', 'aoo'), 'Lock': ('ao', 'aoo'),
              'GetSecrets': ('aoo', 'a{o(oayays)}'), 'ReadAlias': ('s', 'o'),
              'SetAlias': ('so', ''), 'CreateCollection': ('a{sv}s', 'oo')},
    COLLECTION: {'CreateItem': ('a{sv}(oayays)b', 'oo'),
                 'SearchItems': ('a{ss}', 'ao'), 'Delete': ('', 'o')},
    ITEM: {'GetSecret': ('o', '(oayays)'), 'SetSecret': ('(oayays)', ''),
           'Delete': ('', 'o')},
    SESSION: {'Close': ('', '')},
    PROMPT: {'Prompt': ('s', ''), 'Dismiss': ('', '')},
    PROPS: {'Get': ('ss', 'v'), 'GetAll': ('s', 'a{sv}'), 'Set': ('ssv', '')},
    INTROSPECTABLE: {'Introspect': ('', 's')},
    PEER: {'Ping': ('', ''), 'GetMachineId': ('', 's')},
    INTERNAL: {'UnlockWithMasterPassword': ('o(oayays)', '')},
    CONTROL: {'SetMode': ('ss', ''), 'UnsetMode': ('s', ''), 'ClearModes': ('', ''), 'Reset': ('', ''),
              'Stats': ('', 'a{st}'), 'Items': ('', 'a(oa{ss})'),
              'Emit': ('ssuu', ''), 'EmitWithFds': ('u', ''), 'SetModified': ('ot', ''),
              'RestartLocked': ('', '')},
}
SIGNALS = {
    SERVICE: {'CollectionCreated': 'o', 'CollectionDeleted': 'o', 'CollectionChanged': 'o'},
    COLLECTION: {'ItemCreated': 'o', 'ItemDeleted': 'o', 'ItemChanged': 'o'},
    PROMPT: {'Completed': 'bv'},
}
# interface -> property -> signature; the values come from the attribute of
# PROPERTY_ATTRIBUTES on the object (the server itself for the service).
PROPERTIES = {
    SERVICE: {'Collections': 'ao'},
    COLLECTION: {'Items': 'ao', 'Label': 's', 'Locked': 'b', 'Created': 't', 'Modified': 't'},
    ITEM: {'Attributes': 'a{ss}', 'Label': 's', 'Locked': 'b', 'Created': 't', 'Modified': 't'},
}
PROPERTY_ATTRIBUTES = {'Collections': 'collection_paths', 'Items': 'item_paths',
                       'Attributes': 'attributes', 'Label': 'label', 'Locked': 'locked',
                       'Created': 'created', 'Modified': 'modified'}
SETTABLE = {(COLLECTION, 'Label'), (ITEM, 'Label'), (ITEM, 'Attributes')}
STANDARD = [PROPS, INTROSPECTABLE, PEER]
# kind of object -> the interfaces it has
KINDS = {'service': [SERVICE] + STANDARD, 'collection': [COLLECTION] + STANDARD,
         'item': [ITEM] + STANDARD, 'session': [SESSION] + STANDARD,
         'prompt': [PROMPT] + STANDARD, 'control': [CONTROL, INTROSPECTABLE, PEER]}
# interface -> prefix of the methods of FakeSecretService that implement it
HANDLER_PREFIX = {SERVICE: 'service', COLLECTION: 'collection', ITEM: 'item',
                  SESSION: 'session', PROMPT: 'prompt', PROPS: 'props',
                  INTROSPECTABLE: 'introspect', PEER: 'peer', CONTROL: 'control', INTERNAL: 'internal'}
# What FakeControl.Emit can send: signal -> interface (collection signals come
# from the login collection's path, service signals from the service's).
EMITTABLE = {'ItemCreated': COLLECTION, 'ItemChanged': COLLECTION, 'ItemDeleted': COLLECTION,
             'CollectionCreated': SERVICE, 'CollectionChanged': SERVICE,
             'CollectionDeleted': SERVICE}
OBJECT_PATH = re.compile(r'^/$|^(/[A-Za-z0-9_]+)+$')
MAX_PADDING = 2 ** 26 - 64  # jeepney refuses arrays over 64 MiB


class DBusError(Exception):
    """A D-Bus error reply: its name and message."""

    def __init__(self, name: str, message: str = ''):
        super().__init__(message or name)
        self.name, self.message = name, message or name


# ---------------------------------------------------------------- modes

def _method_name(arg: str) -> str:
    if not arg:
        raise ValueError('needs =METHOD (a member name, Get(PROPERTY) for the gets of one property, or *)')
    return arg


def call_names(message) -> tuple:
    """The names a METHOD argument matches a call by: its member, and for
    a property's Get also Get(PROPERTY)."""
    member = message.header.fields.get(HeaderFields.member, '')
    body = message.body
    if member == 'Get' and len(body) == 2 and all(isinstance(part, str) for part in body):
        return member, f'Get({body[1]})'
    return (member,)


def _method_and_ms(arg: str) -> tuple:
    method, _, ms = arg.rpartition(':')
    if not method or not ms.isdigit():
        raise ValueError('needs =METHOD:MS (e.g. SearchItems:500 or *:100)')
    return method, int(ms)


def _personality(arg: str) -> str:
    if arg not in PERSONALITIES:
        raise ValueError(f'needs =NAME, one of {", ".join(PERSONALITIES)}')
    return arg


def _milliseconds(arg: str) -> int:
    if not arg.isdigit() or int(arg) == 0:
        raise ValueError('needs =MS, a positive number of milliseconds')
    return int(arg)


def _count_and_bytes(arg: str) -> tuple:
    count, _, size = arg.partition(':')
    if not count.isdigit() or not size.isdigit() or int(size) > MAX_PADDING:
        raise ValueError('needs =N:BYTES (e.g. 100:4096; BYTES under 64 MiB)')
    return int(count), int(size)


@dataclass(frozen=True)
class Mode:
    """A misbehaviour: what it does, the form of its argument and how that is read
    (parse None: it takes no argument)."""
    summary: str
    arg: str = ''
    parse: Optional[Callable[[str], object]] = None
    single: bool = False  # setting it again replaces its argument


MODES = {
    'loose-match': Mode('an asked attribute value beginning or ending with "|" matches any '
                        'value of that attribute, in searches and in CreateItem\'s replace '
                        '(KeePassXC 2.7.0, keepassxreboot/keepassxc#7776)'),
    'search-everything': Mode('SearchItems (service and collection) returns every item'),
    'no-reply': Mode('calls of member METHOD (Get(PROPERTY): the gets of one property; * = all) '
                     'are never handled nor answered',
                     'METHOD', _method_name),
    'slow': Mode('calls of METHOD (* = all) are handled and answered after MS milliseconds; '
                 'other calls are not held up', 'METHOD:MS', _method_and_ms),
    'bad-paths': Mode('SearchItems adds /org/evil/1 (unlocked) and /org/evil/2 (locked) to its '
                      'answer; CreateItem reports the new item as /org/evil/item'),
    'wrong-types': Mode('METHOD is answered with a wrong signature: GetSecret (u) 7, a method '
                        'answering (s) gets (u) 7, any other (s) "nope"', 'METHOD', _method_name),
    'prompt-never': Mode('CreateItem, Item.Delete and Unlock return a prompt whose Prompt() '
                         'returns but never completes (nothing is done; Dismiss still works)'),
    'prompt-always': Mode('CreateItem and Item.Delete return a prompt that completes ~20 ms '
                          'after Prompt(); the work is done then (like KeePassXC)'),
    'plain-only': Mode('OpenSession of any algorithm but "plain" fails with '
                       'org.freedesktop.DBus.Error.NotSupported'),
    'flood-on-call': Mode('before each reply, N ItemChanged signals padded with BYTES bytes '
                          'each are broadcast', 'N:BYTES', _count_and_bytes),
    'locked': Mode('the collections start locked (set at run time: they are locked now)'),
    'personality': Mode('behave as another server of 2026 does (see PERSONALITIES)', 'NAME',
                        _personality, single=True),
    'short-public-key': Mode('every DH OpenSession answers with a public key shorter than 128 bytes '
                             '(unpadded, as ksecretd before KF 6.25 did on one session in 256)'),
    'ambiguous-secret': Mode('the first DH OpenSession of each connection gets a shared secret '
                             'whose first byte is zero (one session in 256 by chance), which '
                             'KWallet encodes without it and gnome-keyring, like the fake, with it'),
    'idle-lock': Mode('the collections lock themselves MS milliseconds after the last call '
                      '(KeePassXC >= 2.7.11 after 900 s)', 'MS', _milliseconds, single=True),
}

# What each personality changes (from the servers' sources; SERVERS-2026.md).
PERSONALITIES = {
    'oo7': 'oo7-daemon 0.6: the default collection is /collection/Login; CreateItem adds '
           'xdg:content-type; replace only over the exact attribute set, by deleting that item '
           '(ItemDeleted) and creating one at a new path (ItemCreated); SetSecret emits ItemChanged; '
           'a locked collection lists its items but searches show none, and a locked item\'s '
           'Attributes fail',
    'ksecretd': 'KDE ksecretd: the DH public key is not padded (one session in 256 is short); '
                'a text/* secret that is not UTF-8 is refused',
    'keepassxc-idle': 'KeePassXC >= 2.7.11: no "session" collection; a locked database hides its items (Items empty, '
                      'searches show none, their paths gone); the collections lock themselves '
                      'after 900 s without a call (idle-lock changes that) and announce it 200 ms later',
}
# An idle lock is announced this long after the items stopped showing
# (keepassxc-idle; KeePassXC 2.7.4 announced a Lock() after a read had
# already found nothing).
LATE_ANNOUNCEMENT = 0.2


class Modes:
    """The modes in force: name -> list of parsed arguments (None for a flag)."""

    def __init__(self):
        self.active: dict = {}

    def set(self, name: str, arg: str = '') -> None:
        """Turns mode `name` on (with `arg`); raises ValueError for a bad name or argument."""
        mode = MODES.get(name)
        if mode is None:
            raise ValueError(f'unknown mode {name!r} (known: {", ".join(MODES)})')
        if mode.parse is None:
            if arg:
                raise ValueError(f'mode {name!r} takes no argument')
            self.active[name] = [None]
            return
        try:
            value = mode.parse(arg)
        except ValueError as error:
            raise ValueError(f'mode {name!r} {error}') from None
        values = self.active.setdefault(name, [])
        if mode.single:
            values.clear()
        if value not in values:
            values.append(value)

    def clear(self) -> None:
        self.active.clear()

    def on(self, name: str) -> bool:
        return name in self.active

    def for_method(self, name: str, names: tuple) -> bool:
        """Whether mode `name` (taking =METHOD) applies to a call of `names` (call_names())."""
        return any(arg in (*names, '*') for arg in self.active.get(name, ()))

    def delay(self, names: tuple) -> float:
        """Seconds by which `slow` puts off a call of `names` (0: not slow)."""
        delays = [ms for method, ms in self.active.get('slow', ()) if method in (*names, '*')]
        return max(delays, default=0) / 1000

    def flood(self) -> list:
        return self.active.get('flood-on-call', [])

    def personality(self) -> str:
        """The server the fake behaves as ('gnome-keyring' unless a personality is set)."""
        return (self.active.get('personality') or ['gnome-keyring'])[-1]

    def idle_lock(self) -> Optional[float]:
        """Seconds without a call after which the collections lock themselves, or None."""
        if self.on('idle-lock'):
            return self.active['idle-lock'][-1] / 1000
        return 900.0 if self.personality() == 'keepassxc-idle' else None


# ---------------------------------------------------------------- objects

@dataclass(eq=False)
class Collection:
    name: str
    label: str
    created: int
    modified: int
    locked: bool = False
    items: dict = field(default_factory=dict)  # path -> Item
    next_id: int = 1
    # Loaded from disk locked and not unlocked since (RestartLocked): its
    # items' attributes, label and times are in the encrypted part.
    sealed: bool = False

    @property
    def path(self) -> str:
        return f'{ROOT}/collection/{self.name}'

    @property
    def item_paths(self) -> list:
        return list(self.items)


@dataclass(eq=False)
class Item:
    path: str
    collection: Collection
    label: str
    attributes: dict
    secret: bytes
    content_type: str
    created: int
    modified: int

    @property
    def locked(self) -> bool:
        return self.collection.locked


@dataclass(eq=False)
class Session:
    path: str
    key: Optional[bytes]  # the AES-128 key; None for "plain"


@dataclass(eq=False)
class Prompt:
    path: str
    action: Callable[[], tuple]  # does the work; returns the result variant
    delay: float                 # seconds from Prompt() to Completed
    never: bool                  # prompt-never: Prompt() starts nothing
    started: bool = False


@dataclass
class Target:
    """The object a call is addressed to."""
    kind: str
    obj: object
    path: str


# ---------------------------------------------------------------- crypto

def dh_exchange(client_public: bytes, padded: bool = True, short: bool = False, ambiguous: bool = False) -> tuple:
    """Answers the client's public key: returns (AES key, our public key).
    Not `padded`: the key has no leading zero bytes (ksecretd's bug), so
    about one in 256 is shorter than 128 bytes; `short`: always shorter;
    `ambiguous`: the shared secret's first byte is zero (one in 256 by
    chance), which servers encode differently (padded here, as
    gnome-keyring and libsecret do; KWallet strips the zeros)."""
    peer = int.from_bytes(client_public, 'big')
    if not 1 < peer < DH_PRIME - 1:
        raise DBusError(INVALID_ARGS, 'bad Diffie-Hellman public key')
    while True:
        # 256 bits of private key are enough for a fake, and make the
        # search for an ambiguous secret (256 tries on average) quick.
        private = int.from_bytes(os.urandom(32 if ambiguous else 128), 'big') % (DH_PRIME - 3) + 2
        public = pow(2, private, DH_PRIME)
        if short and public >= 2 ** 1016:
            continue
        shared = pow(peer, private, DH_PRIME)
        if not ambiguous or shared < 2 ** 1016:
            break
    shared = shared.to_bytes(128, 'big')
    key = HKDF(algorithm=hashes.SHA256(), length=16, salt=None, info=b'').derive(shared)
    length = 128 if padded and not short else (public.bit_length() + 7) // 8
    return key, public.to_bytes(length, 'big')


def encrypt(key: bytes, plaintext: bytes) -> tuple:
    """AES-128-CBC with PKCS#7 padding: returns (iv, ciphertext)."""
    iv = os.urandom(16)
    padder = padding.PKCS7(128).padder()
    encryptor = Cipher(algorithms.AES(key), modes.CBC(iv)).encryptor()
    padded = padder.update(plaintext) + padder.finalize()
    return iv, encryptor.update(padded) + encryptor.finalize()


def decrypt(key: bytes, iv: bytes, ciphertext: bytes) -> bytes:
    if len(iv) != 16 or not ciphertext or len(ciphertext) % 16:
        raise DBusError(INVALID_ARGS, 'bad encrypted secret')
    decryptor = Cipher(algorithms.AES(key), modes.CBC(iv)).decryptor()
    unpadder = padding.PKCS7(128).unpadder()
    try:
        padded = decryptor.update(ciphertext) + decryptor.finalize()
        return unpadder.update(padded) + unpadder.finalize()
    except ValueError:
        raise DBusError(INVALID_ARGS, 'bad padding in encrypted secret') from None


# ---------------------------------------------------------------- helpers

def split_signature(signature: str) -> list:
    """Splits a D-Bus signature into its complete types: 'a{ss}ao' -> ['a{ss}', 'ao']."""
    types, start, depth = [], 0, 0
    for index, char in enumerate(signature):
        depth += (char in '({') - (char in ')}')
        if depth == 0 and char != 'a':
            types.append(signature[start:index + 1])
            start = index + 1
    return types


def introspection_xml(interfaces: list) -> str:
    """The Introspect answer for an object with `interfaces`."""
    lines = ['<!DOCTYPE node PUBLIC "-//freedesktop//DTD D-BUS Object Introspection 1.0//EN"',
             ' "http://www.freedesktop.org/standards/dbus/1.0/introspect.dtd">', '<node>']
    for interface in interfaces:
        lines.append(f'  <interface name="{interface}">')
        for name, (ins, outs) in METHODS.get(interface, {}).items():
            args = [f'<arg type="{t}" direction="in"/>' for t in split_signature(ins)]
            args += [f'<arg type="{t}" direction="out"/>' for t in split_signature(outs)]
            lines.append(f'    <method name="{name}">{"".join(args)}</method>')
        for name, sig in SIGNALS.get(interface, {}).items():
            args = ''.join(f'<arg type="{t}"/>' for t in split_signature(sig))
            lines.append(f'    <signal name="{name}">{args}</signal>')
        for name, sig in PROPERTIES.get(interface, {}).items():
            access = 'readwrite' if (interface, name) in SETTABLE else 'read'
            lines.append(f'    <property name="{name}" type="{sig}" access="{access}"/>')
        lines.append('  </interface>')
    return '\n'.join(lines + ['</node>', ''])


def variant_value(properties: dict, name: str, signature: str, default):
    """The value of variant `name` in an a{sv}, which must have `signature`."""
    if name not in properties:
        return default
    sig, value = properties[name]
    if sig != signature:
        raise DBusError(INVALID_ARGS, f'{name} must be of type {signature}, not {sig}')
    return value


# ---------------------------------------------------------------- the server

class FakeSecretService:
    """The fake's state and the handlers of its methods.

    A handler is named <prefix>_<Member> (HANDLER_PREFIX), takes the Target
    and the call's arguments, and returns the reply's body as a tuple or
    raises DBusError.
    """

    def __init__(self, conn, modes: Modes, log: Callable, first_item: int = 1, collection: Optional[str] = None):
        self.conn, self.modes, self.log = conn, modes, log
        self.first_item = first_item  # the number of each collection's first item
        self.default_name = collection  # the default collection's name, if not the personality's
        self.timers: list = []  # heap of (due, sequence, function)
        self.sequence = itertools.count()
        self.stats: Counter = Counter()
        self.sessions: dict = {}
        self.caller: Optional[str] = None  # the unique name the call being answered came from
        self.ambiguous_callers: set = set()  # connections given an ambiguous secret (ambiguous-secret)
        self.prompts: dict = {}
        self.session_ids = itertools.count(1)
        self.prompt_ids = itertools.count(1)
        self.last_call = time.monotonic()
        self.idle_checks = 0  # the idle check in force; older ones do nothing
        self.reset()

    def reset(self) -> None:
        """Back to the collections "login" (oo7: "Login"; or --collection's name) and "session", with no items."""
        now = int(time.time())
        login = self.default_name or ('Login' if self.personality == 'oo7' else 'login')
        names = ((login, 'Login'),) if self.personality == 'keepassxc-idle' else ((login, 'Login'), ('session', 'Session'))
        self.collections = {name: Collection(name, label, now, now, self.modes.on('locked'), next_id=self.first_item)
                            for name, label in names}
        self.aliases = {'default': login, 'session': 'session'} if len(names) == 2 else {'default': login}

    @property
    def personality(self) -> str:
        return self.modes.personality()

    def interfaces(self, kind: str) -> list:
        """The interfaces an object of `kind` has (oo7's service also gnome-keyring's private one)."""
        return KINDS[kind] + ([INTERNAL] if kind == 'service' and self.personality == 'oo7' else [])

    def hides(self, collection: Collection) -> bool:
        """Whether searches leave out the collection's items (locked, on oo7 and KeePassXC)."""
        return collection.locked and self.personality in ('oo7', 'keepassxc-idle')

    @property
    def collection_paths(self) -> list:
        return [c.path for c in self.collections.values()]

    def all_items(self) -> list:
        return [item for c in self.collections.values() for item in c.items.values()]

    # --- the loop, timers and signals

    def serve(self) -> None:
        """Answers calls until the bus goes away."""
        while True:
            timeout = self.run_due_timers()
            try:
                message = self.conn.receive(timeout=timeout)
            except TimeoutError:
                continue
            self.on_message(message)

    def later(self, seconds: float, function: Callable) -> None:
        heapq.heappush(self.timers, (time.monotonic() + seconds, next(self.sequence), function))

    def run_due_timers(self) -> Optional[float]:
        """Runs every timer that is due; returns the seconds until the next one."""
        while self.timers:
            due, _, function = self.timers[0]
            if due > time.monotonic():
                return due - time.monotonic()
            heapq.heappop(self.timers)
            try:
                function()
            except Exception:  # a bug of the fake's: keep serving
                self.log(traceback.format_exc())
        return None

    def signal(self, path: str, interface: str, member: str, signature: str, *body) -> None:
        self.conn.send(new_signal(DBusAddress(path, interface=interface), member, signature, body))

    def some_item_path(self) -> str:
        """An item path to name in signals the fake sends on its own."""
        items = self.all_items()
        return items[0].path if items else self.login_path()

    def login_path(self) -> str:
        """The path of the "default" collection (the service's if there is none)."""
        login = self.collections.get(self.aliases.get('default', ''))
        return login.path if login else ROOT

    def emit(self, member: str, path: str, count: int, size: int) -> None:
        """Broadcasts `count` signals `member`(path), padded with `size` bytes when size > 0."""
        interface = EMITTABLE[member]
        source = self.login_path() if interface == COLLECTION else ROOT
        pad = b'\0' * size
        for _ in range(count):
            if size:
                self.signal(source, interface, member, 'oay', path, pad)
            else:
                self.signal(source, interface, member, 'o', path)

    # --- the idle lock

    def note_call(self) -> None:
        """A call came: the idle lock (if any) counts from now."""
        self.last_call = time.monotonic()
        if self.idle_checks == 0:
            self.schedule_idle_check()

    def schedule_idle_check(self) -> None:
        """Checks for the idle lock when it is due (none without one), in
        place of any check scheduled before."""
        self.idle_checks += 1
        idle = self.modes.idle_lock()
        if idle is None:
            self.idle_checks = 0
            return
        check = self.idle_checks
        due = idle - (time.monotonic() - self.last_call)
        self.later(max(due, 0), lambda: self.check_idle(check))

    def check_idle(self, check: int) -> None:
        """Locks every collection when no call came for the idle time, as
        KeePassXC does: silently at once, announced LATE_ANNOUNCEMENT later."""
        if check != self.idle_checks:
            return  # replaced by a later one
        idle = self.modes.idle_lock()
        if idle is not None and time.monotonic() - self.last_call < idle:
            self.schedule_idle_check()
            return
        self.idle_checks = 0
        if idle is None:
            return
        for collection in self.collections.values():
            self.set_locked(collection, True, late=True)
        self.log('idle lock: every collection is locked')

    # --- dispatch

    def on_message(self, message) -> None:
        """Handles one incoming message, applying the modes to calls to the secrets objects."""
        header = message.header
        if header.message_type != MessageType.method_call:
            return
        member = header.fields.get(HeaderFields.member, '')
        if header.fields.get(HeaderFields.path) == CONTROL_PATH:
            self.answer(message, hostile=False)
            return
        self.stats[member] += 1
        self.note_call()
        names = call_names(message)
        if self.modes.for_method('no-reply', names):
            self.log(f'no-reply: dropping {names[-1]}')
            return
        delay = self.modes.delay(names)
        floods = list(self.modes.flood())
        if delay:
            self.log(f'slow: answering {member} in {delay:.3f} s')
            self.later(delay, lambda: self.answer(message, hostile=True, floods=floods))
        else:
            self.answer(message, hostile=True, floods=floods)

    def answer(self, message, hostile: bool, floods: Optional[list] = None) -> None:
        """Replies to `message`; hostile: with the modes in force and the
        `floods` decided when the call came (so that a slow answer to an
        earlier call never floods with a mode set since)."""
        reply = self.reply_to(message)
        if hostile:
            for count, size in floods or []:
                self.emit('ItemChanged', self.some_item_path(), count, size)
            if self.modes.for_method('wrong-types', call_names(message)):
                reply = self.wrong_reply(message, reply)
        if not message.header.flags & MessageFlag.no_reply_expected:
            self.conn.send(reply)

    def reply_to(self, message):
        """The reply (a return or an error) to a method call."""
        fields = message.header.fields
        path, member = fields.get(HeaderFields.path, ''), fields.get(HeaderFields.member, '')
        interface = fields.get(HeaderFields.interface)
        self.log(f'call {interface}.{member} on {path} {message.body!r:.200}')
        self.caller = fields.get(HeaderFields.sender)
        try:
            if interface == PEER or (interface is None and member in METHODS[PEER]):
                target = Target('peer', None, path)  # Peer works on every path
                interface = PEER
            else:
                target = self.resolve(path)
                interface = self.find_interface(target, interface, member)
            ins, outs = METHODS[interface][member]
            signature = fields.get(HeaderFields.signature, '')
            if signature != ins:
                raise DBusError(INVALID_ARGS, f'{member} takes ({ins}), not ({signature})')
            handler = getattr(self, f'{HANDLER_PREFIX[interface]}_{member}')
            body = handler(target, *message.body)
            return new_method_return(message, outs or None, body)
        except DBusError as error:
            self.log(f'error {error.name}: {error.message}')
            return new_error(message, error.name, 's', (error.message,))
        except Exception as error:  # a bug of the fake's: answer, keep serving
            self.log(traceback.format_exc())
            return new_error(message, FAILED, 's', (f'fake secret service: {error!r}',))

    def find_interface(self, target: Target, interface: Optional[str], member: str) -> str:
        for candidate in self.interfaces(target.kind) if interface is None else [interface]:
            if candidate in self.interfaces(target.kind) and member in METHODS.get(candidate, {}):
                return candidate
        raise DBusError(UNKNOWN_METHOD, f'no method {interface}.{member} on {target.path}')

    def resolve(self, path: str) -> Target:
        """The object at `path`; aliases/<alias> paths name collections (and their items)."""
        if path == ROOT:
            return Target('service', self, path)
        if path == CONTROL_PATH:
            return Target('control', None, path)
        parts = path[len(ROOT) + 1:].split('/') if path.startswith(ROOT + '/') else []
        if parts and parts[0] in ('collection', 'aliases') and len(parts) in (2, 3):
            name = parts[1] if parts[0] == 'collection' else self.aliases.get(parts[1])
            collection = self.collections.get(name)
            if collection is not None and len(parts) == 2:
                return Target('collection', collection, path)
            if (collection is not None and f'{collection.path}/{parts[-1]}' in collection.items
                    and not (collection.locked and self.personality == 'keepassxc-idle')):
                return Target('item', collection.items[f'{collection.path}/{parts[-1]}'], path)
            raise DBusError(NO_SUCH_OBJECT, f'no such object: {path}')
        for kind, table in (('session', self.sessions), ('prompt', self.prompts)):
            if parts and parts[0] == kind and path in table:
                return Target(kind, table[path], path)
        raise DBusError(UNKNOWN_OBJECT, f'no object at {path}')

    def wrong_reply(self, message, reply):
        """A method return of a signature the caller does not expect."""
        member = message.header.fields.get(HeaderFields.member)
        if member == 'GetSecret' or reply.header.fields.get(HeaderFields.signature) == 's':
            return new_method_return(message, 'u', (7,))
        return new_method_return(message, 's', ('nope',))

    # --- shared by the handlers

    def matches(self, wanted: dict, attributes: dict) -> bool:
        """Whether an item with `attributes` matches a search for `wanted`."""
        loose = self.modes.on('loose-match')
        for name, value in wanted.items():
            if name not in attributes:
                return False
            if loose and (value.startswith('|') or value.endswith('|')):
                continue
            if attributes[name] != value:
                return False
        return True

    def search(self, wanted: dict, collections) -> list:
        collections = [c for c in collections if not self.hides(c)]
        if self.modes.on('search-everything'):
            return [item for c in collections for item in c.items.values()]
        return [item for c in collections for item in c.items.values()
                if self.matches(wanted, item.attributes)]

    def collection_of(self, path: str) -> Optional[Collection]:
        """The collection at `path`, or the one holding the item at `path`."""
        try:
            target = self.resolve(path)
        except DBusError:
            return None
        if target.kind == 'item':
            return target.obj.collection
        return target.obj if target.kind == 'collection' else None

    def set_locked(self, collection: Collection, locked: bool, late: bool = False) -> None:
        """Locks or unlocks the collection and announces it (`late`: after
        LATE_ANNOUNCEMENT, as KeePassXC announces its idle lock)."""
        if collection.locked != locked:
            collection.locked = locked
            collection.sealed = collection.sealed and locked
            path = collection.path
            announce = lambda: self.signal(ROOT, SERVICE, 'CollectionChanged', 'o', path)
            if late:
                self.later(LATE_ANNOUNCEMENT, announce)
            else:
                announce()

    def session(self, path: str) -> Session:
        if path not in self.sessions:
            raise DBusError(NO_SESSION, f'no session {path}')
        return self.sessions[path]

    def open_secret(self, secret: tuple) -> tuple:
        """A Secret struct's (value, content type), decrypted."""
        session_path, parameters, value, content_type = secret
        key = self.session(session_path).key
        value = bytes(value) if key is None else decrypt(key, bytes(parameters), bytes(value))
        return value, content_type

    def seal_secret(self, session_path: str, item: Item) -> tuple:
        """`item`'s secret as a Secret struct for the session at `session_path`."""
        key = self.session(session_path).key
        if key is None:
            return session_path, b'', item.secret, item.content_type
        iv, ciphertext = encrypt(key, item.secret)
        return session_path, iv, ciphertext, item.content_type

    def new_prompt(self, action: Callable[[], tuple], delay: float) -> str:
        """A prompt that runs `action` `delay` seconds after Prompt() (never, in prompt-never)."""
        path = f'{ROOT}/prompt/{next(self.prompt_ids)}'
        self.prompts[path] = Prompt(path, action, delay, self.modes.on('prompt-never'))
        return path

    def complete_prompt(self, prompt: Prompt, dismissed: bool) -> None:
        """Does the prompt's work (unless dismissed) and emits Completed."""
        if self.prompts.pop(prompt.path, None) is None:
            return  # completed or dismissed already
        result = ('s', '')
        if not dismissed:
            try:
                result = prompt.action()
            except DBusError as error:
                self.log(f'prompt {prompt.path} failed: {error.message}')
                dismissed = True
        self.signal(prompt.path, PROMPT, 'Completed', 'bv', dismissed, result)

    def store_item(self, collection: Collection, label: str, attributes: dict,
                   value: bytes, content_type: str, replace: bool) -> Item:
        """Creates an item, or with `replace` updates one with the same attributes."""
        now = int(time.time())
        if self.personality == 'oo7':
            attributes = {**attributes}
            attributes.setdefault('xdg:content-type', content_type)
            if replace:  # only the exact set, by deleting it and creating anew
                for item in [i for i in collection.items.values() if i.attributes == attributes]:
                    self.delete_item(item)
            replace = False
        if replace:  # as gnome-keyring: over an item whose attributes include these
            for item in collection.items.values():
                if self.matches(attributes, item.attributes):
                    item.label, item.secret, item.content_type, item.modified = label, value, content_type, now
                    self.signal(collection.path, COLLECTION, 'ItemChanged', 'o', item.path)
                    return item
        path = f'{collection.path}/{collection.next_id}'
        collection.next_id += 1
        item = Item(path, collection, label, dict(attributes), value, content_type, now, now)
        collection.items[path] = item
        collection.modified = now
        self.signal(collection.path, COLLECTION, 'ItemCreated', 'o', path)
        return item

    def delete_item(self, item: Item) -> None:
        if item.collection.items.pop(item.path, None) is not None:
            item.collection.modified = int(time.time())
            self.signal(item.collection.path, COLLECTION, 'ItemDeleted', 'o', item.path)

    def check_content(self, value: bytes, content_type: str) -> None:
        """ksecretd (KF >= 6.28) refuses a text secret that is not UTF-8."""
        if self.personality == 'ksecretd' and content_type.startswith('text/'):
            try:
                value.decode('utf-8')
            except UnicodeDecodeError:
                raise DBusError(INVALID_ARGS, f'a {content_type} secret must be UTF-8') from None

    def reported_path(self, item: Item) -> str:
        return f'{EVIL_PATH}/item' if self.modes.on('bad-paths') else item.path

    # --- org.freedesktop.Secret.Service

    def service_OpenSession(self, target, algorithm, argument):
        if algorithm == 'plain':
            key, output = None, ('s', '')
        elif algorithm == DH_ALGORITHM and not self.modes.on('plain-only'):
            if argument[0] != 'ay':
                raise DBusError(INVALID_ARGS, f'{DH_ALGORITHM} takes an ay')
            ambiguous = self.modes.on('ambiguous-secret') and self.caller not in self.ambiguous_callers
            if ambiguous:
                self.ambiguous_callers.add(self.caller)
            key, public = dh_exchange(bytes(argument[1]), padded=self.personality != 'ksecretd',
                                      short=self.modes.on('short-public-key'), ambiguous=ambiguous)
            output = ('ay', public)
        else:
            raise DBusError(NOT_SUPPORTED, f'algorithm {algorithm!r} is not supported')
        path = f'{ROOT}/session/{next(self.session_ids)}'
        self.sessions[path] = Session(path, key)
        return output, path

    def service_SearchItems(self, target, attributes):
        items = self.search(attributes, self.collections.values())
        unlocked = [i.path for i in items if not i.locked]
        locked = [i.path for i in items if i.locked]
        if self.modes.on('bad-paths'):
            unlocked.append(f'{EVIL_PATH}/1')
            locked.append(f'{EVIL_PATH}/2')
        return unlocked, locked

    def service_Unlock(self, target, paths):
        unlocked, pending = [], []
        for path in paths:
            collection = self.collection_of(path)
            if collection is not None:
                (pending if collection.locked else unlocked).append(path)
        if not pending:
            return unlocked, '/'

        def unlock():
            for path in pending:
                collection = self.collection_of(path)
                if collection is not None:
                    self.set_locked(collection, False)
            return 'ao', pending
        return unlocked, self.new_prompt(unlock, 0.05)

    def service_Lock(self, target, paths):
        locked = []
        for path in paths:
            collection = self.collection_of(path)
            if collection is not None:
                self.set_locked(collection, True)
                locked.append(path)
        return locked, '/'

    def service_GetSecrets(self, target, paths, session_path):
        self.session(session_path)
        secrets = {}
        for path in paths:
            try:
                found = self.resolve(path)
            except DBusError:
                continue
            if found.kind == 'item' and not found.obj.locked:
                secrets[path] = self.seal_secret(session_path, found.obj)
        return (secrets,)

    def service_ReadAlias(self, target, alias):
        collection = self.collections.get(self.aliases.get(alias, ''))
        return (collection.path if collection else '/',)

    def service_SetAlias(self, target, alias, path):
        if path == '/':
            self.aliases.pop(alias, None)
            return ()
        found = self.resolve(path)
        if found.kind != 'collection':
            raise DBusError(NO_SUCH_OBJECT, f'{path} is not a collection')
        self.aliases[alias] = found.obj.name
        return ()

    def service_CreateCollection(self, target, properties, alias):
        existing = self.collections.get(self.aliases.get(alias, '')) if alias else None
        if existing is not None:
            return existing.path, '/'
        label = variant_value(properties, COLLECTION + '.Label', 's', '')
        name = re.sub(r'[^A-Za-z0-9_]', '_', label) or 'collection'
        while name in self.collections:
            name += '_'
        now = int(time.time())
        collection = self.collections[name] = Collection(name, label, now, now)
        if alias:
            self.aliases[alias] = name
        self.signal(ROOT, SERVICE, 'CollectionCreated', 'o', collection.path)
        return collection.path, '/'

    # --- org.freedesktop.Secret.Collection

    def collection_CreateItem(self, target, properties, secret, replace):
        collection = target.obj
        label = variant_value(properties, ITEM + '.Label', 's', '')
        attributes = variant_value(properties, ITEM + '.Attributes', 'a{ss}', {})
        value, content_type = self.open_secret(secret)
        self.check_content(value, content_type)
        if not (collection.locked or self.modes.on('prompt-always') or self.modes.on('prompt-never')):
            item = self.store_item(collection, label, attributes, value, content_type, replace)
            return self.reported_path(item), '/'

        def create():  # at the prompt's completion: unlock if need be, then create
            if collection.name not in self.collections:
                raise DBusError(NO_SUCH_OBJECT, 'the collection is gone')
            self.set_locked(collection, False)
            item = self.store_item(collection, label, attributes, value, content_type, replace)
            return 'o', self.reported_path(item)
        return '/', self.new_prompt(create, 0.05 if collection.locked else 0.02)

    def collection_SearchItems(self, target, attributes):
        paths = [item.path for item in self.search(attributes, [target.obj])]
        if self.modes.on('bad-paths'):
            paths.append(f'{EVIL_PATH}/1')
        return (paths,)

    def collection_Delete(self, target):
        collection = target.obj
        del self.collections[collection.name]
        self.aliases = {a: n for a, n in self.aliases.items() if n != collection.name}
        self.signal(ROOT, SERVICE, 'CollectionDeleted', 'o', collection.path)
        return ('/',)

    # --- org.freedesktop.Secret.Item

    def item_GetSecret(self, target, session_path):
        if target.obj.locked:
            raise DBusError(IS_LOCKED, f'{target.path} is locked')
        return (self.seal_secret(session_path, target.obj),)

    def item_SetSecret(self, target, secret):
        item = target.obj
        if item.locked:
            raise DBusError(IS_LOCKED, f'{target.path} is locked')
        value, content_type = self.open_secret(secret)
        self.check_content(value, content_type)
        item.secret, item.content_type = value, content_type
        item.modified = int(time.time())
        if self.personality == 'oo7':
            item.attributes['xdg:content-type'] = content_type
            self.signal(item.collection.path, COLLECTION, 'ItemChanged', 'o', item.path)
        return ()  # no signal, as gnome-keyring

    def item_Delete(self, target):
        item = target.obj
        if item.locked:
            raise DBusError(IS_LOCKED, f'{target.path} is locked')
        if not (self.modes.on('prompt-always') or self.modes.on('prompt-never')):
            self.delete_item(item)
            return ('/',)

        def delete():
            self.delete_item(item)
            return 's', ''
        return (self.new_prompt(delete, 0.02),)

    # --- org.freedesktop.Secret.Session and .Prompt

    def session_Close(self, target):
        self.sessions.pop(target.path, None)
        return ()

    def prompt_Prompt(self, target, window_id):
        prompt = target.obj
        if not prompt.never and not prompt.started:
            prompt.started = True
            self.later(prompt.delay, lambda: self.complete_prompt(prompt, dismissed=False))
        return ()

    def prompt_Dismiss(self, target):
        self.later(0, lambda: self.complete_prompt(target.obj, dismissed=True))
        return ()

    # --- org.gnome.keyring.InternalUnsupportedGuiltRiddenInterface (oo7)

    def internal_UnlockWithMasterPassword(self, target, path, secret):
        collection = self.collection_of(path)
        if collection is None:
            raise DBusError(NO_SUCH_OBJECT, f'no collection {path}')
        password, _ = self.open_secret(secret)
        if collection.locked and password != PASSWORD:
            raise DBusError(FAILED, 'Failed to unlock the collection: wrong password')
        self.set_locked(collection, False)
        return ()

    # --- org.freedesktop.DBus.Properties, .Introspectable, .Peer

    def property_interfaces(self, target: Target, interface: str) -> list:
        if interface == '':
            return [i for i in self.interfaces(target.kind) if i in PROPERTIES]
        if interface not in self.interfaces(target.kind):
            # As GDBus servers (gnome-keyring) answer: InvalidArgs, not UnknownInterface.
            raise DBusError(INVALID_ARGS, f"No such interface '{interface}' on object at path {target.path}")
        return [interface] if interface in PROPERTIES else []

    def find_property(self, target: Target, interface: str, name: str) -> tuple:
        for candidate in self.property_interfaces(target, interface):
            if name in PROPERTIES[candidate]:
                return candidate, PROPERTIES[candidate][name]
        raise DBusError(UNKNOWN_PROPERTY, f'no property {interface}.{name} on {target.path}')

    def property_value(self, target: Target, name: str):
        """What the server shows as property `name` of the object: a sealed
        collection's items show only hashed attributes (gnome-keyring's
        gkr:compat:hashed:NAME, the MD5 hex of the value), no label and no
        times; oo7 refuses a locked item's attributes; KeePassXC lists no
        items in a locked database."""
        obj = target.obj
        if (target.kind == 'item' and obj.collection.sealed and self.personality == 'gnome-keyring'
                and name in ('Attributes', 'Label', 'Created', 'Modified')):
            if name == 'Attributes':
                hashed = {f'gkr:compat:hashed:{key}': hashlib.md5(value.encode()).hexdigest()
                          for key, value in obj.attributes.items()}
                return {**hashed, 'xdg:schema': 'org.freedesktop.Secret.Generic'}
            return '' if name == 'Label' else 0
        if target.kind == 'item' and name == 'Attributes' and obj.locked and self.personality == 'oo7':
            raise DBusError(FAILED, f'Cannot get attributes of a locked object `{target.path}`.')
        if target.kind == 'collection' and name == 'Items' and obj.locked and self.personality == 'keepassxc-idle':
            return []
        return getattr(obj, PROPERTY_ATTRIBUTES[name])

    def props_Get(self, target, interface, name):
        _, signature = self.find_property(target, interface, name)
        return ((signature, self.property_value(target, name)),)

    def props_GetAll(self, target, interface):
        return ({name: (sig, self.property_value(target, name))
                 for i in self.property_interfaces(target, interface)
                 for name, sig in PROPERTIES[i].items()},)

    def props_Set(self, target, interface, name, value):
        interface, signature = self.find_property(target, interface, name)
        if (interface, name) not in SETTABLE:
            raise DBusError(READ_ONLY, f'{interface}.{name} is read-only')
        if value[0] != signature:
            raise DBusError(INVALID_ARGS, f'{name} is of type {signature}, not {value[0]}')
        obj = target.obj
        if obj.locked:
            raise DBusError(IS_LOCKED, f'{target.path} is locked')
        setattr(obj, PROPERTY_ATTRIBUTES[name], dict(value[1]) if signature == 'a{ss}' else value[1])
        obj.modified = int(time.time())
        if target.kind == 'item':
            self.signal(obj.collection.path, COLLECTION, 'ItemChanged', 'o', obj.path)
        else:
            self.signal(ROOT, SERVICE, 'CollectionChanged', 'o', obj.path)
        return ()

    def introspect_Introspect(self, target):
        return (introspection_xml(self.interfaces(target.kind)),)

    def peer_Ping(self, target):
        return ()

    def peer_GetMachineId(self, target):
        for path in ('/etc/machine-id', '/var/lib/dbus/machine-id'):
            if os.path.exists(path):
                with open(path) as file:
                    return (file.read().strip(),)
        raise DBusError(FAILED, 'no machine id')

    # --- io.github.keychainkit.FakeControl

    def control_SetMode(self, target, name, arg):
        try:
            self.modes.set(name, arg)
        except ValueError as error:
            raise DBusError(INVALID_ARGS, str(error)) from None
        if name == 'locked':
            for collection in self.collections.values():
                self.set_locked(collection, True)
        if name == 'idle-lock':
            self.schedule_idle_check()
        return ()

    def control_UnsetMode(self, target, name):
        self.modes.active.pop(name, None)
        return ()

    def control_ClearModes(self, target):
        self.modes.clear()
        return ()

    def control_Reset(self, target):
        self.reset()
        return ()

    def control_Stats(self, target):
        return (dict(self.stats),)

    def control_Items(self, target):
        return ([(item.path, item.attributes) for item in self.all_items()],)

    def control_Emit(self, target, kind, path, count, size):
        if kind not in EMITTABLE:
            raise DBusError(INVALID_ARGS, f'kind must be one of {", ".join(EMITTABLE)}')
        if not OBJECT_PATH.match(path):
            raise DBusError(INVALID_ARGS, f'{path!r} is not an object path')
        if size > MAX_PADDING:
            raise DBusError(INVALID_ARGS, 'bytes must be under 64 MiB')
        self.emit(kind, path, count, size)
        return ()

    def control_SetModified(self, target, path, when):
        item = next((item for item in self.all_items() if item.path == path), None)
        if item is None:
            raise DBusError(INVALID_ARGS, f'no item at {path}')
        item.modified = when
        return ()

    def control_RestartLocked(self, target):
        """As a daemon killed and started again without its password: answers,
        leaves the bus (sessions and prompts are gone), comes back under a new
        unique name with every collection locked and sealed but "session",
        which is empty and unlocked (it was only in memory)."""
        self.later(0, self.restart_locked)
        return ()

    def restart_locked(self) -> None:
        self.conn.close()
        self.sessions.clear()
        self.prompts.clear()
        for collection in self.collections.values():
            if collection.name == 'session':  # kept in memory only: gone, made anew
                collection.items.clear()
                collection.locked = False
            else:
                collection.locked = collection.sealed = True
        self.conn = own_bus_name()
        self.log(f'restarted locked as {self.conn.unique_name}')

    def control_EmitWithFds(self, target, count):
        with open(os.devnull, 'rb') as file:
            for _ in range(count):
                self.signal(self.login_path(), COLLECTION, 'ItemChanged', 'oh',
                            self.some_item_path(), file.fileno())
        return ()


# ---------------------------------------------------------------- main

def own_bus_name():
    """A new connection to the session bus that owns BUS_NAME."""
    conn = open_dbus_connection('SESSION', enable_fds=True)
    reply = conn.send_and_get_reply(message_bus.RequestName(BUS_NAME, DBusNameFlags.do_not_queue))
    if reply.body != (1,):  # 1: DBUS_REQUEST_NAME_REPLY_PRIMARY_OWNER
        conn.close()
        raise ConnectionError(f'could not own {BUS_NAME} ({reply.body})')
    return conn


def parse_arguments(argv):
    parser = argparse.ArgumentParser(
        description='A hostile fake Secret Service for tests (see IntegrationTests/hostile/README.md).')
    parser.add_argument('--mode', action='append', default=[], metavar='NAME[=ARG]',
                        help='turn a mode on (repeatable; --list-modes lists them)')
    parser.add_argument('--verbose', action='store_true', help='log calls and errors to stderr')
    parser.add_argument('--print-ready', action='store_true',
                        help='print "ready" on stdout once the bus name is owned')
    parser.add_argument('--first-item', type=int, default=1, metavar='N',
                        help="number each collection's items from N (another server's item paths, reused)")
    parser.add_argument('--collection', metavar='NAME',
                        help='name the default collection NAME (another server\'s, whose paths are reused)')
    parser.add_argument('--check-modes', action='store_true',
                        help='only check the --mode arguments, then exit')
    parser.add_argument('--list-modes', action='store_true', help='print the modes and exit')
    args = parser.parse_args(argv)
    args.modes = Modes()
    for spec in args.mode:
        name, _, arg = spec.partition('=')
        try:
            args.modes.set(name, arg)
        except ValueError as error:
            parser.error(str(error))
    return args


def main(argv=None) -> int:
    args = parse_arguments(argv)
    if args.list_modes:
        for name, mode in MODES.items():
            print(f'{name}{"=" + mode.arg if mode.arg else ""}\n    {mode.summary}')
        for name, summary in PERSONALITIES.items():
            print(f'personality={name}\n    {summary}')
        return 0
    if args.check_modes:
        return 0

    def log(text):
        if args.verbose:
            print(f'fake-secret-service: {text}', file=sys.stderr, flush=True)

    try:
        conn = own_bus_name()
    except ConnectionError as error:
        print(f'fake-secret-service: {error}', file=sys.stderr)
        return 1
    server = FakeSecretService(conn, args.modes, log, args.first_item, args.collection)
    log(f'serving {BUS_NAME} as {conn.unique_name} with modes {args.modes.active}')
    if args.print_ready:
        print('ready', flush=True)
    try:
        server.serve()
    except (ConnectionError, OSError, EOFError) as error:
        log(f'bus connection closed: {error!r}')
    except KeyboardInterrupt:
        pass
    return 0


if __name__ == '__main__':
    sys.exit(main())
