# SPDX-License-Identifier: MIT
"""The smoke check of an installed wheel of `make wheel` (the packaging run's,
with the toolchain hidden, and IntegrationTests/packaging/wheel-chroot.sh's,
on a Debian with nothing of ours): the package loads the library it carries
and that library the libraries bundled beside it, the versions agree, the
keyring entry point registers the backend exactly when keyring is installed,
and a value goes in and out of memory and, with KEYCHAINKIT_TEST_KEYRING=private,
of the Secret Service.

    python use_wheel.py VERSION
"""
import importlib.metadata, importlib.util, os, sys, sysconfig
import keychainkit
from keychainkit import Keychain
expected = sys.argv[1]
package = os.path.dirname(keychainkit.__file__)
assert package.startswith(sysconfig.get_paths()["platlib"]), package
assert keychainkit.library_path() == os.path.join(package, "libkeychainkit.so.0"), keychainkit.library_path()
versions = (keychainkit.__version__, importlib.metadata.version("keychainkit"), keychainkit.library_version())
assert versions == (expected,) * 3, versions
# libsystemd and libgcrypt (and what they need) are the wheel's own copies in
# keychainkit.libs/, under their new names, never the machine's.
bundled = os.path.join(os.path.dirname(package), "keychainkit.libs") + os.sep
with open("/proc/self/maps") as maps:
    mapped = {line.split(None, 5)[5].strip() for line in maps if len(line.split(None, 5)) == 6}
outside = sorted(path for path in mapped if os.path.basename(path).startswith(("libsystemd", "libgcrypt", "libgpg-error"))
                 and not path.startswith(bundled))
assert not outside, f"loaded from the machine: {outside}"
for name in ("libsystemd-", "libgcrypt-"):
    assert any(path.startswith(bundled + name) for path in mapped), f"no {bundled}{name}*.so* loaded"
# keyring's entry point names a module the wheel carries; it registers ours
# when keyring is there (else nothing, quietly).
(plugin,) = [e for e in importlib.metadata.entry_points(group="keyring.backends") if e.name == "keychainkit"]
registered = plugin.load().Keyring
has_keyring = importlib.util.find_spec("keyring") is not None
assert (registered is not None) == has_keyring and (registered is None or registered.__module__ == "keychainkit.keyring_backend")
backends = [Keychain.in_memory(service="wheel-check")]
if os.environ.get("KEYCHAINKIT_TEST_KEYRING") == "private":
    backends.append(Keychain(service="wheel-check", prompts="never"))
for kc in backends:
    with kc:
        kc["account"] = "value"
        assert kc["account"] == "value" and list(kc) == ["account"]
        del kc["account"]
        assert "account" not in kc
    print("ok", kc.backend)
