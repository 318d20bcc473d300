#!/usr/bin/env python3
"""Generate a realistic synthetic okfpro workspace for benchmarks.

    python bench/gen_bundle.py OUT N [--seed S] [--board-lines L] [--git]

Writes ``OUT/.okf/`` with N concepts spread over the scaffold's rooms and a
handful of topic folders: real frontmatter (type, title, description, tags,
generated, some verified, some sources), body text with cross-links (some
broken on purpose), an ``index.md`` per directory, a six-section board of L
lines and a log with dated days and Snapshot lines.  Deterministic for a seed.
"""

from __future__ import annotations

import argparse
import datetime as dt
import random
import subprocess
from pathlib import Path

WORDS = (
    "ledger latency cache tenant session policy schema migration kafka redis postgres search "
    "deploy pipeline budget revenue invoice refund orders customers cohort retention churn "
    "metric dashboard journal board incident review drill release alpha beta gamma delta token "
    "memory agent hook snapshot owner index fare ridership join backlog quota"
).split()
TYPES = ["Briefing", "Decision", "Finding", "Learning", "Term", "Overview", "Transcript"]
ROOMS = ["reference", "learnings", "glossary", "projects", "areas", "topics"]
TODAY = dt.date(2026, 11, 30)


def sentence(rng: random.Random, n: int) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(n)).capitalize() + "."


def generate(out: Path, n: int, seed: int = 7, board_lines: int = 40) -> Path:
    rng = random.Random(seed)
    root = out / ".okf"
    root.mkdir(parents=True, exist_ok=True)
    (out / ".tmp").mkdir(exist_ok=True)
    (out / ".tmp" / ".gitkeep").write_text("")

    # distribute concepts over directories of <= 200 concepts each
    dirs: list[str] = []
    ids: list[str] = []
    projects = [f"proj-{i:02d}" for i in range(max(2, n // 500))]
    for i in range(n):
        room = ROOMS[i % len(ROOMS)]
        if room == "projects":
            d = f"projects/{projects[i % len(projects)]}"
        elif room == "topics":
            d = f"topics/t{(i // 200) % 50:02d}"
        else:
            d = f"{room}/g{(i // 400) % 25:02d}"
        slug = "-".join(rng.sample(WORDS, 3)) + f"-{i}"
        ids.append(f"{d}/{slug}")
        dirs.append(d)

    by_dir: dict[str, list[tuple[str, str, str]]] = {}
    for i, cid in enumerate(ids):
        d = dirs[i]
        title = " ".join(w.capitalize() for w in rng.sample(WORDS, 3))
        desc = sentence(rng, 8)
        ctype = TYPES[i % len(TYPES)]
        tags = rng.sample(WORDS, rng.randint(0, 3))
        links = []
        for _ in range(rng.randint(1, 4)):
            target = ids[rng.randrange(n)]
            links.append(f"[{target.rsplit('/', 1)[-1]}](/{target}.md)")
        if rng.random() < 0.05:
            links.append("[gone](/nowhere/missing.md)")
        fm = [
            "---",
            f"type: {ctype}",
            f"title: {title}",
            f"description: {desc}",
            f"tags: [{', '.join(tags)}]",
            "generated:",
            f"  by: {'claude/opus-5' if i % 3 else 'human:ana'}",
            f"  at: {(TODAY - dt.timedelta(days=rng.randint(0, 400))).isoformat()}",
        ]
        if i % 4 == 0:
            fm += ["verified:", "  - by: human:ana", f"    at: {TODAY.isoformat()}"]
        if i % 5 == 0:
            fm += ["sources:", "  - id: s1", f"    resource: https://example.com/{rng.choice(WORDS)}/{i}",
                   f"    title: {sentence(rng, 3)}"]
        if i % 17 == 0:
            fm.append("status: deprecated")
        if i % 11 == 0:
            fm.append(f"stale_after: {(TODAY + dt.timedelta(days=rng.randint(-60, 60))).isoformat()}")
        fm.append("---")
        body = [f"# {title}", "", sentence(rng, 25), "", "See " + ", ".join(links) + ".", ""]
        if i % 5 == 0:
            body += ["A sourced claim.[^s1]", ""]
        body += [sentence(rng, 40), ""]
        if i % 9 == 0:
            body += ["```", "not [a link](/code/only.md)", "```", ""]
        path = root / f"{cid}.md"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("\n".join(fm) + "\n\n" + "\n".join(body))
        by_dir.setdefault(d, []).append((cid, title, desc))

    # indexes: one per directory, listing its concepts; parents list subdirectories
    all_dirs: set[str] = set()
    for d in by_dir:
        parts = d.split("/")
        for k in range(1, len(parts) + 1):
            all_dirs.add("/".join(parts[:k]))
    children: dict[str, set[str]] = {}
    for d in all_dirs:
        parent = d.rsplit("/", 1)[0] if "/" in d else ""
        children.setdefault(parent, set()).add(d)
    for d in sorted(all_dirs):
        lines = [f"# {d.rsplit('/', 1)[-1].capitalize()}", ""]
        for sub in sorted(children.get(d, ())):
            name = sub.rsplit("/", 1)[-1]
            lines.append(f"* [{name}]({name}/) - {name}.")
        for cid, title, desc in sorted(by_dir.get(d, [])):
            lines.append(f"* [{title}]({cid.rsplit('/', 1)[-1]}.md) - {desc}")
        (root / d / "index.md").write_text("\n".join(lines) + "\n")
    for p in projects:
        pdir = root / "projects" / p
        pdir.mkdir(parents=True, exist_ok=True)
        idx = pdir / "index.md"
        text = idx.read_text() if idx.exists() else f"# {p}\n\n"
        idx.write_text(f"# Project {p}\n\n" + text.split("\n", 2)[-1])
    (root / "journal").mkdir(exist_ok=True)
    (root / "journal" / "index.md").write_text("# Journal\n\n")
    for k in range(1, 6):
        day = (TODAY - dt.timedelta(days=k)).isoformat()
        (root / "journal" / f"{day}.md").write_text(
            f"---\ntype: Journal Entry\ntitle: \"{day}\"\ndescription: What happened on {day}.\n---\n\n# {day}\n\n"
            f"Worked on [/projects/{projects[k % len(projects)]}/](/projects/{projects[k % len(projects)]}/index.md).\n"
        )
        with open(root / "journal" / "index.md", "a") as fh:
            fh.write(f"* [{day}]({day}.md) - the day's record.\n")
    (root / "areas").mkdir(exist_ok=True)
    (root / "areas" / "corpus.md").write_text(
        "---\ntype: Overview\ntitle: Corpus standard\ndescription: The standard this corpus is kept at.\n---\n\n"
        "# Corpus\n\nTypes: Briefing, Decision, Finding, Learning, Term, Journal Entry, Transcript, Overview, Board.\n"
    )
    top = sorted(children.get("", ()))
    (root / "index.md").write_text(
        '---\nokf_version: "0.2"\n---\n\n# Bundle\n\n'
        + "".join(f"* [{t}]({t}/) - {t}.\n" for t in top)
        + "* [Board](board.md) - the board.\n* [Journal](journal/) - days.\n"
    )

    # board: six sections, board_lines lines in all
    sections = {"In flight": [], "Backlog": [], "Waiting": [], "Inbox": [], "To read": [], "Deadlines": []}
    for k, p in enumerate(projects[:5]):
        sections["In flight"].append(f"- next step on [/projects/{p}/](/projects/{p}/index.md)")
    names = list(sections)
    k = 0
    while sum(len(v) for v in sections.values()) < board_lines:
        name = names[1 + k % 5]
        day = (TODAY - dt.timedelta(days=rng.randint(-3, 30))).isoformat()
        if name == "Inbox":
            line = f"- {day} — {sentence(rng, 5)}"
        elif name == "Deadlines":
            line = f"- {day} — {sentence(rng, 4)}"
        elif name == "Waiting":
            line = f"- {sentence(rng, 4)} — asked {day}, chase {day}"
        elif name == "To read":
            line = f"- [/{ids[rng.randrange(n)]}.md](/{ids[rng.randrange(n)]}.md) {sentence(rng, 2)}"
        else:
            line = f"- {sentence(rng, 5)}"
        sections[name].append(line)
        k += 1
    inflight = len(sections["In flight"])
    board = ["---", "type: Board", "title: Board", "description: The one page of state.", "---", "",
             "# Board", "", f"**In flight: {inflight}/5**", ""]
    for name, lines in sections.items():
        board += [f"## {name}", *lines, ""]
    (root / "board.md").write_text("\n".join(board))
    log = ["# Update Log", ""]
    for k in range(1, 30):
        day = (TODAY - dt.timedelta(days=k)).isoformat()
        # a Snapshot line per day (counters drift with the day, no draw from rng: the rest stays as it was)
        snap = (f"* **Snapshot**: inbox {3 + k % 7} (oldest {k % 5}d) · in flight {min(5, 1 + k % 6)}/5"
                f" · waiting {k % 3} (0 past chase) · backlog {10 + (k * 7) % 9} · to read {k % 4}"
                " · unverified briefings 0 · conflicts open 0 · deadlines within 7d not in flight 0"
                " · projects with 0 concepts 0")
        log += [f"## {day}", f"* **Update**: {sentence(rng, 6)}", snap, ""]
    (root / "log.md").write_text("\n".join(log))
    (root / "roadmap.md").write_text("---\ntype: Overview\ntitle: Roadmap\ndescription: Where this is going.\n---\n\n# Roadmap\n\nLater.\n")
    return root


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out", type=Path)
    ap.add_argument("n", type=int)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--board-lines", type=int, default=40)
    ap.add_argument("--git", action="store_true", help="git init and commit the workspace")
    args = ap.parse_args()
    root = generate(args.out, args.n, args.seed, args.board_lines)
    if args.git:
        subprocess.run(["git", "init", "-q", str(args.out)], check=True)
        subprocess.run(["git", "-C", str(args.out), "add", "-A"], check=True)
        subprocess.run(["git", "-C", str(args.out), "-c", "user.name=bench", "-c", "user.email=bench@example.invalid",
                        "commit", "-qm", "bench bundle"], check=True)
    print(root)


if __name__ == "__main__":
    main()
