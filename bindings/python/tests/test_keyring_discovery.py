# SPDX-License-Identifier: MIT
"""keyring finds the backend by itself once the package is installed, puts
it first when a Secret Service answers, deems it not viable when none does,
and selects it explicitly from PYTHON_KEYRING_BACKEND or keyringrc.cfg.

Each case runs in a new interpreter: keyring chooses its backend once per
process, and our backend remembers a positive probe.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Dict, Optional

OURS = "keychainkit.keyring_backend.Keyring"

REPORT = """
import json, os, keyring, keyring.backend
from keyring.backends import chainer
if os.environ.get("KK_TEST_OTHER_STORE"):
    # A backend keeping passwords elsewhere (as keyring's KWallet backend,
    # keyrings.alt's files): defining it registers it, as a plugin would be.
    class Elsewhere(keyring.backend.KeyringBackend):
        priority = 1
        def get_password(self, service, username): return None
        def set_password(self, service, username, password): pass
        def delete_password(self, service, username): pass
chosen = keyring.get_keyring()
rings = {f"{type(r).__module__}.{type(r).__name__}": r.priority for r in keyring.backend.get_all_keyring()}
chain = [f"{type(r).__module__}.{type(r).__name__}" for r in chainer.ChainerBackend.backends]
print(json.dumps({"chosen": f"{type(chosen).__module__}.{type(chosen).__name__}", "rings": rings, "chain": chain}))
"""


def report(tmp_path: Path, env: Optional[Dict[str, str]] = None) -> dict:
    """What keyring chooses in a new interpreter, with a config home of its own."""
    environment = {k: v for k, v in os.environ.items() if k != "PYTHON_KEYRING_BACKEND"}
    environment["XDG_CONFIG_HOME"] = str(tmp_path)
    environment.update(env or {})
    result = subprocess.run([sys.executable, "-c", REPORT], env=environment, capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def test_installing_is_enough_and_it_comes_first(secret_service: None, tmp_path: Path) -> None:
    found = report(tmp_path)
    secret_service_backend = "keyring.backends.SecretService.Keyring"
    assert found["rings"][OURS] > found["rings"][secret_service_backend]
    assert found["chain"][0] == OURS
    # keyring's SecretService backend keeps its passwords where ours reads
    # them: ours ranks above the chainer (10) and is used alone, not after a
    # priority probe of every backend on every call.
    assert set(found["chain"]) <= {OURS, secret_service_backend, "keyring.backends.libsecret.Keyring"}, found
    assert found["rings"][OURS] == 11
    assert found["chosen"] == OURS


def test_with_a_backend_keeping_passwords_elsewhere_the_chainer_asks_ours_first(
    secret_service: None, tmp_path: Path
) -> None:
    found = report(tmp_path, {"KK_TEST_OTHER_STORE": "1"})
    assert found["rings"][OURS] == 6, found
    assert found["chosen"] == "keyring.backends.chainer.ChainerBackend"
    assert found["chain"][0] == OURS and "__main__.Elsewhere" in found["chain"], found


def test_python_keyring_backend_selects_it(secret_service: None, tmp_path: Path) -> None:
    assert report(tmp_path, {"PYTHON_KEYRING_BACKEND": OURS})["chosen"] == OURS


def test_keyringrc_selects_it(secret_service: None, tmp_path: Path) -> None:
    (tmp_path / "python_keyring").mkdir()
    (tmp_path / "python_keyring" / "keyringrc.cfg").write_text(f"[backend]\ndefault-keyring={OURS}\n")
    assert report(tmp_path)["chosen"] == OURS


def test_without_the_library_keyring_stays_quiet(tmp_path: Path) -> None:
    # The package installed, its library missing: keyring registers nothing of
    # ours and prints nothing; importing the package still says what to do.
    environment = {k: v for k, v in os.environ.items() if k != "PYTHON_KEYRING_BACKEND"}
    environment.update(XDG_CONFIG_HOME=str(tmp_path), KEYCHAINKIT_LIBRARY=str(tmp_path / "libkeychainkit.so.0"))
    result = subprocess.run([sys.executable, "-c", REPORT], env=environment, capture_output=True, text=True, timeout=60)
    assert result.returncode == 0 and result.stderr == "", result.stderr
    assert OURS not in json.loads(result.stdout)["rings"]
    result = subprocess.run(
        [sys.executable, "-c", "import keychainkit"], env=environment, capture_output=True, text=True, timeout=60
    )
    assert result.returncode != 0 and "KEYCHAINKIT_LIBRARY" in result.stderr and "cannot load libkeychainkit" in result.stderr


def test_without_a_secret_service_it_is_not_viable(secret_service: None, tmp_path: Path) -> None:
    probe = (
        "from keychainkit.keyring_backend import Keyring\n"
        "try:\n    Keyring.priority\nexcept RuntimeError as e:\n    print('RuntimeError', e)\n"
        "print('viable', Keyring.viable)\n"
    )
    environment = dict(os.environ, DBUS_SESSION_BUS_ADDRESS="unix:path=/nonexistent/bus")
    result = subprocess.run([sys.executable, "-c", probe], env=environment, capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("RuntimeError no Secret Service answered"), result.stdout
    assert result.stdout.endswith("viable False\n")
    found = report(tmp_path, {"DBUS_SESSION_BUS_ADDRESS": "unix:path=/nonexistent/bus"})
    assert OURS not in found["rings"]
