"""The command line: one table names every verb and the module that implements it.

Commands are imported lazily (by the click application, okfpro/cli/app.py), so ``okfpro
--help`` does not pay for every verb's dependencies, and this table costs no click.  To add a verb: write a click command in a module under
``okfpro/cli/``, then add one row here (and one line in README's command list).

Exit codes (every verb): 0 ok, 1 findings, 2 usage / could not run.  A command returns its
code, or ends through :func:`okfpro.cli.common.fail` (exit 2 with one stderr line); the
shared plumbing (addressing, JSON output) is in :mod:`okfpro.cli.common`.
"""

from __future__ import annotations

# name -> (module, attribute, one-line help).  Keep sorted by family, not alphabet.
COMMANDS: dict[str, tuple[str, str, str]] = {
    # workspace: scaffold and doors
    "init": ("okfpro.cli.scaffold", "init_cmd", "Make DIR an agent's working brain (writes the template, never overwrites)."),
    "upgrade": ("okfpro.cli.scaffold", "upgrade_cmd", "Rewrite the tool-owned files; complete, never overwrite, the seeded ones."),
    "audit": ("okfpro.cli.doors", "audit_cmd", "The CI door: every invariant of the workspace at once."),
    "records": ("okfpro.cli.doors", "records_cmd", "The commit door: the staged commit must not rewrite a past journal day."),
    "unverified": ("okfpro.cli.doors", "unverified_cmd", "Concepts still awaiting the owner's read."),
    "doctor": ("okfpro.cli.doctor", "doctor_cmd", "Prove every wired agent host really runs every hook (and the commit door)."),
    "merge-file": ("okfpro.cli.merge", "merge_file_cmd", "Git's merge driver for board, log and journal: every line of both sides kept (init wires it)."),
    "friction": ("okfpro.cli.friction", "friction_cmd", "Hand edits of the bundle a verb could have done (telemetry; --issue, --clear)."),
    # work state: readers and writers
    "state": ("okfpro.cli.workstate", "state_cmd", "What is on the board, in one call (--full adds corpus-derived parts)."),
    "board": ("okfpro.cli.workstate", "board_cmd", "One row per board line: section, text, date, age, chase, targets."),
    "snapshot": ("okfpro.cli.workstate", "snapshot_cmd", "Compute today's Snapshot line (prints; never writes)."),
    "log-snapshot": ("okfpro.cli.workstate", "log_snapshot_cmd", "Append today's Snapshot line to log.md (once; the commit door asks for it)."),
    "capture": ("okfpro.cli.workstate", "capture_cmd", "Add a dated line to the board's Inbox."),
    "promote": ("okfpro.cli.workstate", "promote_cmd", "Move one Inbox/Backlog line to In flight (refused over the cap)."),
    "demote": ("okfpro.cli.workstate", "demote_cmd", "Move one In flight line to Backlog."),
    "journal": ("okfpro.cli.workstate", "journal_cmd", "journal open: create today's entry and link it from the index."),
    "close": ("okfpro.cli.workstate", "close_cmd", "Close a project: mark it, remove its board lines, log it."),
    # kernel: format and curation
    "validate": ("okfpro.cli.kernel", "validate_cmd", "Check a bundle against OKF v0.2 (errors and warnings)."),
    "lint": ("okfpro.cli.kernel", "lint_cmd", "Curation report: the 26 lint checks."),
    # read views and search
    "search": ("okfpro.cli.views", "search_cmd", "Find concepts (scan: ANDed terms, field-weighted score; --engine ranked: BM25)."),
    "catalog": ("okfpro.cli.views", "catalog_cmd", "Every concept with metadata, trust, status and link counts."),
    "files": ("okfpro.cli.views", "files_cmd", "Concept files by path: id, dir, type, title, description."),
    "index": ("okfpro.cli.views", "index_cmd", "The bundle map (§8) per directory, authored or synthesized."),
    "graph": ("okfpro.cli.views", "graph_cmd", "Nodes and edges (body links, source resources); --hubs, --minimal."),
    "references": ("okfpro.cli.views", "references_cmd", "Files under references/, who cites them, dangling pointers."),
    "stats": ("okfpro.cli.views", "stats_cmd", "Counts by type, dir and top dir; cross-links; tags."),
    "tags": ("okfpro.cli.views", "tags_cmd", "Tags by count (--by type|dir)."),
    "types": ("okfpro.cli.views", "types_cmd", "Concept types by count."),
    "dirs": ("okfpro.cli.views", "dirs_cmd", "Directories: direct count and subtree."),
    "loose": ("okfpro.cli.views", "loose_cmd", "Concepts with no link in or out."),
    "read": ("okfpro.cli.views", "read_cmd", "Print a concept's source (contained to the bundle)."),
    "render": ("okfpro.cli.render", "render_cmd", "serve's pages as one self-contained HTML file: every view and concept, Markdown rendered, the graph."),
    "serve": ("okfpro.cli.serve", "serve_cmd", "The bundle, board, log, journal and your memory as live pages (loopback, read-only)."),
    "registry": ("okfpro.cli.registry", "registry_cmd", "Name bundles once (set SLUG DIR, del, list); then @SLUG wherever a DIR goes."),
    # memory safety
    "secrets": ("okfpro.cli.secrets", "secrets_cmd", "Refuse files holding a detectable secret (pre-commit door)."),
    "whoami": ("okfpro.cli.identity", "whoami_cmd", "Show the resolved memory scope and where each part came from."),
    # scoped memory
    "memory": ("okfpro.cli.memory", "memory_cmd", "Scoped memory: remember, recall, import, list, log, forget; sync with a Git remote, server-hook."),
    "eval": ("okfpro.cli.eval", "eval_cmd", "Retrieval quality on a gold set (eval recall GOLD), next to a plain BM25."),
    # servers
    "mcp": ("okfpro.cli.mcp", "mcp_cmd", "Serve the workspace and scoped memory over MCP (stdio; --http with bearer tokens)."),
}

