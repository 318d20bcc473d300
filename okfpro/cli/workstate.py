"""Work-state verbs: the readers ``state``, ``board``, ``snapshot`` and the writers
``capture``, ``promote``, ``demote``, ``journal open``, ``close``, ``log-snapshot``.

Readers take ``[DIR]`` (a path, never an ``@slug``; one at most) and print;
exit 0, or 2 when there is no bundle / no board / bad usage.

Writers take no flags: a first argument starting with ``-`` is refused (it
would become a board line), except ``-h``/``--help``; ``--`` escapes content
that begins with a dash.  They act on the bundle enclosing the working
directory, or on the bundle at ``$OKFPRO_BUNDLE`` when that is set (a directory
resolved like a reader's DIR).  Exit 0 when the write landed, 2 when it was
refused — and then no file was touched.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Callable, NoReturn, TypeVar

import click

from okfpro.cli.common import bundle_for, emit, fail, json_options, today

T = TypeVar("T")
SECTION_NAMES = ("In flight", "Backlog", "Waiting", "Inbox", "To read", "Deadlines")


def _reader_root(dirs: tuple[str, ...], need_board: bool) -> Path:
    """The bundle a reader reads (``[DIR]``, default ``.``; see okfpro/cli/common.py) holding a board."""
    if len(dirs) > 1:
        fail(
            f"takes one DIR at most, got {len(dirs)} ({' '.join(dirs)}); "
            "answering for the first and ignoring the rest would be a wrong answer with a clean exit."
        )
    root = bundle_for(dirs[0] if dirs else None, default="here").root
    root_real = os.path.realpath(root)
    for rel in ("board.md", "log.md"):
        real = os.path.realpath(root / rel)
        if (root / rel).is_symlink() and not real.startswith(root_real.rstrip(os.sep) + os.sep):
            fail(
                f"{rel} resolves outside the bundle ({real}); okfpro reads nothing through a "
                f"link that leaves the bundle. Replace the link with the file itself."
            )
    if not (root / "board.md").is_file():
        from okfpro.io.roots import enclosing

        verb = click.get_current_context().info_name
        hint = ""
        outer = enclosing(root.parent) if not dirs else None
        if outer is not None and os.path.isfile(os.path.join(outer, "board.md")):
            hint = f" This directory is inside the bundle at {outer}: run `okfpro {verb} {outer}`, or run it from there."
        if need_board or hint:
            fail(f"the bundle at {root} has no board.md, so there is no work state to read.{hint}")
    return root


# --- readers ------------------------------------------------------------------------


@click.command("state")
@click.argument("dirs", nargs=-1, metavar="[DIR]")
@json_options
@click.option("--full", is_flag=True, help="Also parse the bundle: pairing, unverified list, live count.")
def state_cmd(dirs: tuple[str, ...], as_json: bool, pretty: bool, full: bool) -> int:
    """What is on the board, in one call (cheap: no concept is parsed unless --full)."""
    from okfpro.io import workstate as ws

    root = _reader_root(dirs, need_board=True)
    payload = ws.state_payload(root, today(), full=full)
    return emit(payload, as_json, pretty, lambda: click.echo(render_state(payload)))


def render_state(p: dict) -> str:
    b = p["board"]
    cap = b["cap"] if b["cap"] is not None else "?"
    out = [
        f"Board — in flight {b['in flight']}/{cap} · backlog {b['backlog']} · waiting {b['waiting']} "
        f"({b['past chase']} past chase) · inbox {b['inbox']} (oldest {b['oldest']}d) · to read {b['to read']} "
        f"· deadlines {b['deadlines']} · conflicts open {b['conflicts open']}"
    ]
    if b["declared"] is None:
        out.append("  the 'In flight: k/CAP' header is missing — put it back.")
    elif b["declared"] != b["in flight"]:
        out.append(f"  the header says {b['declared']} in flight but the section holds {b['in flight']} — correct the header.")
    if p["deadlines at risk"]:
        out.append("Deadlines within 7d with nothing in flight against them:")
        out.extend(f"  {line}" for line in p["deadlines at risk"])
    log = p["log"]
    journal = "opened" if log["journal today"] else "not opened"
    out.append(f"Log — newest day {log['newest day'] or 'none yet'} · journal for {p['as of']} {journal}")
    names = p["projects"]["open"]
    out.append(f"Open projects ({len(names)}): {', '.join(names) if names else 'none'}")
    last = p["last snapshot"]
    if last is None:
        out.append("Last snapshot: none yet")
    else:
        c = last["counters"]
        ub = c.get("unverified briefings")
        pz = c.get("projects with 0 concepts")
        out.append(
            f"As of {last['day']}, the last logged snapshot — unverified briefings "
            f"{'?' if ub is None else ub} · projects with 0 concepts {'?' if pz is None else pz} "
            "(`--full` recomputes these live)"
        )
    full = p.get("full")
    if full is not None:
        out.append(f"Live: unverified briefings {full['unverified briefings']} · {len(full['unverified'])} concept(s) awaiting the owner's read")
        if full["pairing"]:
            out.append("Pairing:")
            out.extend(f"  {m}" for m in full["pairing"])
        else:
            out.append("Pairing: board and corpus point at each other.")
    return "\n".join(out)


@click.command("board")
@click.argument("dirs", nargs=-1, metavar="[DIR]")
@json_options
@click.option("--section", "section", metavar="NAME", help="Only this section (one of the six).")
def board_cmd(dirs: tuple[str, ...], as_json: bool, pretty: bool, section: str | None) -> int:
    """One row per board line: section, text, date, age, chase, link targets."""
    from okfpro.io import workstate as ws

    root = _reader_root(dirs, need_board=True)
    if section is not None:
        match = [n for n in SECTION_NAMES if n.lower() == section.strip().lower()]
        if not match:
            fail(f"no section named '{section}'; the six are: {', '.join(SECTION_NAMES)}.")
        section = match[0]
    rows = ws.board_rows(root, today(), section)
    if rows is None:
        fail(f"board.md has no '## {section}' heading.")

    def text() -> None:
        out = []
        for name in [section] if section else SECTION_NAMES:
            mine = [r for r in rows if r["section"] == name]
            out.append(f"{name} ({len(mine)})")
            out.extend(f"  {r['text'].rstrip()}" for r in mine)
        click.echo("\n".join(out))

    return emit(rows, as_json, pretty, text)


@click.command("snapshot")
@click.argument("dirs", nargs=-1, metavar="[DIR]")
@json_options
def snapshot_cmd(dirs: tuple[str, ...], as_json: bool, pretty: bool) -> int:
    """Compute today's Snapshot line ({line, counters} with --json).  Prints it; never writes it."""
    from okfpro.io import workstate as ws

    root = _reader_root(dirs, need_board=True)  # no board, nothing to count: refused, as state is
    payload = ws.snapshot_payload(root, today())
    return emit(payload, as_json, pretty, lambda: click.echo(payload["line"]))


# --- writers -------------------------------------------------------------------------


WRITER_EPILOG = (
    "Writers take no options: a leading '-' is refused (write '--' first to capture text that starts "
    "with a dash). They act on the bundle enclosing the working directory, or on the bundle at "
    "$OKFPRO_BUNDLE when set. Exit 0: written. Exit 2: refused, and no file was touched."
)


class RawWriter(click.Command):
    """A writer: no options at all; ``-h``/``--help`` print help; ``--`` escapes a dash."""

    def __init__(self, *args, usage_args: str = "", **kwargs):
        kwargs.setdefault("options_metavar", "")
        kwargs.setdefault("epilog", WRITER_EPILOG)
        super().__init__(*args, **kwargs)
        self.usage_args = usage_args

    def collect_usage_pieces(self, ctx: click.Context) -> list[str]:
        return [self.usage_args] if self.usage_args else []

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        if args and args[0] in ("-h", "--help"):
            click.echo(ctx.get_help())
            ctx.exit(0)
        if args and args[0] in ("-V", "--version"):
            from okfpro import __version__

            click.echo(f"okfpro {__version__}")
            ctx.exit(0)
        if args and args[0] == "--":
            rest = args[1:]
        elif args and args[0].startswith("-"):
            fail(
                f"takes no options, and '{args[0]}' would become board text. "
                f"If you mean it as text, write: okfpro {ctx.info_name} -- {' '.join(args)}"
            )
        else:
            rest = list(args)
        ctx.meta["okfpro.writer_args"] = rest
        ctx.args = []
        return []


def _writer_args() -> list[str]:
    return list(click.get_current_context().meta.get("okfpro.writer_args", []))


def _text_arg(what: str) -> str:
    text = " ".join(_writer_args())
    if not text.strip():
        fail(f"refused — give the {what}.")
    if "\n" in text or "\r" in text:
        fail(f"refused — the {what} spans lines; a board line is one line.")
    return text


def _refused(exc: Exception) -> NoReturn:
    path = getattr(exc, "path", None)
    where = f"{path} is untouched" if path else "nothing was touched"
    fail(f"refused, and {where}.\n  {exc}")


def _write(do: Callable[[Path], T]) -> tuple[Path, T]:
    """Run a writer's disk half on the bundle the writers act on; a refusal ends the command (exit 2)."""
    from okfpro.io import workwriters as ww

    root = bundle_for(None, env=True).root
    try:
        return root, do(root)
    except ww.Refused as exc:
        _refused(exc)


@click.command("capture", cls=RawWriter, usage_args="TEXT")
def capture_cmd() -> int:
    """capture TEXT — add '- <today> — TEXT' to the board's Inbox."""
    from okfpro.io import workwriters as ww

    text = _text_arg("text to capture")
    root, line = _write(lambda root: ww.do_capture(root, today(), text))
    click.echo(f"okfpro capture — one line added to Inbox:\n  {line}")
    missing = ww.missing_targets(root, line)
    if missing:
        click.echo(
            f"Note: this line links {', '.join(missing)}, which is not in the bundle (yet); audit and the Stop gate "
            "report a board line linking nothing until it exists or the link is fixed."
        )
    return 0


def _move(verb: str) -> int:
    from okfpro.io import workwriters as ww

    sel = _text_arg("selector (a project slug, a /link/target, or a piece of the line's text)")
    _, (edit, b) = _write(lambda root: ww.do_move(root, verb, sel))
    dest = "In flight" if verb == "promote" else "Backlog"
    header = b.lines[b.header_index] if b.header_index is not None else "(no header)"
    click.echo(f"okfpro {verb} — moved to {dest}:\n  {edit.note.rstrip()}\n  header now: {header}")
    if verb == "promote":
        click.echo("Owed, and yours: a next-action line for it, and a journal entry that links it.")
    return 0


@click.command("promote", cls=RawWriter, usage_args="SEL")
def promote_cmd() -> int:
    """promote SEL — move one Inbox/Backlog line to In flight (refused over the cap)."""
    return _move("promote")


@click.command("demote", cls=RawWriter, usage_args="SEL")
def demote_cmd() -> int:
    """demote SEL — move one In flight line to Backlog."""
    return _move("demote")


@click.command("journal", cls=RawWriter, usage_args="open")
def journal_cmd() -> int:
    """journal open — create today's journal entry and link it from journal/index.md."""
    from okfpro.io import workwriters as ww

    args = _writer_args()
    if args != ["open"]:
        fail("usage: okfpro journal open")
    _, res = _write(lambda root: ww.do_journal_open(root, today()))
    parts = []
    parts.append(f"created journal/{res.day}.md" if res.created_entry else f"journal/{res.day}.md already exists")
    parts.append("linked it from journal/index.md" if res.linked else "journal/index.md already links it")
    click.echo(f"okfpro journal open — {'; '.join(parts)}.")
    return 0


@click.command("close", cls=RawWriter, usage_args="SLUG")
def close_cmd() -> int:
    """close SLUG — mark projects/SLUG closed, remove its board lines, log it."""
    from okfpro.io import workwriters as ww

    args = _writer_args()
    if len(args) != 1:
        fail("usage: okfpro close SLUG (one project name)")
    _, res = _write(lambda root: ww.do_close(root, today(), args[0]))
    out = [f"okfpro close — projects/{res.slug}:"]
    out.append("  marked closed in its index.md heading" if res.marked else "  already marked closed")
    out.append(f"  {res.removed} board line(s) removed" + (f"; header now: {res.header}" if res.header else ""))
    out.append(f"  logged: {res.log_line}")
    out.append(
        "Owed, and yours: what this work taught that outlives it belongs in learnings/ or glossary/ "
        "before the project fades."
    )
    if res.owes_snapshot:
        out.append("Note: today's log now ends after its Snapshot line (or has none); the day still owes one at its end.")
    click.echo("\n".join(out))
    return 0


@click.command("log-snapshot", cls=RawWriter)
def log_snapshot_cmd() -> int:
    """log-snapshot — append today's Snapshot line (what `okfpro snapshot` prints) to log.md.

    The day's last entry in log.md is its Snapshot line (Rule 2): the Stop gate, `audit` and the
    commit door refuse bundle changes until today's line is there and agrees with the bundle.
    Run again after more changes: it appends the recomputed line; when the day already ends with
    a line that agrees, it writes nothing.
    """
    from okfpro.io import workwriters as ww

    if _writer_args():
        fail("takes no arguments: usage: okfpro log-snapshot")
    root, res = _write(lambda root: ww.do_log_snapshot(root, today()))
    if res.written:
        click.echo(f"okfpro log-snapshot — appended under ## {res.day} in {root / 'log.md'}:\n  {res.line}")
    else:
        click.echo(f"okfpro log-snapshot — {root / 'log.md'} already ends {res.day} with this line; nothing written:\n  {res.line}")
    return 0
