#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# make demo: builds the library and the tool, then stores, reads, observes
# and removes a secret through the C example, the Python binding and the
# keychainkit tool, saying what each step does. Uses your Secret Service
# when one answers on your session bus; otherwise starts a private one
# (scripts/with-secret-service.sh) that vanishes afterwards.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"

say() { if [ -t 1 ]; then printf '\n\033[1m== %s\033[0m\n' "$*"; else printf '\n== %s\n' "$*"; fi; }

if [ "${1:-}" != "--inside" ]; then
    say "Building libkeychainkit.so and the keychainkit tool (make lib cli)"
    make -s lib cli
    if [ -n "${DBUS_SESSION_BUS_ADDRESS:-}" ] &&
       timeout 3 gdbus call --session --dest org.freedesktop.secrets --object-path /org/freedesktop/secrets \
           --method org.freedesktop.DBus.Peer.Ping >/dev/null 2>&1; then
        say "Using your Secret Service (items go to service 'keychainkit-demo' and are removed at the end)"
        exec "$0" --inside
    fi
    say "No Secret Service on a session bus here: starting a private D-Bus session with a fresh gnome-keyring"
    exec scripts/with-secret-service.sh "$0" --inside
fi

lib="$root/build/lib"
kk="$root/build/bin/keychainkit"
service=keychainkit-demo
mkdir -p build/demo

say "C: examples/c/store_read_remove.c — kk_set, kk_get, kk_remove"
gcc -std=c11 -Wall -Iinclude examples/c/store_read_remove.c -o build/demo/store_read_remove \
    -L"$lib" -lkeychainkit -Wl,-rpath,"$lib"
build/demo/store_read_remove secret-service

say "C: examples/c/observe.c — a callback after every write to one key"
gcc -std=c11 -Wall -Iinclude examples/c/observe.c -o build/demo/observe \
    -L"$lib" -lkeychainkit -Wl,-rpath,"$lib"
build/demo/observe secret-service

say "Python: import keychainkit (ctypes over the same library)"
KEYCHAINKIT_LIBRARY="$lib/libkeychainkit.so.0" PYTHONPATH="$root/bindings/python" python3 - <<'PY'
from keychainkit import Keychain

with Keychain(service="keychainkit-demo") as kc:
    def on_change(event):
        print(f"  observer: {event.kind} of {event.account!r} -> {'ok' if event.ok else event.error}")

    with kc.observe("python-account", on_change):
        kc["python-account"] = "s3cret from Python"
        print("  stored; reading back:", kc["python-account"])
        del kc["python-account"]
    print("  removed; present now?", "python-account" in kc)
PY

say "CLI: keychainkit set reads the secret from stdin (never from arguments)"
printf 's3cret from the CLI\n' | "$kk" set --service "$service" cli-account
echo "  \$ keychainkit get --service $service cli-account"
"$kk" get --service "$service" cli-account | sed 's/^/  /'
echo "  \$ keychainkit ls --service $service"
"$kk" ls --service "$service" | sed 's/^/  /'
if command -v secret-tool >/dev/null; then
    echo "  secret-tool sees the same item: $(secret-tool lookup service "$service" username cli-account)"
fi
"$kk" rm --service "$service" cli-account
echo "  removed; keychainkit get now exits $("$kk" get --service "$service" cli-account >/dev/null 2>&1; echo $?) (1 = not found)"

say "Done. Next: make test (every test), make install (library, header, pkg-config, tool)"
