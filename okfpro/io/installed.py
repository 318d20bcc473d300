"""Where this okfpro was installed from, and the pip command that installs the same again.

Every message that tells someone how to install okfpro — an extra such as ``[mcp]`` on this machine,
CI's install step — asks :func:`pip_install`, so none names a package an index would have to serve
(okfpro is on no index, and anyone could publish under its name).  The source is the installed
distribution's PEP 610 record (``direct_url.json``): a local checkout (``pip install .`` or ``-e .``), a
wheel or archive path, a VCS URL with its commit, an archive URL.  No record: pip installed it from an
index, which this machine's pip configuration names and CI's may not.
"""

from __future__ import annotations

import json
import os
import shlex
import sys
from pathlib import Path
from urllib.parse import unquote, urlsplit

DIST = "okfpro"


def record() -> tuple[dict | None, str | None]:
    """(the installed okfpro's ``direct_url.json``, or None; its version, or None when okfpro is not
    installed as a distribution — run from a source tree on ``PYTHONPATH``)."""
    import importlib.metadata as metadata

    try:
        dist = metadata.distribution(DIST)
    except metadata.PackageNotFoundError:
        return None, None
    raw = dist.read_text("direct_url.json")
    try:
        direct = json.loads(raw) if raw else None
    except ValueError:
        direct = None
    return (direct if isinstance(direct, dict) else None), dist.version


def _source_tree() -> Path | None:
    """The source tree this okfpro runs from, when it runs from one (its parent holds pyproject.toml)."""
    top = Path(__file__).resolve().parents[2]
    return top if (top / "pyproject.toml").is_file() else None


def requirement(direct_url: dict | None, version: str | None, extras: tuple[str, ...] = (),
                portable: bool = False, tree: Path | None = None) -> tuple[list[str] | None, str]:
    """(pip arguments that install this okfpro with ``extras`` again, or None; where they come from).

    ``portable``: for another machine (CI), so a path on this one, or an index this machine's pip
    is configured for, will not do.  ``tree``: the source tree okfpro runs from when it is not installed.
    """
    ext = f"[{','.join(extras)}]" if extras else ""
    if version is None:
        if tree is None or portable:
            return None, "okfpro is not installed as a distribution here"
        return ["-e", f"{tree}{ext}"], f"the source tree okfpro runs from ({tree})"
    if not direct_url:
        if portable:
            return None, (f"okfpro {version} was installed here from a package index, which this machine's pip "
                          "configuration names and CI's may not")
        return [f"{DIST}{ext}=={version}"], "the package index okfpro was installed from here"
    url = str(direct_url.get("url", ""))
    sub = direct_url.get("subdirectory")
    local = url.startswith("file:")
    vcs = direct_url.get("vcs_info")
    if isinstance(vcs, dict):
        if local and portable:
            return None, f"okfpro was installed here from {url}, which CI cannot reach"
        commit = vcs.get("commit_id") or vcs.get("requested_revision")
        spec = f"{vcs.get('vcs', 'git')}+{url}" + (f"@{commit}" if commit else "") + (f"#subdirectory={sub}" if sub else "")
        return [f"{DIST}{ext} @ {spec}" if ext else spec], "the VCS URL okfpro was installed from (PEP 610 direct_url.json)"
    if local:
        if portable:
            return None, f"okfpro was installed here from {url}, which CI cannot reach"
        path = unquote(urlsplit(url).path)
        if os.name == "nt" and path[:1] == "/" and path[2:3] == ":":
            path = path[1:]
        if sub:
            path = os.path.join(path, sub)
        editable = isinstance(direct_url.get("dir_info"), dict) and direct_url["dir_info"].get("editable")
        return (["-e"] if editable else []) + [f"{path}{ext}"], f"the path okfpro was installed from ({path})"
    if "archive_info" in direct_url and url.startswith(("https://", "http://")):
        spec = url + (f"#subdirectory={sub}" if sub else "")
        return [f"{DIST}{ext} @ {spec}" if ext else spec], "the archive URL okfpro was installed from (PEP 610 direct_url.json)"
    return None, f"okfpro was installed here from {url or 'an unrecorded source'}, which pip cannot be pointed at again"


def pip_install(extras: tuple[str, ...] = (), portable: bool = False, python: str | None = None) -> tuple[str | None, str]:
    """(the shell command that installs this okfpro with ``extras`` again, or None; where it comes from).

    ``python``: the interpreter to name (default: this one, so the install lands where okfpro runs;
    ``portable`` names ``python``, the runner's)."""
    direct, version = record()
    args, why = requirement(direct, version, extras, portable, _source_tree())
    if args is None:
        return None, why
    exe = python or ("python" if portable else sys.executable)
    return " ".join([shlex.quote(exe), "-m", "pip", "install", *(shlex.quote(a) for a in args)]), why


def install_hint(*extras: str) -> str:
    """The words a message uses to say how to install okfpro with ``extras`` on this machine."""
    command, why = pip_install(tuple(extras))
    if command is None:
        return f"install okfpro[{','.join(extras)}] from where you installed okfpro ({why})"
    return command
