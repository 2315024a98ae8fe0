"""`pip install bindings/python` works in a fresh virtual environment, and
the installed package (not the source tree) is importable and usable."""

from __future__ import annotations

import os
import subprocess
import sys
import venv
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1]


def test_pip_install_into_a_fresh_venv(tmp_path: Path) -> None:
    env_dir = tmp_path / "venv"
    venv.EnvBuilder(with_pip=True).create(env_dir)
    python = env_dir / "bin" / "python"
    subprocess.run(
        [str(python), "-m", "pip", "install", "--quiet", "--disable-pip-version-check", str(PACKAGE)],
        check=True, cwd=tmp_path,
    )
    # Run from a neutral directory so the source tree cannot be imported by accident.
    check = (
        "import keychainkit, pathlib, sys;"
        "assert 'site-packages' in pathlib.Path(keychainkit.__file__).parts, keychainkit.__file__;"
        "assert (pathlib.Path(keychainkit.__file__).parent / 'py.typed').exists();"
        "kc = keychainkit.Keychain.in_memory(service='install-check');"
        "kc['account'] = 'value'; assert kc['account'] == 'value'; kc.close()"
    )
    environment = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    result = subprocess.run([str(python), "-c", check], cwd=tmp_path, env=environment,
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
