#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Writes the seed corpus of kk_fuzz_file.c into IntegrationTests/fuzz/corpus-file/ and
# the hand-made inputs of IntegrationTests/fuzz/regressions-file/ (the files are
# committed; rerun this after changing the seeds, the harness' master or the
# file format). Regressions the fuzzer found are added by hand and are not
# touched here.
#
#   IntegrationTests/fuzz/gen_corpus_file.sh [LIBDIR]
#
# Needs secret-tool (libsecret-tools: libsecret's file backend works without
# D-Bus), libkeychainkit.so in LIBDIR (default build/lib), a C compiler ($CC,
# else clang, else cc) and a python3 with gi (GLib; /usr/bin/python3 on
# Debian with python3-gi); AES comes from python's cryptography package, else
# libgcrypt (glib_check.py's AES128CBC).
#
# Every seed is a real keyring file sealed with the harness' master
# "fuzz-master", written by libsecret (secret-tool), by the library
# (kk_file_writer.c) or both. All share one salt: each starts as a copy of
# one libsecret file, and both libsecret and the library keep a file's salt
# when they write it; so the harness' live handle derives its key (100,000
# PBKDF2 rounds) once, not at every input.
#
# A regression's name ends in the status kk_open_file must return for it
# (.OK, .ECORRUPT, .EWRONGKEY); IntegrationTests/fuzz/run.sh checks it. The
# structural ones are made with GLib (GLib.Variant of (uayutua(a{say}ay)))
# from the seed libsecret-one, then patched; the item-* ones hold items the
# generator sealed itself with the master's key (their MACs verify, their
# insides are wrong); see regressions-file/README.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
libdir=$(cd "${1:-$root/build/lib}" && pwd)
corpus="$here/corpus-file"
regressions="$here/regressions-file"
master=fuzz-master
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

cc=${CC:-}
[ -n "$cc" ] || { command -v clang >/dev/null 2>&1 && cc=clang; } || cc=cc
"$cc" -O1 -std=c11 -I"$root/include" -o "$work/writer" "$here/kk_file_writer.c" \
    -L"$libdir" -lkeychainkit -Wl,-rpath,"$libdir"
python=""
for candidate in python3 /usr/bin/python3; do
    if "$candidate" -c 'import gi; gi.require_version("GLib", "2.0"); from gi.repository import GLib' 2>/dev/null; then
        python=$candidate
        break
    fi
done
[ -n "$python" ] || { echo "no python3 with gi (GLib): install python3-gi" >&2; exit 1; }

# secret-tool on the file FILE with master MASTER (default the harness').
st() {
    file=$1
    shift
    env -u DBUS_SESSION_BUS_ADDRESS SECRET_BACKEND=file SECRET_FILE_TEST_PATH="$file" \
        SECRET_FILE_TEST_PASSWORD="${MASTER:-$master}" secret-tool "$@"
}
# kk_file_writer on FILE with MASTER (default the harness').
ours() {
    file=$1
    shift
    "$work/writer" "$file" "${MASTER:-$master}" "$@"
}
# A new working file, a copy of $1 (mode 0600, as both writers demand).
from() {
    cp "$1" "$work/$2"
    chmod 600 "$work/$2"
    echo "$work/$2"
}

mkdir -p "$corpus" "$regressions"
rm -f "$corpus"/*

# ---- libsecret's files -------------------------------------------------------
base="$work/base"
printf 'hunter2' | st "$base" store --label=L service svc username alice
cp "$base" "$corpus/libsecret-one"

f=$(from "$base" empty)
st "$f" clear service svc username alice
cp "$f" "$corpus/libsecret-empty"
empty=$f

f=$(from "$base" three)
printf 's3cret' | st "$f" store --label=Bob service svc username bob
printf 'e' | st "$f" store --label=Empty service svc username ''
printf 'other' | st "$f" store --label=Other service other username alice
cp "$f" "$corpus/libsecret-three"
three=$f

# a value that is not UTF-8 (NUL, 0xFF, a stray continuation byte)
f=$(from "$empty" binary)
printf '\377\376\000\001\200' | st "$f" store --label=Binary service svc username alice
cp "$f" "$corpus/libsecret-binary"

# more attributes than service and username
f=$(from "$empty" extra)
printf 'v' | st "$f" store --label=Extra service svc username alice xdg:schema org.example.Extra note '' n 42
cp "$f" "$corpus/libsecret-extra-attributes"

# sealed with another master: kk_open_file says KK_EWRONGKEY
f=$(from "$empty" other-master)
printf 'x' | MASTER=another-master st "$f" store --label=O service svc username alice
cp "$f" "$corpus/libsecret-other-master"

# one item of ours and one of another master's: opens, the other kept as it is
f=$(from "$base" mixed)
printf 'x' | MASTER=another-master st "$f" store --label=O service svc username mallory
cp "$f" "$corpus/libsecret-mixed-masters"

# ---- the library's files -------------------------------------------------------
f=$(from "$empty" ours-one)
ours "$f" set svc alice hunter2
cp "$f" "$corpus/ours-one"

f=$(from "$empty" ours-accounts)
ours "$f" set svc '' empty set svc "$(printf '\303\251')" accent set svc alice 'x:00ff0080' set svc bob ''
cp "$f" "$corpus/ours-accounts"

# a 300-byte value: the items' framing offsets take 2 bytes
f=$(from "$empty" ours-300)
ours "$f" set svc alice n:300
cp "$f" "$corpus/ours-300-byte-value"

f=$(from "$empty" ours-login)
ours "$f" login git.example.com alice https 443 token set svc alice pw
cp "$f" "$corpus/ours-server-login"

# libsecret's items, one updated and one removed by us
f=$(from "$three" ours-over-libsecret)
ours "$f" set svc alice updated remove svc bob
cp "$f" "$corpus/ours-over-libsecret"

# two items of one key: ours, then libsecret's with one more attribute
f=$(from "$empty" duplicates)
ours "$f" set svc alice first
printf 'second' | st "$f" store --label=Dup service svc username alice extra 1
cp "$f" "$corpus/duplicates"

# ---- hand-made regressions -----------------------------------------------------
cp "$corpus/libsecret-one" "$regressions/libsecret-one-item.OK"
cp "$corpus/libsecret-other-master" "$regressions/libsecret-other-master.EWRONGKEY"
"$python" - "$corpus/libsecret-one" "$regressions" "$master" "$here" <<'EOF'
import hashlib
import hmac
import sys
import gi
gi.require_version('GLib', '2.0')
from gi.repository import GLib

seed, out, master, here = sys.argv[1:]
sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, here)
from glib_check import AES128CBC  # noqa: E402
raw = open(seed, 'rb').read()
HEADER = b'GnomeKeyring\n\r\x00\n'
VERSION = b'\x01\x00'
TYPE = '(uayutua(a{say}ay))'
assert raw[:16] == HEADER and raw[16:18] == VERSION
body = raw[18:]
v = GLib.Variant.new_from_bytes(GLib.VariantType(TYPE), GLib.Bytes.new(body), False)
assert v.is_normal_form()
salt_size, salt, iterations, modified, usage, items = v.unpack()
assert len(items) == 1


def build(salt_size=salt_size, salt=salt, iterations=iterations, items=items):
    """A keyring file of these fields, serialized by GLib (normal form)."""
    value = GLib.Variant(TYPE, (salt_size, list(salt), iterations, modified, usage, items))
    return HEADER + VERSION + value.get_data_as_bytes().get_data()


def width(size):
    """GLib's framing offset width for a container of `size` bytes."""
    return 0 if size == 0 else 1 if size <= 0xFF else 2 if size <= 0xFFFF else 4


def write(name, data):
    with open(f'{out}/{name}', 'wb') as f:
        f.write(data)


assert build() == raw
w_outer = width(len(body))
array_start, array_end = 52, len(body) - w_outer   # after u, ay, u, t, u (the salt is 32 bytes)
w_array = width(array_end - array_start)

write('empty-file.ECORRUPT', b'')
write('truncated-header.ECORRUPT', raw[:10])
write('header-without-version.ECORRUPT', raw[:16])
write('version-2-0.ECORRUPT', HEADER + b'\x02\x00' + body)
write('body-truncated.ECORRUPT', raw[:18 + 40])
# the salt's end (the outer tuple's one framing offset) past the body
write('salt-end-out-of-bounds.ECORRUPT', raw[:-w_outer] + b'\xff' * w_outer)
# the items array's offsets start (its last framing offset) past the array
cut = 18 + array_end
write('items-offset-out-of-bounds.ECORRUPT', raw[:cut - w_array] + b'\xff' * w_array + raw[cut:])
write('salt-size-mismatch.ECORRUPT', build(salt_size=31))
write('iterations-99999.ECORRUPT', build(iterations=99999))
write('iterations-0.ECORRUPT', build(iterations=0))
write('salt-31-bytes.ECORRUPT', build(salt_size=31, salt=salt[:31]))
# hashed attribute names that are no GVariant strings (same length: framing intact)
assert raw.count(b'service\x00') == 1
write('attribute-name-not-utf8.ECORRUPT', raw.replace(b'service\x00', b'servic\xff\x00'))
write('attribute-name-holding-nul.ECORRUPT', raw.replace(b'service\x00', b'serv\x00ce\x00'))
write('attribute-name-without-nul.ECORRUPT', raw.replace(b'service\x00', b'servicex'))
# the only item's MAC does not verify / its blob cannot hold IV and MAC
attributes, blob = items[0]
write('mac-corrupted.EWRONGKEY', build(items=[(attributes, list(blob[:-1]) + [blob[-1] ^ 1])]))
write('ciphertext-corrupted.EWRONGKEY', build(items=[(attributes, [blob[0] ^ 0x80] + list(blob[1:]))]))
write('blob-too-short.ECORRUPT', build(items=[(attributes, list(blob[:47]))]))
# 2^32-1 PBKDF2 rounds: see regressions-file/README (an open bug)
write('iterations-4294967295.ECORRUPT', build(iterations=0xFFFFFFFF))

# Items sealed with the master's key (their MACs verify) whose insides are
# wrong: the whole file is KK_ECORRUPT. Sealed here as the library and
# libsecret seal: AES-128-CBC, IV, HMAC-SHA256 over ciphertext and IV.
aes = AES128CBC()
key = hashlib.pbkdf2_hmac('sha256', master.encode(), bytes(salt), iterations, 16)
iv = bytes(range(16))


def mac(data):
    return hmac.new(key, data, hashlib.sha256).digest()


def seal(plaintext, pad=True):
    """A blob of `plaintext`, PKCS#7-padded unless told (then it is the
    ciphertext's length as it is, not a whole number of blocks maybe)."""
    if pad:
        n = 16 - len(plaintext) % 16
        plaintext += bytes([n]) * n
    whole = len(plaintext) - len(plaintext) % 16
    ciphertext = aes.encrypt(key, iv, plaintext[:whole]) + plaintext[whole:]
    return list(ciphertext + iv + mac(ciphertext + iv))


def item(attributes, label='L', secret=b'v'):
    return GLib.Variant('(a{ss}sttay)', (attributes, label, 1, 2, list(secret))).get_data_as_bytes().get_data()


def hashed(attributes):
    return {name: list(mac(value.encode())) for name, value in sorted(attributes.items())}


keyed = {'service': 'svc', 'username': 'alice'}
good = (hashed(keyed), seal(item(keyed)))
assert build(items=[good]) != raw  # a new IV and times, but a file of the same shape
write('item-sealed-by-generator.OK', build(items=[good]))
write('item-padding-wrong.ECORRUPT', build(items=[(hashed(keyed), seal(item(keyed) + b'\x00' * (16 - len(item(keyed)) % 16), pad=False))]))
write('item-empty-ciphertext.ECORRUPT', build(items=[(hashed(keyed), seal(b'', pad=False))]))
write('item-partial-block.ECORRUPT', build(items=[(hashed(keyed), seal(item(keyed)[:20], pad=False))]))
write('item-plaintext-not-gvariant.ECORRUPT', build(items=[(hashed(keyed), seal(b'\xff' * 40))]))
write('item-plaintext-truncated.ECORRUPT', build(items=[(hashed(keyed), seal(item(keyed)[:len(item(keyed)) // 2]))]))
plain = item(keyed)
assert plain.count(b'alice\x00') == 1
write('item-attribute-not-utf8.ECORRUPT', build(items=[(hashed(keyed), seal(plain.replace(b'alice\x00', b'alic\xc3\x00')))]))
# a damaged item beside a good one: the file is damaged all the same
write('item-damaged-beside-good.ECORRUPT', build(items=[good, (hashed(keyed), seal(b'\xff' * 40))]))
# an item of no key (no service, no username): opens; nothing is listed
other = {'xdg:schema': 'org.example.Other', 'note': 'n'}
write('item-without-key-attributes.OK', build(items=[(hashed(other), seal(item(other)))]))
EOF
chmod 644 "$corpus"/* "$regressions"/*
echo "wrote $(ls "$corpus" | wc -l) seeds to $corpus"
echo "wrote the hand-made regressions to $regressions"
