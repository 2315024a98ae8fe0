#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# make bench: builds the C benchmarks and runs every comparison in one run,
# against one private gnome-keyring, then prints the table (bench/report.py).
# Usage: bench/run.sh [full|tiny]   (tiny: a few rounds, so make test keeps it alive)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
scale=${1:-full}
out="$root/build/bench"
mkdir -p "$out"
lib="$root/build/lib"
python=$("$root/scripts/python-venv.sh")
"$python" -m pip install --quiet --disable-pip-version-check "$root/bindings/python"

case "$scale" in
    full) rounds=300 py_rounds=300 process_rounds=120 memory_ops=1000000 observers=10000 loading_processes=20 writes=100 observed_rounds=100 batch_rounds=20 listed=1000 server_items="100 5000" flood="2000 5" ;;
    tiny) rounds=3 py_rounds=3 process_rounds=2 memory_ops=1000 observers=100 loading_processes=2 writes=2 observed_rounds=2 batch_rounds=2 listed=20 server_items="5 10" flood="20 1" ;;
    *) echo "usage: $0 [full|tiny]" >&2; exit 2 ;;
esac

cflags="-O2 -std=c11 -Wall -Wextra -Werror -pthread -I$root/include -I$root/bench"
linked="-L$lib -lkeychainkit -Wl,-rpath,$lib"
# libsystemd: the bare sd-bus round trip that the freshness barrier costs.
gcc $cflags "$root/bench/bench_secret_service.c" -o "$out/bench_secret_service" \
    $(pkg-config --cflags --libs libsecret-1 libsystemd) $linked
gcc $cflags "$root/bench/bench_batch.c" -o "$out/bench_batch" $(pkg-config --cflags --libs libsecret-1) $linked
gcc $cflags "$root/bench/bench_contention.c" -o "$out/bench_contention" $(pkg-config --cflags --libs libsecret-1) $linked
gcc $cflags "$root/bench/bench_outside_changes.c" -o "$out/bench_outside_changes" $linked
gcc $cflags "$root/bench/bench_memory.c" -o "$out/bench_memory" $linked
gcc $cflags "$root/bench/bench_loading.c" -o "$out/bench_loading" -ldl
gcc $cflags "$root/bench/bench_file.c" -o "$out/bench_file" $(pkg-config --cflags --libs libsecret-1) $linked
gcc $cflags "$root/bench/bench_server.c" -o "$out/bench_server" $(pkg-config --cflags --libs libsecret-1)
# The floor of a whole-process read (bench/floor.c): sd-bus and the
# library's own DH and AES code, nothing else.
gcc $cflags -I"$root/Sources/CKeychainKitCrypto/include" "$root/bench/floor.c" \
    "$root/Sources/CKeychainKitCrypto/transfer_crypto.c" -o "$out/kk_floor" $(pkg-config --cflags --libs libsystemd libgcrypt)
export KEYCHAINKIT_BENCH_FLOOR="$out/kk_floor"
# The floor of a server (bench/server_floor.c): the protocol alone.
gcc $cflags -I"$root/Sources/CKeychainKitCrypto/include" "$root/bench/server_floor.c" \
    "$root/Sources/CKeychainKitCrypto/transfer_crypto.c" -o "$out/kk_server_floor" $(pkg-config --cflags --libs libsystemd libgcrypt)

export KEYCHAINKIT_BENCH_GIT_LIBSECRET
KEYCHAINKIT_BENCH_GIT_LIBSECRET=$("$root/scripts/build-git-credential-libsecret.sh")
results="$out/results.jsonl"
: > "$results"
"$out/bench_loading" "$lib/libkeychainkit.so.0" "$loading_processes" >> "$results"
"$out/bench_memory" "$memory_ops" "$observers" >> "$results"
# No D-Bus: both file backends run without one.
mkdir -p "$out/file" && env -u DBUS_SESSION_BUS_ADDRESS "$out/bench_file" "$rounds" "$process_rounds" \
    "$root/build/bin/keychainkit" "$out/file" >> "$results"
KEYCHAINKIT_LIBRARY="$lib/libkeychainkit.so.0" "$root/scripts/with-secret-service.sh" sh -c '
    "$1" "$2" && "$8" "$9" && "${10}" "${11}" && "$3" "$4/bench/bench_python.py" "$5" "$6" "$7"' sh \
    "$out/bench_secret_service" "$rounds" "$python" "$root" "$py_rounds" "$process_rounds" "$root/build/bin/keychainkit" \
    "$out/bench_contention" "$writes" "$out/bench_outside_changes" "$observed_rounds" \
    >> "$results"
# A keyring of its own: the batch and listing comparisons need over a
# thousand items, which would slow every other measurement.
"$root/scripts/with-secret-service.sh" "$out/bench_batch" "$batch_rounds" "$listed" >> "$results"
# keychainkitd against gnome-keyring: the same clients (libsecret, secret-tool)
# on a private bus each, one after the other, each collection filled from empty.
# shellcheck disable=SC2086 # $server_items is two numbers
"$root/scripts/with-keychainkitd.sh" "$out/bench_server" keychainkitd "$rounds" "$process_rounds" $server_items >> "$results"
# shellcheck disable=SC2086
"$root/scripts/with-secret-service.sh" "$out/bench_server" gnome-keyring "$rounds" "$process_rounds" $server_items >> "$results"
# The same lookups against the floor of a server, on a private bus of its own:
# what any server's lookup costs on this machine.
# shellcheck disable=SC2016,SC2086 # the script's own arguments; $server_items is two numbers
dbus-run-session -- sh -c '"$1" & server=$!
    tries=0
    until gdbus call --session -d org.freedesktop.DBus -o /org/freedesktop/DBus \
        -m org.freedesktop.DBus.NameHasOwner org.freedesktop.secrets 2>/dev/null | grep -q true; do
        tries=$((tries + 1)); [ "$tries" -lt 100 ] || { echo "the floor server did not start" >&2; exit 1; }
        sleep 0.05
    done
    shift; status=0; "$@" || status=$?; kill "$server"; exit "$status"' sh \
    "$out/kk_server_floor" "$out/bench_server" --lookups-only "the floor server" "$rounds" "$process_rounds" $server_items \
    >> "$results"
# A call behind another client's flood of searches sent at once (bench_flood.py).
# shellcheck disable=SC2086 # $flood is two numbers
"$root/scripts/with-keychainkitd.sh" "$python" "$root/bench/bench_flood.py" keychainkitd $flood >> "$results"
# shellcheck disable=SC2086
"$root/scripts/with-secret-service.sh" "$python" "$root/bench/bench_flood.py" gnome-keyring $flood >> "$results"

libraries=$(ldd "$lib/libkeychainkit.so.0" | awk '{print $1}' | tr '\n' ' ')
cat > "$out/context.json" <<JSON
{
  "scale": "$scale",
  "machine": "$(uname -srm), $(nproc) cores, $(sed -n 's/^model name\s*: //p' /proc/cpuinfo | head -1)",
  "swift": "$(swift --version 2>&1 | head -1)",
  "libsecret": "$(pkg-config --modversion libsecret-1)",
  "libsystemd (sd-bus)": "$(pkg-config --modversion libsystemd)",
  "gnome-keyring": "$(dpkg-query -W -f='${Version}' gnome-keyring)",
  "python keyring": "$("$python" -c 'import importlib.metadata as m; print(m.version("keyring"))')",
  "rounds": "Secret Service C $rounds, Python $py_rounds, processes $process_rounds, writes per writer process $writes (x4 writers x3 repetitions), observed outside changes $observed_rounds x3, batch and listing $batch_rounds, loading (fresh processes) $loading_processes, in-memory ops $memory_ops, observers $observers",
  "items in keyring": "a handful (fresh private keyring per run); for the batch and listing comparisons, $listed + 100 (a keyring of their own); keychainkitd against gnome-keyring: collections of ${server_items% *} and ${server_items#* } items",
  "libkeychainkit.so size": "$(stat -c %s "$(readlink -f "$lib/libkeychainkit.so.0")") bytes",
  "libraries it pulls in": "$libraries"
}
JSON
"$python" "$root/bench/report.py" "$results" "$out/context.json" "$out/results.json"
