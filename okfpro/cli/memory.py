"""``okfpro memory``: remember, recall, list, log, forget — as the resolved identity only.

The scope comes from configuration and the environment (``OKFPRO_TENANT``,
``OKFPRO_USER``, ``OKFPRO_AGENT``, ``OKFPRO_SESSION`` over ``[identity]`` in
okfpro.toml), never from the text being remembered.

Exit codes: 0 done (a recall that finds nothing included), 2 refused or could not run.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import Any

import click

from okfpro.cli.common import dumps, fail, today
from okfpro.cli.memverbs import BODIES, MemoryCtx as _Ctx, Verb, actor as _actor
from okfpro.core import mempolicy as _mempolicy
from okfpro.core.scope import TIERS



def _session_arg(session: str | None) -> str | None:
    """``--session ID`` checked as a scope segment (exit 2 when it cannot be one)."""
    if session is None:
        return None
    from okfpro.core.scope import segment_problem

    problem = segment_problem(session)
    if problem:
        fail(f"--session: the session id {problem}")
    return session


@click.group("memory")
@click.option(
    "--workspace",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="Workspace directory (default: the nearest directory holding okfpro.toml, else the enclosing "
         "bundle's workspace, else the Git repository, else the current directory).",
)
@click.pass_context
def memory_cmd(ctx: click.Context, workspace: Path | None) -> None:
    """Scoped memory: remember, recall, list, log, forget (scope from env / okfpro.toml)."""
    ctx.obj = _Ctx(workspace, click.echo, fail)


_tier_choice = click.Choice(list(TIERS))


def _from_table(verb: Verb) -> Any:
    """The click command of a verb whose options are written once in okfpro/cli/memverbs.py (the
    click-free door reads the same table); the decorated function holds only the help text."""
    def make(doc: Any) -> Any:
        def command(obj: _Ctx, **params: Any) -> int:
            return body(obj, **params)

        body = BODIES[verb.name][1]
        command.__doc__ = doc.__doc__
        for opt in reversed(verb.options):
            kw: dict[str, Any] = {"help": opt.help, "show_default": opt.show_default, "default": opt.default}
            if opt.kind == "flag":
                kw = {"is_flag": True, "help": opt.help}
            elif opt.kind == "choice":
                kw["type"] = click.Choice(list(opt.choices))
            elif opt.kind == "count":
                kw["type"] = click.IntRange(min=0)
            else:
                kw["metavar"] = opt.metavar
            command = click.option(opt.flag, opt.dest, **kw)(command)
        command = click.argument(verb.argument, nargs=-1 if verb.many else 1, required=True)(command)
        return memory_cmd.command(verb.name)(click.pass_obj(command))

    return make


@_from_table(BODIES["remember"][0])
def remember_cmd() -> None:
    """Remember TEXT in the current scope (TEXT '-' reads standard input).

    The text passes the capture safety layer first (secrets redacted, credential files
    refused), then decided against the scope's memories: an exact duplicate is skipped,
    a supersession or a declared contradiction is recorded — nothing is overwritten.
    """


@memory_cmd.command("change")
@click.argument("what", type=click.Choice(["archive", "expire", "confirm"]))
@click.argument("memory_id")
@click.option("--tier", type=_tier_choice, default="user", show_default=True)
@click.option("--json", "as_json", is_flag=True)
@click.pass_obj
def change_cmd(obj: _Ctx, what: str, memory_id: str, tier: str, as_json: bool) -> int:
    """Archive, expire or confirm MEMORY_ID by appending a change record (nothing is rewritten)."""
    from okfpro.memory.policy import change

    store, scope = obj.open()
    result = change(store, scope, what, memory_id, tier=tier, today=today(), audit_root=store.base)
    if as_json:
        click.echo(dumps(result.to_json()))
    if result.decision.decision == "reject" or not result.written:
        fail(result.decision.reason if result.decision.decision == "reject" else (result.error or "not written"))
    if not as_json:
        click.echo(f"{what}: {memory_id} ({tier})")
    return 0


@memory_cmd.command("audit")
@click.option("--json", "as_json", is_flag=True, help="The summary as JSON.")
@click.pass_obj
def audit_cmd(obj: _Ctx, as_json: bool) -> int:
    """Summarise the content-free audit trail (event counts, latencies, outcomes; never text).

    Only the caller's own identity's events, unless okfpro.toml names the caller a
    maintainer of the audit trail ([memory.maintainers] audit).
    """
    from okfpro.io.identity import identity_hash, maintainer_problem
    from okfpro.memory.telemetry import audit_path, read_events, render, summarise_events

    store, res, cfg = obj.open_as()
    try:
        events, bad = read_events(audit_path(store.root))
    except OSError as exc:
        fail(f"cannot read the audit trail: {exc.strerror or exc}")
    if maintainer_problem(res, cfg, "audit") is not None:
        mine = identity_hash(res.scope)
        events = [ev for ev in events if ev.get("identity_hash") == mine]
        bad = 0
    summary = summarise_events(events, bad)
    click.echo(dumps(summary) if as_json else render(summary))
    return 0


@_from_table(BODIES["recall"][0])
def recall_cmd() -> None:
    """Memories of the current scope matching WORDS (quoted or not), most specific tier first.

    Superseded, expired and archived memories are hidden unless --all; each passage
    shows its kind, status and date.  No match is not an error (exit 0).
    """


@memory_cmd.command("import")
@click.argument("source", metavar="FILE|-")
@click.option("--tier", type=_tier_choice, default="user", show_default=True,
              help="Tier for lines that name none (and for transcripts).")
@click.option("--kind", type=click.Choice(list(_mempolicy.KINDS)), default="event", show_default=True,
              help="Kind for lines that name none.")
@click.option("--source", "source_", type=click.Choice(list(_mempolicy.SOURCES)), default="user", show_default=True,
              help="Source for lines that name none.")
@click.option("--json", "as_json", is_flag=True, help="Print the summary as JSON.")
@click.pass_obj
def import_cmd(obj: _Ctx, source: str, tier: str, kind: str, source_: str, as_json: bool) -> int:
    """Import memories from FILE (or '-' for standard input) into the current scope.

    JSON lines of {text, time?, tier?, kind?, source?, id?}, or a Claude Code transcript
    (.jsonl: each user prompt with the assistant's last reply becomes one captured
    exchange).  Every entry passes the same safety layer and duplicate check as
    'remember'; one commit per tier; a re-run adds nothing twice.  A malformed line
    stops the import before anything is written (exit 2).
    """
    from okfpro.io.progress import work
    from okfpro.memory.importer import PHASES, BadImport, parse, run

    try:
        if source == "-":
            lines = sys.stdin.buffer.read().splitlines()
        else:
            with open(source, "rb") as handle:
                lines = handle.read().splitlines()
    except OSError as exc:
        fail(f"cannot read {source}: {exc.strerror or exc}")
    with work("importing memory", PHASES):
        try:
            items = parse(lines, tier=tier, kind=kind, source=source_)
        except BadImport as exc:
            fail(f"{source}: {exc}; nothing was imported")
        store, scope = obj.open()
        result = run(store, scope, items, actor=_actor(scope), today=today(), audit_root=store.base)
    if as_json:
        click.echo(dumps(result.to_json()))
    else:
        click.echo(f"imported {result.imported} of {result.read} entr{'y' if result.read == 1 else 'ies'} "
                   f"({result.skipped} already present, {result.refused} refused)")
        for t, commit in result.commits.items():
            click.echo(f"  {t}: {commit[:12]}")
        if result.redacted:
            click.echo(f"  {result.redacted} secret(s) redacted before writing", err=True)
    if result.errors:
        fail("; ".join(result.errors))
    return 0


_session_filter = click.option("--session", "session", metavar="ID", default=None,
                               help="Only this session of yours (default: every session of yours, your user tier "
                                    "and the shared tiers that apply to you).")


@memory_cmd.command("list")
@_session_filter
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
@click.pass_obj
def list_cmd(obj: _Ctx, session: str | None, as_json: bool) -> int:
    """Every entry you may read: tier, id, title, date.

    Every session of yours (under whatever session id), your user tier and the shared
    tiers that apply to you; --session narrows it to one session of yours.
    """
    from okfpro.memory.views import list_payload

    store, scope = obj.open()
    payload, result = list_payload(store, scope, _session_arg(session))
    if as_json:
        click.echo(dumps(payload))
    else:
        for e in result.entries:
            click.echo(f"{e.tier}\t{e.id}\t{e.date} {e.time}\t{e.title}")
        for d in result.diagnostics:
            click.echo(f"okfpro memory: {d.source}: {d.message}", err=True)
    return 0


@memory_cmd.command("log")
@click.option("--tier", type=_tier_choice, default=None, help="Only this tier.")
@_session_filter
@click.option("--limit", type=click.IntRange(min=1), default=None, help="At most N commits per scope.")
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
@click.pass_obj
def log_cmd(obj: _Ctx, tier: str | None, session: str | None, limit: int | None, as_json: bool) -> int:
    """The history of what you may read (one commit per remember / forget), newest first per scope.

    Every session of yours, your user tier and the shared tiers that apply to you;
    --tier and --session narrow it.
    """
    store, scope = obj.open()
    result = store.log(scope, tier, limit, session=_session_arg(session))
    if result.error:
        fail(result.error)
    for problem in result.diagnostics:
        click.echo(f"okfpro memory: {problem}", err=True)
    if as_json:
        click.echo(dumps({"scope": scope.parts(), "commits": [e.to_json() for e in result.entries]}))
    else:
        for e in result.entries:
            click.echo(f"{e.commit[:12]} {e.time} {e.summary}")
    return 0


@memory_cmd.command("forget")
@click.option("--tier", type=_tier_choice, default=None,
              help="Only this tier. Default: what you own (the user tier and every session of yours). "
                   "tenant / agent: shared tiers, only for a maintainer named in okfpro.toml.")
@click.option("--purge", is_flag=True, help="Hard erasure: drop the history too and prune every object holding it.")
@click.option("--yes", "-y", is_flag=True, help="Do not ask for confirmation.")
@click.option("--remote", default=None, help="With --purge: a memory remote to erase from too, besides "
              "[memory] remote and every remote this clone ever synced with (--remote '' for none now: "
              "the erasure record left here is carried to each remote by its next sync).")
@click.pass_obj
def forget_cmd(obj: _Ctx, tier: str | None, purge: bool, yes: bool, remote: str | None) -> int:
    """Delete your memory (a commit; history kept unless --purge).

    Without --tier: your user tier and every session of yours, under whatever session id,
    including sessions already cleaned at session end whose text is still in history.
    The shared tiers (tenant, agent) only with an explicit --tier, and only for an
    identity okfpro.toml names in [memory.maintainers].
    """
    from okfpro.io.identity import maintainer_problem

    store, res, cfg = obj.open_as()
    scope = res.scope
    shared = tier in ("tenant", "agent")
    if tier in ("tenant", "agent"):
        problem = maintainer_problem(res, cfg, tier)
        if problem is not None:
            from okfpro.memory.store import DeleteResult

            why = f"refusing to forget the shared {tier} tier: {problem}"
            store.audit_erasure(scope, tier, purge, DeleteResult(purged=purge, error=why), True, "cli", time.perf_counter())
            fail(why)
    what = f"the {tier} tier" if shared else {None: "your user tier and every session of yours",
                                              "user": "your user tier",
                                              "session": "every session of yours"}[tier]
    how = "erase (files, history and objects)" if purge else "forget (history kept)"
    if not yes:
        prompt = f"{how.capitalize()} {what} ({scope.describe()})?"
        try:
            confirmed = click.confirm(prompt, default=False, err=True)
        except click.Abort:  # end of input: nobody answered
            fail("no answer to the confirmation, so nothing was forgotten; pass --yes to confirm without asking")
        if not confirmed:
            fail("nothing forgotten", 2)
    targets = None
    if purge and remote != "" and store.history is not None:
        from okfpro.cli.memsync import erased_targets
        from okfpro.memory.remote import known_remotes

        if remote or cfg.get("memory", "remote", None) or known_remotes(store.history.gitdir):
            targets = erased_targets(store, scope, tier)
    result = store.forget(scope, cfg, tier, purge=purge, actor=_actor(scope), surface="cli")
    if result.error:
        fail(result.error)
    if targets is not None:
        from okfpro.cli.memsync import erase_on_remote

        erase_on_remote(cfg.workspace, cfg, store, res, remote, targets, tier)
    if purge and result.verified:
        click.echo(f"erased {result.tiers_deleted} scope(s); every object was checked and none holds an erased "
                   "entry (verified)")
    elif purge:
        click.echo(f"erased {result.tiers_deleted} scope(s); the erasure is not proven")
        click.echo(
            f"okfpro memory: note: {len(result.shared)} object(s) of other scopes hold byte-identical "
            "entries; they belong to those scopes and were kept",
            err=True,
        )
    else:
        click.echo(f"forgot {result.tiers_deleted} scope(s)")
        for where, commit in result.commits.items():
            click.echo(f"  {where}: {commit[:12]}")
    return 0


from okfpro.cli.memsync import server_hook_cmd, sync_cmd  # noqa: E402 - the memory group's remote verbs

memory_cmd.add_command(sync_cmd)
memory_cmd.add_command(server_hook_cmd)
