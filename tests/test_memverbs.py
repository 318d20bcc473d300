"""``memory remember`` / ``memory recall`` have two doors: click's, and the click-free one okfpro/__main__.py
takes first (okfpro/cli/memverbs.py).  Both read one option table; these tests prove they cannot drift:
the click-free parser gives exactly click's parameters or hands the command line to click, and both
doors print the same bytes and exit with the same code."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings, strategies as st
from tests.helpers import examples

from okfpro.cli import memverbs
from okfpro.cli.memory import memory_cmd
from tests.helpers import in_process, quick, scoped_env

CLICK_DOOR = "import sys; from okfpro.cli.app import run; sys.exit(run(sys.argv[1:]))"


def click_params(verb: str, argv: list[str]) -> dict | None:
    """What click hands the command for ``argv`` (None: click refuses it, or it asks for help)."""
    import click

    cmd = memory_cmd.commands[verb]
    try:
        with cmd.make_context(verb, list(argv), resilient_parsing=False) as ctx:
            return dict(ctx.params)
    except (click.exceptions.Exit, click.ClickException):
        return None


PLAIN = {
    "recall": [["kilo"], ["kilo", "note", "--json"], ["--limit", "3", "a"], ["a", "--limit=0", "--all", "b"],
               ["-", "x"], ["--all", "--json", "w", "--limit", "007"]],
    "remember": [["some text"], ["-"], ["t", "--tier", "session", "--kind", "decision", "--json"],
                 ["--valid-until=2027-01-01", "x", "--review-at", "2026-12-24", "--supersede", "auto"],
                 ["x", "--source=agent", "--confidence", "high", "--visibility", "tenant", "--contradicts", "m-1"]],
}
ODD = {
    "recall": [[], ["--help"], ["-h", "x"], ["x", "--limit", "-1"], ["x", "--limit=-1"], ["x", "--limit", "+1"], ["x", "--limit", "1_0"],
               ["x", "--limit"], ["x", "--json=1"], ["--", "--json"], ["x", "--bogus"], ["x", "--limit", "١"],
               ["x", "--json", "--json"], ["x", "--lim", "2"], ["-5"], ["x", "--limit", "--all"]],
    "remember": [[], ["a", "b"], ["x", "--tier", "nope"], ["x", "--tier", "User"], ["x", "--valid-until"],
                 ["x", "--valid-until", "--json"], ["--", "-x"], ["x", "--json", "--tier=user", "--tier=session"],
                 ["-x"], ["x", "--help"]],
}


@pytest.mark.parametrize("verb", ["recall", "remember"])
def test_the_plain_command_lines_take_the_click_free_door_with_clicks_parameters(verb):
    table = memverbs.BODIES[verb][0]
    for argv in PLAIN[verb]:
        params = memverbs.parse(table, argv)
        assert params is not None, argv
        assert params == click_params(verb, argv), argv


@pytest.mark.parametrize("verb", ["recall", "remember"])
def test_help_errors_and_other_spellings_are_left_to_click(verb):
    table = memverbs.BODIES[verb][0]
    for argv in ODD[verb]:
        params = memverbs.parse(table, argv)
        assert params is None or params == click_params(verb, argv), argv


TOKENS = st.sampled_from(["--json", "--all", "--limit", "--limit=2", "--limit=-3", "--tier", "--tier=agent", "--kind", "decision",
                          "user", "session", "--source", "agent", "--valid-until", "2026-01-01", "--supersede",
                          "auto", "-", "--", "-h", "--help", "0", "12", "-1", "x", "note", "", " ", "--review-at=",
                          "--confidence=low", "--visibility", "global", "--contradicts=m-2", "--bogus"])


@settings(max_examples=examples(400), deadline=None)
@given(verb=st.sampled_from(["recall", "remember"]), argv=st.lists(TOKENS | st.text(max_size=6), max_size=7))
def test_any_command_line_parses_as_click_parses_it_or_goes_to_click(verb, argv):
    params = memverbs.parse(memverbs.BODIES[verb][0], argv)
    if params is not None:
        assert params == click_params(verb, argv)


def test_the_click_commands_are_built_from_the_one_table():
    for verb, (table, _body) in memverbs.BODIES.items():
        cmd = memory_cmd.commands[verb]
        names = [p.name for p in cmd.params]
        assert names == [table.argument] + [o.dest for o in table.options]
        for opt in table.options:
            (param,) = [p for p in cmd.params if p.name == opt.dest]
            assert param.opts == [opt.flag]
            if opt.kind != "flag":
                assert param.default == opt.default
            if opt.kind == "choice":
                assert tuple(param.type.choices) == opt.choices


# ------------------------------------------------------------------ both doors, real processes


def _env(**parts: str) -> dict[str, str]:
    return scoped_env("_OKFPRO_COMPLETE", **parts)


def _clockless(data: bytes) -> bytes:
    return re.sub(rb"\d\d:\d\d:\d\d", b"hh:mm:ss", data)


def _both(a: Path, b: Path, env: dict[str, str], argv: list[str], stdin: bytes | None = None) -> tuple:
    """Each door's (exit code, stdout, stderr), clock masked: as real processes, or in the test's own
    process (tests/helpers.in_process, as a process would run it) in the inner loop (quick mode)."""
    if quick():
        from okfpro.__main__ import main
        from okfpro.cli.app import run

        full = ["memory", *argv]
        fast = in_process(lambda: main(full), a, stdin, env, full)
        slow = in_process(lambda: run(full), b, stdin, env, full)
    else:
        procs = [subprocess.run([sys.executable, *door, "memory", *argv], cwd=ws, env=env, input=stdin,
                                capture_output=True) for door, ws in ((["-m", "okfpro"], a), (["-c", CLICK_DOOR], b))]
        fast, slow = ((p.returncode, p.stdout, p.stderr) for p in procs)
    return ((fast[0], _clockless(fast[1]), _clockless(fast[2])),
            (slow[0], _clockless(slow[1]), _clockless(slow[2])))


def test_both_doors_print_the_same_and_exit_the_same(tmp_path):
    a = tmp_path / "a"
    (a / ".okf").mkdir(parents=True)
    (a / "okfpro.toml").write_text("[memory]\n")
    b = tmp_path / "b"
    shutil.copytree(a, b)
    env = _env(OKFPRO_TENANT="acme", OKFPRO_USER="alice", OKFPRO_TODAY="2026-11-30")
    script: list[tuple[list[str], bytes | None]] = [
        (["remember", "the deploy window is friday"], None),
        (["remember", "the deploy window is friday"], None),  # skipped: a duplicate
        (["remember", "-", "--kind", "decision", "--json"], "ship on \x1b[31mred\x1b[0m days only".encode()),
        (["remember", "-"], b"\xff\xfe not utf-8"),
        (["remember", "token ghp_" + "a1B2" * 9 + " for the bot"], None),
        (["remember", "x", "--supersede", "m-000000000000"], None),
        (["recall", "deploy", "friday"], None),
        (["recall", "red", "days", "--json", "--limit", "1"], None),
        (["recall", "red", "days"], None),  # an escape sequence: click strips it from a pipe
        (["recall", "nothing-matches-this"], None),
        (["recall", "deploy", "--all", "--limit=0"], None),
        (["recall", "--help"], None),
        (["remember", "--help"], None),
        (["recall"], None),
        (["recall", "x", "--limit", "-2"], None),
        (["remember", "x", "--tier", "nope"], None),
        (["remember", "a", "b"], None),
    ]
    for argv, stdin in script:
        fast, slow = _both(a, b, env, argv, stdin)
        assert fast == slow, argv
    # a refusal from inside the verb (no identity in multi-user mode) names the verb the same way
    for ws in (a, b):
        (ws / "okfpro.toml").write_text('[memory]\nmode = "multi-user"\n')
    for argv in (["recall", "deploy"], ["remember", "x"]):
        fast, slow = _both(a, b, _env(OKFPRO_TODAY="2026-11-30"), argv)
        assert fast == slow and fast[0] == 2 and fast[2].startswith(f"okfpro memory {argv[0]}: ".encode()), (fast, slow)
    # a bad clock: the same refusal, exit 2
    fast, slow = _both(a, b, _env(OKFPRO_TENANT="acme", OKFPRO_USER="alice", OKFPRO_TODAY="someday"), ["recall", "x"])
    assert fast == slow and fast[0] == 2
