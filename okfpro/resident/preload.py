"""What a resident server holds for its children, and how it knows that is still okfpro's code.

:func:`warm` imports the modules the per-event paths use and builds the patterns their recipes name,
before the first child is forked; :func:`code_files` records the identity of every loaded okfpro
source file, and :func:`files_unchanged` tells whether they are still that code (the server exits
when they are not: okfpro was upgraded or edited under it).
"""

from __future__ import annotations

import os
import sys
from typing import Callable

# What the server imports before its first child: okfpro's pure core and hook door whole, and the entry
# modules of the memory verbs and the merge driver with what they import.  Not all of okfpro: the Git
# transport, the doctor and the scaffold pull pygit2, ssl and subprocess, which no per-event path needs,
# and every page the server holds is a page each fork maps (39 MB warm against 20).  What a child
# imports beyond this it reports, and the server imports it for the next one (:meth:`Server._learn`).
WARM_PACKAGES = ("okfpro.core", "okfpro.hooks")
WARM_MODULES = (
    "okfpro.__main__", "okfpro.cli.memverbs", "okfpro.io.mergedriver", "okfpro.io.rxcache",
    "okfpro.memory.recall", "okfpro.memory.store", "okfpro.memory.capture", "okfpro.memory.door",
    "okfpro.memory.index", "okfpro.memory.ranking", "okfpro.memory.views", "okfpro.memory.telemetry",
    "okfpro.io.fts", "okfpro.io.analysis", "okfpro.io.workstate", "okfpro.io.friction", "okfpro.io.tail",
    "okfpro.io.spawn", "okfpro.io.identity", "okfpro.io.bundle", "okfpro.io.cache", "okfpro.io.config",
    "okfpro.io.reader", "okfpro.io.rule1state", "okfpro.memory.history", "okfpro.memory.loose",
    "okfpro.memory.policy", "okfpro.cli.common", "atexit", "struct", "binascii", "mmap",
)


def warm(log: Callable[[str], None]) -> None:
    """Import what the per-event paths import, build their regular expressions, and read the
    installed distributions' entry points (:func:`okfpro.io.identity.remember_declared`); what
    could not be is said through ``log``."""
    import importlib
    import pkgutil

    for name in WARM_PACKAGES:
        package = importlib.import_module(name)
        for info in pkgutil.iter_modules(package.__path__, name + "."):
            try:
                importlib.import_module(info.name)
            except Exception as exc:  # noqa: BLE001 - a module a path does not need: imported on use
                log(f"not preloaded: {info.name} ({type(exc).__name__}: {exc})")
    for name in WARM_MODULES:
        try:
            importlib.import_module(name)
        except Exception as exc:  # noqa: BLE001 - imported by the child that needs it
            log(f"not preloaded: {name} ({type(exc).__name__}: {exc})")
    _warm_patterns()
    try:  # the installed distributions' entry points, stamped: a child checks the stamps, not ~60 files
        from okfpro.io import identity

        identity.remember_declared()
    except Exception as exc:  # noqa: BLE001 - a child reads them, as a fresh process does
        log(f"identity entry points not read ahead: {type(exc).__name__}: {exc}")
    import gc

    gc.collect()
    gc.freeze()


def _warm_patterns() -> None:
    """Every literal pattern the recipe files of this build name, compiled once for all children.
    The recipes themselves are dropped again: a child reads its own path's file, as a fresh
    process does, so what it keeps at exit is what that path compiles."""
    import glob

    from okfpro.core import rx
    from okfpro.io import rxcache

    first = rxcache.path("cli")
    for where in glob.glob(glob.escape(first[: -len("cli.bin")]) + "*.bin"):
        rx.use(rxcache.read(where))
    for key in list(rx.recipes()):
        try:
            rx.compile(*key)
        except Exception:  # noqa: BLE001 - a pattern this build refuses: a child compiles it on use
            pass
    rx._recipes.clear()
    rx._missed.clear()


def code_files() -> dict[str, tuple[int, int, int]]:
    """Every loaded okfpro source file -> (inode, size, mtime): the code a child would run."""
    import okfpro

    root = os.path.dirname(os.path.abspath(okfpro.__file__)) + os.sep
    files: dict[str, tuple[int, int, int]] = {}
    for module in list(sys.modules.values()):
        path = getattr(module, "__file__", None)
        if isinstance(path, str) and os.path.abspath(path).startswith(root):
            try:
                st = os.stat(path)
            except OSError:
                continue
            files[path] = (st.st_ino, st.st_size, st.st_mtime_ns)
    return files


def files_unchanged(files: dict[str, tuple[int, int, int]]) -> bool:
    for path, seen in files.items():
        try:
            st = os.stat(path)
        except OSError:
            return False
        if (st.st_ino, st.st_size, st.st_mtime_ns) != seen:
            return False
    return True
