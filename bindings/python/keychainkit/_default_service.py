# SPDX-License-Identifier: MIT
"""The service a :class:`Keychain` opened without one stores under.

The C library's default is the program's name, which for every Python
program is the interpreter's (``python3``): all scripts would share one
service. The binding names the running Python program instead, as a user
reads it on the command line.
"""

from __future__ import annotations

import os
import sys
from types import ModuleType
from typing import Optional, Sequence

FALLBACK = "python"
"""The default service when no script or module is running: ``python -c``,
the interactive interpreter, an embedded interpreter without ``sys.argv``."""


def default_service(argv: Optional[Sequence[str]] = None, main: Optional[ModuleType] = None) -> str:
    """The running program's name, from ``argv`` (default ``sys.argv``) and
    the ``__main__`` module ``main`` (default the interpreter's):

    - ``python -m package.module``: the module's name, ``"package.module"``
      (``python -m package``, which runs ``package.__main__``: ``"package"``);
    - ``python path/to/tool.py``, ``./tool.py``, an installed console script
      ``tool``: the file's name without ``.py`` or ``.pyw``, ``"tool"``;
    - ``python -c ...``, the interactive interpreter, or no ``sys.argv``:
      :data:`FALLBACK`, ``"python"``.
    """
    argv = getattr(sys, "argv", None) if argv is None else argv
    main = sys.modules.get("__main__") if main is None else main
    spec = getattr(main, "__spec__", None)
    if spec is not None and spec.name and spec.name != "__main__":
        return spec.name[: -len(".__main__")] if spec.name.endswith(".__main__") else spec.name
    script = argv[0] if argv else ""
    if script in ("", "-c", "-"):
        return FALLBACK
    name = os.path.basename(script)
    for suffix in (".py", ".pyw"):
        if name.endswith(suffix) and len(name) > len(suffix):
            return name[: -len(suffix)]
    return name or FALLBACK
