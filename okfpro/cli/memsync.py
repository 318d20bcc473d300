"""``okfpro memory sync`` and ``okfpro memory server-hook``: memory over a Git remote.

Registered on the ``memory`` group by :mod:`okfpro.cli.memory`.  See
:mod:`okfpro.memory.sync` (the client), :mod:`okfpro.memory.tombstone` (erasure on the
remote) and :mod:`okfpro.memory.serverhook` (the server's pre-receive hook).

Exit codes: 0 synced; 1 synced, but some scope was refused (by the server, or not
mergeable without loss: the JSON and stderr say which); 2 could not run.
"""

from __future__ import annotations

import os
from pathlib import Path

import click

from okfpro.cli.common import dumps, fail


@click.command("sync")
@click.argument("remote", required=False)
@click.option("--json", "as_json", is_flag=True, help="The summary as JSON (scopes fetched, merged, pushed, tombstones).")
@click.option("--progress/--no-progress", default=None, help="Progress on stderr (default: after a second).")
@click.pass_obj
def sync_cmd(obj, remote: str | None, as_json: bool, progress: bool | None) -> int:
    """Sync your memory with a Git remote (REMOTE, else [memory] remote in okfpro.toml).

    Fetches only the refs your identity may read (your user tier and sessions, your
    tenant's and agent's shared tiers), merges day files without loss, pushes back.
    A remote object over [memory] sync_max_bytes (default 32 MiB) or a day file over
    sync_max_lines (default 500,000) refuses its scope: nothing changes here.
    """
    from okfpro.memory.remote import MAX_BYTES, MAX_LINES, Caps, resolve_remote
    from okfpro.memory.sync import sync

    store, res, cfg = obj.open_as()
    url, err = resolve_remote(cfg.workspace, cfg, remote)
    if url is None:
        fail(err or "no memory remote")
    caps = Caps(_cap(cfg, "sync_max_bytes", MAX_BYTES), _cap(cfg, "sync_max_lines", MAX_LINES))
    report = sync(store, res.scope, url, progress=progress, actor=res.scope.user or "local", caps=caps)
    data = report.to_json()
    if as_json:
        click.echo(dumps(data))
    else:
        click.echo(f"synced with {data['remote']}: fetched {len(data['fetched'])}, fast-forwarded "
                   f"{len(data['fast_forwarded'])}, merged {len(data['merged'])}, pushed {len(data['pushed'])}, "
                   f"tombstones applied {len(data['tombstones'])}")
    for row in data["refused"]:
        click.echo(f"okfpro memory sync: {row['scope']}: {row['why']}", err=True)
    if report.error:
        fail(report.error)
    return 0 if report.ok else 1


def _cap(cfg, key: str, default: int) -> int:
    value = cfg.get("memory", key, default)
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        fail(f"okfpro.toml: [memory] {key} must be a positive whole number, not {value!r}")
    return value


@click.group("server-hook", invoke_without_command=True)
@click.option("--config", "config_path", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="The server's pusher map (default: $GIT_DIR/okfpro-server.toml).")
@click.pass_context
def server_hook_cmd(ctx: click.Context, config_path: Path | None) -> int:
    """The pre-receive hook of a bare repository: refuse memory refs the pusher does not own.

    Run by Git (stdin: <old> <new> <ref> lines); `install REPO` writes it into a repository.
    """
    if ctx.invoked_subcommand is not None:
        return 0
    from okfpro.cli.serverdoor import pre_receive

    return pre_receive(config_path)


@server_hook_cmd.command("install")
@click.argument("repo", type=click.Path(file_okay=False, exists=True, path_type=Path))
@click.option("--config", "config_path", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="The pusher map the hook reads (default: REPO/okfpro-server.toml).")
def install_cmd(repo: Path, config_path: Path | None) -> int:
    """Write REPO/hooks/pre-receive (a bare repository) running this hook."""
    from okfpro.memory.serverhook import install

    try:
        hook = install(repo.resolve(), config_path.resolve() if config_path else None)
    except (ValueError, OSError) as exc:
        fail(str(exc))
    click.echo(f"installed {hook}")
    return 0


@server_hook_cmd.command("http-backend")
@click.option("--config", "config_path", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="The pusher map (default: okfpro-server.toml of the repository the request names).")
def http_backend_cmd(config_path: Path | None) -> int:
    """Run `git http-backend` (a CGI program) so that the authenticated user sees only the
    memory refs it may read.

    Point the web server's CGI for the repository here instead of at git-http-backend
    (`install` writes REPO/okfpro-http-backend doing so): REMOTE_USER (or the configured
    pusher variable) is mapped by the pusher map; every other memory ref is hidden from
    listing, fetching and pushing (transfer.hideRefs), and Git protocol v0 is used, under
    which only objects reachable from the shown refs are served.
    """
    from okfpro.cli.serverdoor import exec_backend

    exec_backend(config_path)  # becomes git http-backend: never returns


def erased_targets(store, scope, tier: str | None) -> list:
    """What ``forget --purge`` is about to erase, as sync targets (computed before the local
    purge drops the session refs that name them), each with the commit ids its tombstone lists."""
    from okfpro.memory.remote import Target
    from okfpro.memory.tombstone import history_ids

    if tier in ("tenant", "agent"):
        subs = [store.subtree(tier, scope)]
    else:
        subs = store.subject_subtrees(scope, tier)
    gitdir = store.history.gitdir
    return [Target(s.tier, s.prefix, s.key, s.ref, history_ids(gitdir, s.ref)) for s in subs]


def erase_on_remote(workspace: str | os.PathLike[str], cfg, store, res, remote: str | None, targets: list, tier: str | None = None) -> None:
    """The remote half of a purge, on every remote it must hold against: the one named
    (``remote``, else ``[memory] remote``) and every remote this clone ever synced with —
    delete the refs there, push tombstones, say what is left.  ``tier``: what was purged
    (``None``: the whole subject, so every session of the user on the remote too).  A remote
    not reached keeps the local erasure record owed: its next sync carries it."""
    from okfpro.memory.remote import known_remotes, redact, resolve_remote
    from okfpro.memory.tombstone import erase_remote

    urls: list[str] = []
    failed: list[str] = []
    if remote or cfg.get("memory", "remote", None):
        url, err = resolve_remote(workspace, cfg, remote)
        if url is None:
            failed.append(f"erased here, but not on the remote: {err}")
        else:
            urls.append(url)
    urls += [u for u in known_remotes(store.history.gitdir) if u not in urls]
    refused = False
    for url in urls:
        label = "remote" if len(urls) == 1 else f"remote {redact(url)}"
        report = erase_remote(store, res.scope, url, targets, res.key_hash(), sessions=tier in (None, "session"))
        if report["error"]:
            failed.append(f"erased here, but not on {redact(url)}: {report['error']} (its next sync carries the "
                          "erasure)")
            continue
        click.echo(f"{label}: removed {len(report['removed_remotely'])} ref(s), pushed {len(report['tombstones'])} "
                   "tombstone(s) (a clone that syncs later drops its copy)")
        click.echo(f"{label}: not finished here: {report['server']}")
        for row in report["refused"]:
            click.echo(f"okfpro memory forget: {label} refused {row['ref']}: {row['why']}", err=True)
        refused = refused or bool(report["refused"])
    if failed:
        fail("; ".join(failed))
    if refused:
        fail("the erasure on the remote is incomplete", 1)
