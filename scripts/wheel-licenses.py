#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Adds to a repaired wheel the licences of the code it carries besides ours.

    scripts/wheel-licenses.py WHEEL SWIFT_LICENSE

`auditwheel repair` copies the libraries outside the manylinux policy
(libsystemd, libgcrypt and theirs) into keychainkit.libs/ under new names;
libkeychainkit.so carries the Swift runtime, linked in statically. Their
licences (LGPL-2.1+ for libsystemd and libgcrypt, among others) require
their terms to travel with them. For each bundled library this finds the
Debian package that installed the original file (dpkg -S) and adds its
copyright file, plus every /usr/share/common-licenses text that file refers
to, and the Swift toolchain's LICENSE.txt, under the wheel's
.dist-info/licenses/bundled/ (PEP 639's place), each named by a
License-File line in METADATA; RECORD is written again. The wheel is
rewritten in place. Exits 1, naming the file, when a bundled library's
package or licence cannot be found.
"""
import base64
import hashlib
import os
import re
import subprocess
import sys
import tempfile
import zipfile

COMMON_LICENSES = "/usr/share/common-licenses/"


def fail(message):
    print(f"wheel-licenses: {message}", file=sys.stderr)
    sys.exit(1)


def original_name(bundled):
    """libsystemd-3880319a.so.0.35.0 -> libsystemd.so.0.35.0 (auditwheel's renaming undone)."""
    return re.sub(r"-[0-9a-f]{8}(\.so)", r"\1", os.path.basename(bundled), count=1)


def owning_package(filename):
    """The Debian package (without its architecture) that installed `filename`."""
    found = subprocess.run(["dpkg-query", "-S", f"*/{filename}"], capture_output=True, text=True)
    packages = {line.split(":", 1)[0] for line in found.stdout.splitlines() if ":" in line}
    if found.returncode != 0 or len(packages) != 1:
        fail(f"no one Debian package owns {filename} ({found.stderr.strip() or sorted(packages)})")
    return packages.pop()


def read(path):
    try:
        with open(path, "rb") as f:
            return f.read()
    except OSError as error:
        fail(f"{path}: {error.strerror}")


def licence_files(libraries, swift_license):
    """{path under licenses/: bytes} for the libraries and the Swift runtime."""
    files = {"bundled/swift/LICENSE.txt": read(swift_license)}
    for library in libraries:
        package = owning_package(original_name(library))
        copyright_text = read(f"/usr/share/doc/{package}/copyright")
        files[f"bundled/{package}/copyright"] = copyright_text
        for name in re.findall(rb"/usr/share/common-licenses/([A-Za-z0-9+_.-]+)", copyright_text):
            name = name.decode().rstrip(".")
            if os.path.isfile(COMMON_LICENSES + name):
                files[f"bundled/common-licenses/{name}"] = read(COMMON_LICENSES + name)
    return files


def record_line(path, data):
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{path},sha256={digest},{len(data)}"


def main():
    if len(sys.argv) != 3:
        print(__doc__.splitlines()[2].strip(), file=sys.stderr)
        sys.exit(2)
    wheel, swift_license = sys.argv[1:]
    with zipfile.ZipFile(wheel) as archive:
        entries = [(info, archive.read(info)) for info in archive.infolist()]
    names = [info.filename for info, _ in entries]
    dist_info = next((n.split("/", 1)[0] for n in names if n.endswith(".dist-info/METADATA")), None)
    if dist_info is None:
        fail(f"{wheel}: no .dist-info/METADATA")
    libraries = [n for n in names if n.startswith("keychainkit.libs/") and not n.endswith("/")]
    added = licence_files(libraries, swift_license)

    contents = {}
    for info, data in entries:
        if info.filename == f"{dist_info}/METADATA":
            metadata = data.decode()
            head, sep, body = metadata.partition("\n\n")
            lines = "\n".join(f"License-File: {path}" for path in sorted(added))
            data = (head.rstrip("\n") + "\n" + lines + (sep + body if sep else "\n")).encode()
        contents[info.filename] = (info, data)
    for path, data in sorted(added.items()):
        name = f"{dist_info}/licenses/{path}"
        contents[name] = (zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0)), data)

    record = f"{dist_info}/RECORD"
    lines = [record_line(n, d) for n, (_, d) in contents.items() if n != record and not n.endswith("/")]
    contents[record] = (contents[record][0], ("\n".join(lines + [f"{record},,"]) + "\n").encode())

    directory = os.path.dirname(os.path.abspath(wheel))
    fd, temporary = tempfile.mkstemp(dir=directory, suffix=".whl")
    os.close(fd)
    try:
        with zipfile.ZipFile(temporary, "w", zipfile.ZIP_DEFLATED) as archive:
            for name, (info, data) in contents.items():
                info.compress_type = zipfile.ZIP_DEFLATED
                if info.external_attr == 0 and not name.endswith("/"):
                    info.external_attr = 0o644 << 16
                archive.writestr(info, data)
        os.replace(temporary, wheel)
    finally:
        if os.path.exists(temporary):
            os.unlink(temporary)
    print(f"{os.path.basename(wheel)}: {len(added)} licence files of {len(libraries)} bundled libraries and the Swift runtime")


if __name__ == "__main__":
    main()
