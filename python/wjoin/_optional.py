"""PySpark's Connect client, which the package uses only where its dependencies are installed."""
from __future__ import annotations

import importlib
from types import ModuleType
from typing import Optional

# Set once an import found Connect's client dependencies missing: PySpark would check (and, under
# `python -c`, print its notice) again on every later import.
_missing = False


def connect_module(name: str) -> Optional[ModuleType]:
    """PySpark's Connect client module ``name``, or None where Connect's client dependencies
    (grpcio, pandas, pyarrow, ...: the ``connect`` extra) are not installed. PySpark checks them
    when the module is first imported and, where Python runs a ``-c`` command, ends the process
    (``sys.exit(0)``) instead of raising, so ``python -c 'import wjoin; ...'`` would print
    nothing: that ``SystemExit`` is caught too."""
    global _missing
    if _missing:
        return None
    try:
        return importlib.import_module(name)
    except (Exception, SystemExit):
        _missing = True
        return None
