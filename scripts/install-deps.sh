#!/bin/sh
# SPDX-License-Identifier: MIT
# Installs the Debian packages KeychainKit needs to build and test, when they
# are missing. Needs root (or sudo); prints what is missing otherwise.
set -eu

packages="git gcc make libsystemd-dev libgcrypt20-dev libglib2.0-dev libsecret-1-dev pkg-config python3-dev gnome-keyring dbus dbus-daemon dbus-bin libglib2.0-bin libsecret-tools valgrind python3-dbus libkf5wallet-bin libqca-qt5-2-plugins keepassxc xvfb xdotool gcr keyutils python3-venv debhelper dh-python python3-all python3-build python3-installer python3-setuptools python3-wheel lintian devscripts man-db groff-base bash-completion golang-docker-credential-helpers podman docker-registry apache2-utils gdb xdg-desktop-portal bubblewrap debootstrap patchelf libcap2-bin zlib1g-dev xz-utils"

missing=""
for package in $packages; do
    dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" ||
        missing="$missing $package"
done
[ -z "$missing" ] && exit 0

if [ "$(id -u)" -eq 0 ]; then
    sudo=""
elif command -v sudo >/dev/null 2>&1; then
    sudo="sudo"
else
    echo "missing Debian packages:$missing (install them as root)" >&2
    exit 1
fi
echo "installing:$missing" >&2
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends $missing >/dev/null
