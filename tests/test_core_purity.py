"""The pure core touches no disk, no git, no click, no subprocess: pinned here.

``okfpro/core`` may import only the standard library's pure modules, PyYAML, and
itself.  The shell (``okfpro/io``, ``okfpro/cli``, ``okfpro/hooks``, ``okfpro/memory``)
wraps it.  A new import in core that is not on the list below fails this test;
add it here only if it does no I/O.
"""

from __future__ import annotations

import ast
from pathlib import Path

CORE = Path(__file__).resolve().parents[1] / "okfpro" / "core"

ALLOWED = {
    "__future__", "re", "datetime", "dataclasses", "typing", "functools", "itertools", "collections",
    "hashlib", "json", "math", "unicodedata", "enum", "string", "bisect", "heapq", "posixpath", "textwrap",
    "base64", "binascii", "operator", "statistics", "fnmatch", "copy", "abc", "types", "difflib", "html",
    "yaml", "Stemmer", "okfpro",  # Stemmer: PyStemmer, pure computation (Snowball)
    # regex: search --regexp matches under a time budget (its matcher takes a timeout; re has none);
    # time: only the budget's monotonic deadline
    "regex", "time",
}
FORBIDDEN_CALLS = {"open", "exec", "eval", "compile", "__import__", "input"}


def _core_files() -> list[Path]:
    files = sorted(CORE.rglob("*.py"))
    assert files, "no core modules found"
    return files


def test_core_imports_only_pure_modules() -> None:
    offenders = []
    for path in _core_files():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                if node.level:  # relative import inside the package
                    continue
                names = [node.module or ""]
            else:
                continue
            for name in names:
                top = name.split(".")[0]
                if top not in ALLOWED:
                    offenders.append(f"{path.name}: import {name}")
                if top == "okfpro" and not (name == "okfpro" or name.startswith("okfpro.core")):
                    offenders.append(f"{path.name}: core imports the shell ({name})")
    assert not offenders, "core must stay pure:\n" + "\n".join(offenders)


def test_core_calls_no_io_builtins() -> None:
    offenders = []
    for path in _core_files():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        own = {n.name for n in tree.body if isinstance(n, ast.FunctionDef)}  # re.compile is not the builtin
        for node in ast.walk(tree):
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in FORBIDDEN_CALLS
                    and node.func.id not in own):
                offenders.append(f"{path.name}:{node.lineno}: {node.func.id}()")
    assert not offenders, "core must not do I/O:\n" + "\n".join(offenders)


def test_the_pin_itself_can_fail(tmp_path: Path) -> None:
    """Guard against a vacuous pin: the same scan flags an impure module."""
    bad = tmp_path / "bad.py"
    bad.write_text("import os\nimport subprocess\nopen('x')\n")
    tree = ast.parse(bad.read_text())
    tops = {a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
    assert tops - ALLOWED == {"os", "subprocess"}
