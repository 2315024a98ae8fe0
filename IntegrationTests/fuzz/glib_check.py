#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Cross-checks the library's GVariant encoding of keyring files against GLib.

    glib_check.py WRITER DIR

WRITER is kk_file_writer (kk_file_writer.c, linked with libkeychainkit.so);
DIR a scratch directory. It writes a keyring file through the library
(kk_open_file + kk_set: an empty account, non-ASCII service, account and
value, NUL bytes, an empty value, a 300-byte value and a 70,000-byte one, so
that framing offsets take 1, 2 and 4 bytes; a server login), then checks:

1. the file is "GnomeKeyring\\n\\r\\0\\n", 01 00, then a GVariant that GLib
   (GLib.Variant.new_from_bytes of (uayutua(a{say}ay)), untrusted) finds in
   normal form, whose normal form (get_normal_form().get_data_as_bytes())
   is our bytes exactly, and which GLib serializes again to our bytes;
2. each item, decrypted (PBKDF2-HMAC-SHA256 of the master over the salt, to
   16 bytes; AES-128-CBC; HMAC-SHA256 over ciphertext and IV), is a
   (a{ss}sttay) in GLib's normal form too, with PKCS#7 padding; its stored
   attribute MACs are HMAC-SHA256 of the values; names sorted by bytes; the
   items hold exactly the values written;
3. libsecret (secret-tool, SECRET_BACKEND=file), when installed, reads each
   keyed value back byte for byte.

Needs python3 with gi (GLib) and, for AES, the cryptography package or
libgcrypt (through ctypes; the library links it anyway). Prints what it
checked; exits 0 when everything holds, 1 otherwise.
"""
import ctypes
import ctypes.util
import hashlib
import hmac
import os
import shutil
import subprocess
import sys

import gi

gi.require_version('GLib', '2.0')
from gi.repository import GLib  # noqa: E402

HEADER = b'GnomeKeyring\n\r\x00\n'
VERSION = b'\x01\x00'
FILE_TYPE = '(uayutua(a{say}ay))'
ITEM_TYPE = '(a{ss}sttay)'
MASTER = b'glib-check-master'

failures = []


def check(condition, what):
    print(('ok   ' if condition else 'FAIL ') + what)
    if not condition:
        failures.append(what)
    return condition


def pattern(n):
    return bytes(i % 256 for i in range(n))


# (service, account, value): what the writer stores, and the files must hold.
ITEMS = [
    ('svc', 'alice', b'hunter2'),
    ('svc', '', b'the empty account'),
    ('svc', '\u00e9t\u00e9', '\u00fcn\u00efc\u00f8d\u00e9 \u2713 \U0001f511'.encode()),
    ('\u65e5\u672c', '\u00df', b'x'),
    ('svc', 'nul', b'\x00\xff\x00\x80'),
    ('svc', 'empty-value', b''),
    ('svc', 'v300', pattern(300)),
    ('svc', 'v70000', pattern(70000)),
]


def value_arg(value):
    if value == pattern(len(value)) and len(value) > 64:
        return f'n:{len(value)}'
    return 'x:' + value.hex()


def normal_form_bytes(type_string, data):
    """GLib's reading of untrusted `data`: (is_normal_form, normal form bytes, value)."""
    variant = GLib.Variant.new_from_bytes(GLib.VariantType(type_string), GLib.Bytes.new(data), False)
    return variant.is_normal_form(), variant.get_normal_form().get_data_as_bytes().get_data(), variant


def offset_width(size):
    return 0 if size == 0 else 1 if size <= 0xFF else 2 if size <= 0xFFFF else 4 if size <= 0xFFFFFFFF else 8


class AES128CBC:
    """AES-128-CBC without padding, with the cryptography package, else
    libgcrypt (through ctypes). Also used by gen_corpus_file.sh."""

    def __init__(self):
        try:
            from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes

            def run(encrypt, key, iv, data):
                cipher = Cipher(algorithms.AES(key), modes.CBC(iv))
                context = cipher.encryptor() if encrypt else cipher.decryptor()
                return context.update(data) + context.finalize()

            self.run = run
            self.name = 'cryptography'
            return
        except ImportError:
            pass
        name = ctypes.util.find_library('gcrypt') or 'libgcrypt.so.20'
        gcrypt = ctypes.CDLL(name)
        gcrypt.gcry_check_version.restype = ctypes.c_char_p
        gcrypt.gcry_check_version(None)
        GCRY_CIPHER_AES128, GCRY_CIPHER_MODE_CBC = 7, 3

        def run(encrypt, key, iv, data):
            handle = ctypes.c_void_p()
            assert gcrypt.gcry_cipher_open(ctypes.byref(handle), GCRY_CIPHER_AES128, GCRY_CIPHER_MODE_CBC, 0) == 0
            try:
                assert gcrypt.gcry_cipher_setkey(handle, key, len(key)) == 0
                assert gcrypt.gcry_cipher_setiv(handle, iv, len(iv)) == 0
                out = ctypes.create_string_buffer(len(data))
                step = gcrypt.gcry_cipher_encrypt if encrypt else gcrypt.gcry_cipher_decrypt
                assert step(handle, out, len(data), data, len(data)) == 0
                return out.raw
            finally:
                gcrypt.gcry_cipher_close(handle)

        self.run = run
        self.name = name

    def encrypt(self, key, iv, data):
        return self.run(True, key, iv, data)

    def decrypt(self, key, iv, data):
        return self.run(False, key, iv, data)


def main():
    writer, directory = sys.argv[1:3]
    path = os.path.join(directory, 'glib-check.keyring')
    for stale in (path, path + '.lock'):
        if os.path.exists(stale):
            os.unlink(stale)
    ops = []
    for service, account, value in ITEMS:
        ops += ['set', service, account, value_arg(value)]
    ops += ['login', 'git.example.com', 'bob', 'https', '443', 'x:' + b'login-pw'.hex()]
    result = subprocess.run([writer, path, MASTER.decode()] + ops, capture_output=True, text=True)
    if not check(result.returncode == 0, f'kk_file_writer wrote {path}'):
        print(result.stderr)
        return 1
    raw = open(path, 'rb').read()
    print(f'     {len(raw)} bytes, {len(ITEMS) + 1} items')

    # 1. the file's GVariant
    check(raw[:16] == HEADER and raw[16:18] == VERSION, 'header and version 1.0')
    body = raw[18:]
    normal, normal_bytes, variant = normal_form_bytes(FILE_TYPE, body)
    check(normal, f'GLib: the file body is in normal form ({FILE_TYPE})')
    check(normal_bytes == body, 'GLib: the normal form is our bytes exactly')
    salt_size, salt, iterations, modified, usage, items = variant.unpack()
    again = GLib.Variant(FILE_TYPE, (salt_size, salt, iterations, modified, usage, items))
    check(again.get_data_as_bytes().get_data() == body, 'GLib: serializing the values again gives our bytes')
    salt = bytes(salt)
    check(salt_size == len(salt) == 32, f'the salt: {len(salt)} bytes, size field {salt_size}')
    check(iterations == 100000, f'{iterations} PBKDF2 rounds')
    check(len(items) == len(ITEMS) + 1, f'{len(items)} items')
    check(offset_width(len(body)) == 4, f'the body ({len(body)} bytes) has 4-byte framing offsets')

    # 2. the items
    aes = AES128CBC()
    key = hashlib.pbkdf2_hmac('sha256', MASTER, salt, iterations, 16)
    found = {}
    widths = set()
    for index, (hashed, blob) in enumerate(items):
        blob = bytes(blob)
        names = list(hashed.keys())
        ciphertext, iv, mac = blob[:-48], blob[-48:-32], blob[-32:]
        if not check(hmac.compare_digest(hmac.new(key, blob[:-32], hashlib.sha256).digest(), mac),
                     f'item {index}: the MAC verifies'):
            continue
        padded = aes.decrypt(key, iv, ciphertext)
        pad = padded[-1] if padded else 0
        check(1 <= pad <= 16 and padded.endswith(bytes([pad]) * pad), f'item {index}: PKCS#7 padding')
        plaintext = padded[:-pad]
        widths.add(offset_width(len(plaintext)))
        normal, normal_bytes, item = normal_form_bytes(ITEM_TYPE, plaintext)
        check(normal and normal_bytes == plaintext,
              f'item {index}: GLib: {ITEM_TYPE} of {len(plaintext)} bytes in normal form, our bytes exactly')
        attributes, label, created, changed, secret = item.unpack()
        check(names == sorted(names, key=lambda n: n.encode()) and
              list(attributes) == sorted(attributes, key=lambda n: n.encode()),
              f'item {index}: attribute names sorted by bytes')
        check(set(names) == set(attributes) and all(
            hmac.compare_digest(bytes(hashed[n]), hmac.new(key, attributes[n].encode(), hashlib.sha256).digest())
            for n in names), f'item {index}: the stored attribute MACs are HMAC-SHA256 of the values')
        if 'service' in attributes:
            found[(attributes['service'], attributes.get('username'))] = bytes(secret)
    print(f'     AES from {aes.name}; item plaintexts with framing offsets of {sorted(widths)} bytes')
    check({1, 2, 4} <= widths, 'items with 1-, 2- and 4-byte framing offsets')
    for service, account, value in ITEMS:
        check(found.get((service, account)) == value, f'the item ({service!r}, {account!r}) holds the value written')

    # 3. libsecret reads ours
    if shutil.which('secret-tool'):
        env = dict(os.environ, SECRET_BACKEND='file', SECRET_FILE_TEST_PATH=path,
                   SECRET_FILE_TEST_PASSWORD=MASTER.decode())
        env.pop('DBUS_SESSION_BUS_ADDRESS', None)
        for service, account, value in ITEMS:
            got = subprocess.run(['secret-tool', 'lookup', 'service', service, 'username', account],
                                 env=env, capture_output=True)
            check(got.returncode == 0 and got.stdout == value,
                  f'secret-tool lookup ({service!r}, {account!r}): {len(got.stdout)} bytes')
    else:
        print('     (no secret-tool: libsecret not checked)')
    print(f'{len(failures)} failed' if failures else 'all checks hold')
    return 1 if failures else 0


if __name__ == '__main__':
    sys.exit(main())
