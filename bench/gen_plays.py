#!/usr/bin/env python3
"""A long-conversation gold set from public-domain plays, questions written by rule (no model).

    python bench/gen_plays.py SHAKESPEARE.txt > examples/conversations-plays.json
    python bench/gen_plays.py --questions examples/conversations-plays.json   # the questions again

The text: Shakespeare's plays as the public-domain "tiny shakespeare" file (speeches as ``NAME:``
then its lines, a blank line between speeches; 1,115,394 bytes, SHA-256 below).  Its stretches of
two people talking in turn (at least four speeches, A B A B ...; a third speaker ends one) are the
*sessions*; sessions in the text's order are grouped into *conversations* of at least 240 turns
(so one conversation has several pairs of speakers, as a play does); each session gets a date,
each speech is one turn (a speech its speaker already made in that conversation, case and punctuation
aside, is left out: ``memory import`` stores it once) (a memory with ``speaker``, ``text``, ``time``, its conversation as
``scope``).  Deterministic: the dates and every choice come from the text (no clock, no seed).

Questions come from the turns by these rules (``words``: a turn's words of five letters or more
that are not stop words or speakers' names, lower-cased; a *keyword* of a turn is one of them):

* ``single-hop``: a keyword that more than one turn of the conversation holds but only one turn of
  that speaker does: "What did <Speaker> say about <keyword>?" (the speaker tells them apart);
* ``multi-hop``: two keywords of one speaker, each held by one turn only, from two sessions:
  "What did <Speaker> say of <k1> and of <k2>?" (both turns are the evidence); and a keyword one
  speaker uses in two to four turns of several sessions: "Across the conversation, what did
  <Speaker> say about <k>?" (every such turn);
* ``temporal``: a keyword a speaker uses in two sessions of different months: "What did <Speaker>
  say about <k> in <Month Year>?" (the turn of that month);
* ``open-domain`` (context): a turn whose reply (the next turn, by the other speaker) holds two
  keywords neither the turn nor any other turn of the session holds: "What had <Speaker> said
  when <Other> answered about <r1> and <r2>?" -- the evidence shares only the speaker's name
  with the question; what a reader infers from the exchange, as an inference question asks.

At most one question of each kind per session, chosen by the order of the turns; keywords by
rarity in the conversation, then alphabetically.
"""

from __future__ import annotations

import argparse
import datetime as dt
import hashlib
import json
import re
import sys

SOURCE_SHA256 = "86c4e6aa9db7c042ec79f339dcb96d42b0075e16b8fc2e86bf0ca57e2dc565ed"
MIN_TURNS = 4  # a session: at least this many speeches of two people in turn
CONVERSATION_TURNS = 240
PER_SESSION = 1
COMMON_DF = (3, 12)  # a single-hop question's word: in this many turns of the conversation
START = dt.datetime(2021, 1, 4, 19, 0, tzinfo=dt.timezone.utc)
STOP = frozenset("""about above after again against all also although among another any are aught because been
before being below between both cannot could doth dost does doing down during each either else even ever every
from further hast hath have having here hereafter hither into itself least more most much must myself neither never
none nothing once only other ought ourselves over own same shall shalt should since some still such than that thee
their theirs them themselves then thence there therefore these they thine thing things this those though thou through
thus thyself till under unto upon very were what whatsoever when whence where whether which while whilst whither who
whom whose wherefore will with within without would yet your yours yourself yourselves come comes came doth good
great make made know well like speak speaks spoke tell told said says think true sweet lord lady madam master
sirrah indeed pray prithee""".split())
MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
          "November", "December")
WORD = re.compile(r"[A-Za-z][a-z']+")


def speeches(text: str) -> list[tuple[str, str]]:
    out = []
    for block in text.split("\n\n"):
        lines = [ln.strip() for ln in block.strip().split("\n")]
        if len(lines) >= 2 and lines[0].endswith(":") and lines[0][:-1].strip():
            out.append((lines[0][:-1].strip(), " ".join(ln for ln in lines[1:] if ln)))
    return out


def sessions(spoken: list[tuple[str, str]]) -> list[list[tuple[str, str]]]:
    """Stretches of two speakers in turn, at least MIN_TURNS speeches each."""
    out: list[list[tuple[str, str]]] = []
    cur: list[tuple[str, str]] = []
    for s in spoken:
        if cur and (s[0] == cur[-1][0] or len({x[0] for x in cur} | {s[0]}) > 2):
            kept = len(cur) >= MIN_TURNS
            if kept:
                out.append(cur)
            # an unkept stretch's last speech may open the next one (a kept one's belongs to it)
            cur = [cur[-1]] if not kept and s[0] != cur[-1][0] else []
        cur.append(s)
    if len(cur) >= MIN_TURNS:
        out.append(cur)
    return out


def memories(text: str) -> list[dict]:
    out: list[dict] = []
    conv, count, day = 1, 0, START
    said_before: set[tuple[int, str, str]] = set()  # memory import stores a repeated turn once: left out
    for si, sess in enumerate(sessions(speeches(text))):
        digest = hashlib.sha256(sess[0][1].encode()).digest()
        day = day + dt.timedelta(days=3 + digest[0] % 19)  # the next session, 3 to 21 days later
        if count >= CONVERSATION_TURNS:
            conv, count = conv + 1, 0
        for ti, (speaker, said) in enumerate(sess):
            same = (conv, name(speaker).casefold(), " ".join(re.sub(r"[^\w\s]", " ", said.casefold()).split()))
            if same in said_before:
                continue
            said_before.add(same)
            count += 1
            at = day + dt.timedelta(minutes=2 * ti + digest[1] % 2)
            out.append({"key": f"play{conv}:{si + 1}:{ti + 1}", "scope": f"play{conv}",
                        "speaker": name(speaker), "text": said, "time": at.strftime("%Y-%m-%dT%H:%M:%SZ")})
    return out


def name(speaker: str) -> str:
    """``KING RICHARD III`` -> ``King Richard III``."""
    return " ".join(w if set(w) <= set("IVX") else w.capitalize() for w in speaker.split())


def words(text: str, names: set[str]) -> list[str]:
    seen: dict[str, None] = {}
    for w in WORD.findall(text):
        low = w.lower().strip("'")
        if len(low) >= 5 and "'" not in low and low not in STOP and low not in names:
            seen[low] = None
    return list(seen)


def questions(mems: list[dict]) -> list[dict]:
    out: list[dict] = []
    by_conv: dict[str, list[dict]] = {}
    for m in mems:
        by_conv.setdefault(m["scope"], []).append(m)
    for scope, turns in by_conv.items():
        names = {p.lower() for m in turns for p in m["speaker"].split()}
        kw = {m["key"]: words(m["text"], names) for m in turns}
        df: dict[str, int] = {}
        for m in turns:
            for w in kw[m["key"]]:
                df[w] = df.get(w, 0) + 1
        by_speaker: dict[tuple[str, str], list[dict]] = {}
        for m in turns:
            for w in kw[m["key"]]:
                by_speaker.setdefault((m["speaker"], w), []).append(m)
        session = {m["key"]: m["key"].rsplit(":", 1)[0] for m in turns}
        common = sorted(df, key=lambda w: (-df[w], w))  # the most common first: the hardest to tell apart
        rank = {w: i for i, w in enumerate(common)}
        asked: dict[tuple[str, str], int] = {}

        def ask(query: str, keys: list[str], category: str) -> None:
            sess = session[keys[0]]
            if asked.get((sess, category), 0) >= PER_SESSION or any(q["query"] == query for q in out):
                return
            asked[(sess, category)] = asked.get((sess, category), 0) + 1
            out.append({"query": query, "keys": keys, "category": category, "scope": scope})

        def mine(m: dict) -> list[str]:
            return sorted(kw[m["key"]], key=rank.__getitem__)

        month = {m["key"]: f"{MONTHS[int(m['time'][5:7]) - 1]} {m['time'][:4]}" for m in turns}
        for m in turns:  # single-hop: a common word; the speaker tells the turns holding it apart
            for w in mine(m):
                if COMMON_DF[0] <= df[w] <= COMMON_DF[1] and len(by_speaker[(m["speaker"], w)]) == 1:
                    ask(f"What did {m['speaker']} say about {w}?", [m["key"]], "single-hop")
                    break
        for m in turns:  # temporal: one speaker's word in two to four months; the month tells them apart
            for w in mine(m):
                said = by_speaker[(m["speaker"], w)]
                if 2 <= len(said) <= 4 and len({month[x["key"]] for x in said}) == len(said):
                    ask(f"What did {m['speaker']} say about {w} in {month[m['key']]}?", [m["key"]], "temporal")
                    break
        for sp in sorted({m["speaker"] for m in turns}):  # multi-hop
            for w in common:
                said = by_speaker.get((sp, w), [])
                if 2 <= len(said) <= 4 and len({session[x["key"]] for x in said}) == len(said):
                    ask(f"Across the conversation, what did {sp} say about {w}?", [x["key"] for x in said], "multi-hop")
            once = [(m, w) for m in turns if m["speaker"] == sp for w in mine(m)[:1]
                    if df[w] >= 2 and len(by_speaker[(sp, w)]) == 1]
            for (a, wa), (b, wb) in zip(once, once[1:]):
                if session[a["key"]] != session[b["key"]] and wa != wb:
                    ask(f"What did {sp} say of {wa} and of {wb}?", [a["key"], b["key"]], "multi-hop")
        for i, m in enumerate(turns[:-1]):  # open-domain (context): one word of the reply only
            reply = turns[i + 1]
            if session[reply["key"]] != session[m["key"]] or reply["speaker"] == m["speaker"]:
                continue
            only = [w for w in sorted(kw[reply["key"]], key=rank.__getitem__) if w not in kw[m["key"]] and df[w] >= 2]
            if only:
                ask(f"What had {m['speaker']} said when {reply['speaker']} answered about {only[0]}?", [m["key"]],
                    "open-domain")
    return out


DOC = ("Written by bench/gen_plays.py (do not edit by hand) from Shakespeare's plays (public domain; the "
       "'tiny shakespeare' text, SHA-256 " + SOURCE_SHA256 + "): stretches of two speakers in turn are dated "
       "sessions, grouped into conversations of 240 turns or more; every speech a memory (scope = the "
       "conversation). The questions are written by rule from the turns, not by a model (the rules: the "
       "generator's docstring): single-hop (a word the speaker used once), multi-hop (a word in several "
       "sessions; two words of two sessions), temporal (a word the speaker used in two months, the month "
       "named), open-domain (context: asked with the words of the reply only). Format: okfpro/core/evalmetrics.py.")


def generate(text: str) -> dict:
    if hashlib.sha256(text.encode()).hexdigest() != SOURCE_SHA256:
        raise SystemExit("not the expected text (SHA-256 differs)")
    mems = memories(text)
    return {"_doc": DOC, "memories": mems, "queries": questions(mems)}


def dump(data: dict) -> str:
    """One memory or question a line."""
    parts = [f'{json.dumps(k)}: ' + ("[\n" + ",\n".join(json.dumps(x, ensure_ascii=False) for x in v) + "\n]"
                                     if isinstance(v, list) else json.dumps(v, ensure_ascii=False))
             for k, v in data.items()]
    return "{\n" + ",\n".join(parts) + "\n}\n"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("source", help="the play text, or with --questions the gold set")
    ap.add_argument("--questions", action="store_true", help="print the questions the rules write for the set's turns")
    args = ap.parse_args(argv)
    with open(args.source, encoding="utf-8") as fh:
        raw = fh.read()
    data = {"queries": questions(json.loads(raw)["memories"])} if args.questions else generate(raw)
    sys.stdout.write(dump(data))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
