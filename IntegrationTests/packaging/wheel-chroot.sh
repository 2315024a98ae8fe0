#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The manylinux wheel of `make wheel` on a Debian 12 that has nothing of
# KeychainKit's: a minimal chroot (debootstrap --variant=minbase bookworm)
# with python3, python3-venv, dbus and gnome-keyring and what they depend on,
# no -dev package. In it, the wheel is pip-installed into a fresh venv with
# keyring, then the packaging run's smoke check (use_wheel.py) runs on memory
# and, with keyring's round trip through KeychainKit's backend
# (keyring_round_trip.py), on a gnome-keyring of its own: a private D-Bus
# session (dbus-run-session), unlocked with a password on stdin, as
# scripts/with-secret-service.sh does.
#
#   IntegrationTests/packaging/wheel-chroot.sh prepare
#   IntegrationTests/packaging/wheel-chroot.sh test WHEEL
#
# prepare makes the chroot in build/chroot/bookworm ($KEYCHAINKIT_CHROOT), or
# keeps the one there when an earlier prepare finished it (its stamp names
# the same suite and packages) and dpkg finds it sound: a machine pays for
# debootstrap once (about a minute) until build/ is removed. The packages
# come from $KEYCHAINKIT_DEBIAN_MIRROR (http://deb.debian.org/debian). test
# needs a prepared chroot; keyring and what it needs are fetched from PyPI
# by the project venv's pip on this machine (the chroot has no CA
# certificates) and installed in the chroot with --no-index.
#
# Needs root (debootstrap, chroot, mount). /proc and /dev are mounted in the
# chroot inside new mount and PID namespaces (unshare), so that neither a
# mount nor a process started in the chroot (gnome-keyring-daemon) outlives
# the command, even when it is killed; a trap unmounts them on a normal exit.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"

suite=bookworm
packages="python3 python3-venv dbus gnome-keyring"
mirror=${KEYCHAINKIT_DEBIAN_MIRROR:-http://deb.debian.org/debian}
dir=${KEYCHAINKIT_CHROOT:-$root/build/chroot/$suite}
wanted="debootstrap --variant=minbase $suite; apt-get install --no-install-recommends $packages"
stamp=.keychainkit-chroot

usage() { echo "usage: $0 prepare | test WHEEL" >&2; exit 2; }
[ "$(id -u)" -eq 0 ] || { echo "$0: needs root (debootstrap, chroot, mount); run it as root, as CI does" >&2; exit 1; }

# in_chroot DIR COMMAND...: COMMAND in the chroot DIR, with a clean
# environment, /proc (of a PID namespace of its own) and the machine's /dev.
in_chroot() {
    unshare --mount --pid --fork --kill-child sh -c '
        d=$1; shift
        trap "umount \"\$d/dev\" 2>/dev/null; umount \"\$d/proc\" 2>/dev/null" EXIT
        mount -t proc proc "$d/proc" && mount --bind /dev "$d/dev" || exit 1
        status=0
        env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 chroot "$d" "$@" || status=$?
        exit "$status"' sh "$@"
}

# Removes a chroot left by an earlier run, never across a mount (none should
# be left: each lived in a namespace of its own).
remove_chroot() {
    [ -e "$1" ] || return 0
    if awk -v d="$1" '$2 == d || index($2, d "/") == 1 {found = 1} END {exit !found}' /proc/self/mounts; then
        echo "$1: something is mounted inside it; not removing it" >&2
        return 1
    fi
    rm -rf --one-file-system "$1"
}

# Why the chroot in $1 is not the one wanted (prints nothing when it is).
unsound() {
    local d=$1
    [ -f "$d/$stamp" ] || { echo "$d: no finished chroot (no $stamp)"; return; }
    [ "$(cat "$d/$stamp")" = "$wanted" ] || { echo "$d: made by '$(cat "$d/$stamp")', not '$wanted'"; return; }
    in_chroot "$d" sh -c '
        audit=$(dpkg --audit 2>&1); [ -z "$audit" ] || echo "dpkg --audit: $audit"
        for package in '"$packages"'; do
            dpkg-query -W -f="\${Status}" "$package" 2>/dev/null | grep -q "install ok installed" || echo "$package: not installed"
        done
        for program in python3 dbus-run-session dbus-send gnome-keyring-daemon; do
            command -v "$program" >/dev/null || echo "no $program"
        done' 2>&1 || echo "$d: cannot run a command in it"
}

# No -dev package and nothing of KeychainKit's (no package, no library file).
nothing_of_ours() {
    in_chroot "$1" sh -c '
        dev=$(dpkg-query -W -f="\${Package}\n" | grep -E -- "-dev(:|$)|keychainkit") || true
        [ -z "$dev" ] || echo "installed: $dev"
        found=$(find / -xdev -name "libkeychainkit*" -not -path "/tmp/keychainkit-wheel-test/*" | head -n 5)
        [ -z "$found" ] || echo "found: $found"' 2>&1 || echo "$1: cannot run a command in it"
}

prepare() {
    local problem start=$SECONDS
    problem=$(unsound "$dir")
    if [ -z "$problem" ]; then
        echo "kept $dir ($(du -sh --one-file-system "$dir" | cut -f1))"
    else
        echo "making $dir: $problem"
        remove_chroot "$dir" && remove_chroot "$dir.new" || return 1
        mkdir -p "$(dirname "$dir")"
        debootstrap --variant=minbase "$suite" "$dir.new" "$mirror" > "$dir.log" 2>&1 ||
            { tail -n 20 "$dir.log"; echo "debootstrap failed (log: $dir.log)"; return 1; }
        cp /etc/resolv.conf "$dir.new/etc/resolv.conf"
        # No service starts in the chroot (dbus's postinst would start a system bus).
        printf '#!/bin/sh\nexit 101\n' > "$dir.new/usr/sbin/policy-rc.d"
        chmod 755 "$dir.new/usr/sbin/policy-rc.d"
        in_chroot "$dir.new" sh -c "apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $packages && apt-get clean" \
            >> "$dir.log" 2>&1 || { tail -n 20 "$dir.log"; echo "apt-get install failed (log: $dir.log)"; return 1; }
        echo "$wanted" > "$dir.new/$stamp"
        problem=$(unsound "$dir.new")
        [ -z "$problem" ] || { echo "the new chroot is not sound: $problem"; return 1; }
        mv "$dir.new" "$dir"
        echo "made $dir in $((SECONDS - start)) s ($(du -sh --one-file-system "$dir" | cut -f1))"
    fi
    problem=$(nothing_of_ours "$dir")
    [ -z "$problem" ] || { echo "$problem"; return 1; }
}

work=""
trap '[ -z "$work" ] || rm -rf "$work"' EXIT

test_wheel() {
    local wheel=$1 version problem python pyver start=$SECONDS
    [ -f "$wheel" ] || { echo "no wheel $wheel"; return 1; }
    wheel=$(readlink -f "$wheel")
    version=$(basename "$wheel" | cut -d- -f2)
    problem=$(unsound "$dir")
    [ -z "$problem" ] || { echo "$problem (run: $0 prepare)"; return 1; }
    problem=$(nothing_of_ours "$dir")
    [ -z "$problem" ] || { echo "$problem"; return 1; }

    # Everything the test brings lives here, removed before and after.
    work="$dir/tmp/keychainkit-wheel-test"
    rm -rf "$work" && mkdir -p "$work/wheels"
    python=$(scripts/python-venv.sh)
    pyver=$(in_chroot "$dir" python3 -c 'import sys; print("%d.%d" % sys.version_info[:2])')
    "$python" -m pip download --quiet --disable-pip-version-check --only-binary=:all: \
        --python-version "$pyver" --dest "$work/wheels" keyring || { echo "pip download keyring failed"; return 1; }
    cp "$wheel" "$work/wheels/"
    cp IntegrationTests/packaging/use_wheel.py IntegrationTests/packaging/keyring_round_trip.py "$work/"

    in_chroot "$dir" sh -ec '
        cd /tmp/keychainkit-wheel-test
        mkdir -p home runtime && chmod 700 runtime
        export HOME="$PWD/home" XDG_RUNTIME_DIR="$PWD/runtime"
        python3 -m venv venv
        venv/bin/python -m pip install --quiet --disable-pip-version-check --no-index --find-links wheels \
            "wheels/$1" keyring
        venv/bin/python use_wheel.py "$2"
        dbus-run-session -- sh -ec "
            printf %s keychainkit-test | gnome-keyring-daemon --unlock --components=secrets >/dev/null
            for i in \$(seq 100); do
                dbus-send --session --print-reply --dest=org.freedesktop.DBus /org/freedesktop/DBus \
                    org.freedesktop.DBus.NameHasOwner string:org.freedesktop.secrets | grep -q true && break
                sleep 0.1
            done
            KEYCHAINKIT_TEST_KEYRING=private venv/bin/python use_wheel.py $2
            venv/bin/python keyring_round_trip.py"' sh "$(basename "$wheel")" "$version" || return 1
    echo "tested in $((SECONDS - start)) s"
}

case "${1-}" in
    prepare) [ "$#" -eq 1 ] || usage; prepare ;;
    test) [ "$#" -eq 2 ] || usage; test_wheel "$2" ;;
    *) usage ;;
esac
