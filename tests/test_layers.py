"""No import runs from a lower layer of okfpro to a higher one (.okf/design/layers.md).

Every module's imports are read with ``ast``: module-level and function-level ``import`` and
``from ... import`` (relative ones resolved), imports under ``TYPE_CHECKING`` too, and every
string naming an okfpro module (``importlib.import_module("okfpro.x")``, ``sys.modules["okfpro.x"]``,
``__import__(f"okfpro.x.{name}")``, a table of module paths).  An import from a lower layer to a
higher one fails with its file and line.
"""

from __future__ import annotations

import ast
import re
import sys
from pathlib import Path

from tests.helpers import REPO

# lowest first; a module may import its own layer and the layers before it
LAYERS = ("okfpro", "core", "io", "memory", "hooks", "mcp", "serve", "cli", "__main__")
PACKAGE = REPO / "okfpro"
_NAMED = re.compile(r"okfpro(?:\.\w+)*")


def layer(module: str) -> str:
    """The layer of a dotted module name under okfpro (``okfpro`` itself and ``okfpro.__version__``:
    the package's own ``__init__``, the lowest)."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 and parts[1] in LAYERS else "okfpro"


def _module_name(path: Path) -> tuple[str, bool]:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    is_package = parts[-1] == "__init__"
    return ".".join(parts[:-1] if is_package else parts), is_package


def imported(path: Path, strings: bool = True) -> list[tuple[int, str]]:
    """(line, okfpro module) for every import in ``path`` (``from a import b`` gives ``a`` and
    ``a.b``: ``b`` may be a module), and with ``strings`` every string naming an okfpro module."""
    name, is_package = _module_name(path)
    found: list[tuple[int, str]] = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        targets: list[str] = []
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                here = name.split(".") if is_package else name.split(".")[:-1]
                here = here[: len(here) - (node.level - 1)]
                base = ".".join(here + ([node.module] if node.module else []))
            targets = [base] + [f"{base}.{alias.name}" for alias in node.names]
        elif not strings:
            continue
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            m = _NAMED.fullmatch(node.value)
            targets = [node.value] if m else []
        elif isinstance(node, ast.JoinedStr) and node.values and isinstance(node.values[0], ast.Constant):
            head = str(node.values[0].value)
            targets = [head.rstrip(".")] if _NAMED.fullmatch(head.rstrip(".")) else []
        found.extend((node.lineno, t) for t in dict.fromkeys(targets) if t == "okfpro" or t.startswith("okfpro."))
    return found


def upward(root: Path = PACKAGE) -> list[str]:
    offenders = []
    for path in sorted(root.rglob("*.py")):
        own = layer(_module_name(path)[0])
        seen: set[int] = set()
        for line, target in imported(path):
            if LAYERS.index(layer(target)) > LAYERS.index(own) and line not in seen:
                seen.add(line)  # one report per line: `from okfpro.hooks import event` names two modules
                offenders.append(f"{path.relative_to(REPO)}:{line}: {own} imports {target} ({layer(target)})")
    return offenders


def test_no_import_runs_from_a_lower_layer_to_a_higher_one() -> None:
    offenders = upward()
    assert not offenders, "upward imports (move the code down, see .okf/design/layers.md):\n" + "\n".join(offenders)


def test_every_package_has_a_layer() -> None:
    packages = {p.name for p in PACKAGE.iterdir() if p.is_dir() and (p / "__init__.py").is_file()}
    assert packages <= set(LAYERS), f"packages without a layer: {sorted(packages - set(LAYERS))}"


def test_the_scan_sees_every_spelling(tmp_path: Path, monkeypatch) -> None:
    """Guard against a vacuous pin: each way of reaching a higher layer is caught, with its line."""
    core = tmp_path / "okfpro" / "core"
    core.mkdir(parents=True)
    (tmp_path / "okfpro" / "__init__.py").write_text("")
    (core / "__init__.py").write_text("")
    (core / "bad.py").write_text(
        "import okfpro.io.roots\n"                                # 1 module level
        "from okfpro.hooks import event\n"                        # 2
        "from okfpro import cli\n"                                # 3 a subpackage by name
        "from .. import mcp\n"                                    # 4 relative
        "TYPE_CHECKING = False\n"
        "if TYPE_CHECKING:\n"
        "    from okfpro.memory.door import Door\n"              # 7 typing only
        "def f(name):\n"
        "    from ..io import audit\n"                             # 9 function level
        "    import sys, importlib\n"
        "    sys.modules.get('okfpro.hooks.stop')\n"              # 11 a look-up
        "    importlib.import_module('okfpro.cli.app')\n"         # 12
        "    __import__(f'okfpro.hooks.{name}')\n"                 # 13
        "    from okfpro.core import rx\n"                         # same layer: fine
        "    from . import jsonc\n"                                # fine
        "    return 'okfpro rules'\n"                              # prose, not a module
    )
    monkeypatch.setattr(sys.modules[__name__], "PACKAGE", tmp_path / "okfpro")
    monkeypatch.setattr(sys.modules[__name__], "REPO", tmp_path)
    lines = sorted(int(o.split(":")[1]) for o in upward(tmp_path / "okfpro"))
    assert lines == [1, 2, 3, 4, 7, 9, 11, 12, 13]
