#!/usr/bin/env python3
"""Long-conversation gold sets for ``okfpro eval recall`` (issue #13's quality target).

    python bench/gen_conversations.py --set a > examples/conversations-a.json
    python bench/gen_conversations.py --set b > examples/conversations-b.json

Deterministic (a fixed seed per set, no clock, no network): the same command writes the
same bytes.  The shape is that of public long-conversation memory benchmarks: each
*conversation* is two people talking over many dated *sessions*; every turn is one memory
(``speaker``, ``text``, ``time``, its conversation as ``scope``); questions come in five
categories, each labelled with the turns that hold the evidence:

* ``single-hop`` — one fact from one turn (``What did Ana name her puppy?``);
* ``multi-hop`` — facts from turns of several sessions (``Which sports does Ana do?``);
* ``temporal`` — when something happened: the answer is the session's date, which is in
  the entry's time, not in its words; some questions name a month instead;
* ``open-domain`` — an inference from a turn (``Would Ana enjoy a hike?``), worded far
  from it;
* ``adversarial`` — asks about the wrong person (the other speaker did it); the evidence
  is the turn where it was said.

Questions paraphrase: they use other words than the evidence turn (``dog`` for
``puppy``), and the other speaker's reply around the fact sometimes uses the question's
word (conversations repeat a topic in other words).  Fillers and distractor turns reuse
the question words in unrelated contexts.  The two sets come from disjoint halves of the
phrasing templates, different names, seeds, session counts and reply rates, so a ranking
tuned on one is checked on the other.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import random
import sys

# Each topic: items (stated word, the question's word, a detail), what the person says,
# what the other replies (uses the question's word), questions by category, distractors
# (the question's word in another context), and the group multi-hop asks about.
TOPICS: list[dict] = [
    {"group": "pets", "items": [("puppy", "dog", "Max"), ("kitten", "cat", "Luna"), ("bunny", "rabbit", "Clover"),
                                ("parakeet", "bird", "Kiwi")],
     "say": ["We finally adopted a {a} from the shelter, {d} has already chewed my slippers!",
             "Guess what, there's a tiny {a} living with us now. We called it {d}.",
             "I brought home a {a} last week and named it {d}.",
             "Our house got louder: a little {a} called {d} moved in with us."],
     "reply": ["A {q}! That's adorable, send me pictures.", "I always wanted a {q}. How is {d} settling in?",
               "Aww, a {q} is such good company."],
     "single": ["What is the name of {P}'s {q}?", "What did {P} call the {q} {they} took in?",
                "Which name did {P} pick for the new {q}?", "How is {P}'s {q} called?"],
     "when": ["When did {P} get {their} {q}?", "When did {P} adopt a {q}?"],
     "infer": ["Does {P} like animals?", "Would {P} enjoy volunteering at an animal rescue?"],
     "noise": ["The {q} next door barked all night again.", "There was a lost {q} poster on every lamp post.",
               "My cousin is allergic to every {q} on the planet."]},
    {"group": "sports", "items": [("half marathon", "race", "two hours"), ("swim meet", "swimming", "third place"),
                                  ("tennis tournament", "tennis", "semi-final"), ("cycling sportive", "bike ride", "90 km")],
     "say": ["I did my first {a} on Sunday and finished in {d}!", "The {a} went better than expected, {d} for me.",
             "Still sore from the {a}, but I got {d}.", "Signed up for a {a} on a whim and managed {d}."],
     "reply": ["Wow, a {q}? I could never do that.", "That {q} sounds exhausting, well done!",
               "You must have trained a lot for that {q}."],
     "single": ["How did {P} do in the {q}?", "What result did {P} get in {their} {q}?",
                "How well did {P} perform at the {q}?"],
     "when": ["When did {P} take part in the {q}?", "When was {P}'s {q}?"],
     "infer": ["Is {P} into fitness?", "Would {P} be up for a sporty weekend?"],
     "noise": ["They showed the {q} on TV at the bar.", "Traffic was blocked because of some {q} downtown.",
               "My boss keeps talking about the {q} he watched."]},
    {"group": "hobbies", "items": [("pottery class", "ceramics", "a lopsided bowl"), ("watercolour course", "painting", "a sunset"),
                                   ("guitar lessons", "music", "a folk song"), ("knitting circle", "crafts", "a scarf")],
     "say": ["I started a {a} and made {d} already.", "My {a} is the highlight of my week, I finished {d}.",
             "Joined a {a} downtown, first project was {d}.", "Been spending evenings at my {a}; I made {d}."],
     "reply": ["I love {q}, you're so creative.", "{q} is such a good way to unwind.",
               "I'd love to try {q} with you sometime."],
     "single": ["What did {P} make in {their} {q} sessions?", "What was {P}'s first {q} project?",
                "What did {P} create when {they} took up {q}?"],
     "when": ["When did {P} take up {q}?", "When did {P} start doing {q}?"],
     "infer": ["Is {P} an artistic person?", "Would {P} like a gift card for an art supply store?"],
     "noise": ["The museum has a new {q} exhibition I keep meaning to see.", "My aunt sells {q} at the weekend market.",
               "There is a {q} documentary everyone is talking about."]},
    {"group": "travel", "items": [("road trip to the coast", "vacation", "Lisbon"), ("hiking week in the Alps", "holiday", "Chamonix"),
                                  ("city break", "trip", "Prague"), ("camping weekend", "getaway", "Yosemite")],
     "say": ["Just got back from a {a}, {d} was stunning.", "The {a} was exactly what I needed, we stayed near {d}.",
             "Spent the last days on a {a}; {d} stole my heart.", "Back home after a {a}, still dreaming of {d}."],
     "reply": ["A {q} sounds perfect right now.", "I need a {q} too, work is crushing me.",
               "Your {q} photos must be amazing."],
     "single": ["Where did {P} go on {their} {q}?", "Which place did {P} visit during the {q}?",
                "What destination did {P} pick for the {q}?"],
     "when": ["When did {P} go on {their} {q}?", "When was {P} away on a {q}?"],
     "infer": ["Does {P} enjoy the outdoors?", "Would {P} like a travel guide as a present?"],
     "noise": ["My {q} got cancelled because of the strike.", "The office {q} schedule is a mess again.",
               "I saw an ad for a cheap {q} package."]},
    {"group": "work", "items": [("promotion to team lead", "new job", "six people"), ("job offer from a startup", "career move", "remote"),
                                ("transfer to the Berlin office", "relocation", "Berlin"), ("first week as a nurse", "new position", "night shifts")],
     "say": ["Big news: I got a {a}! It means {d}.", "So the {a} is official, {d} from now on.",
             "I accepted the {a}; {d} is the part I'm nervous about.", "Work update: {a}, and yes, {d}."],
     "reply": ["Congrats on the {q}! You deserve it.", "A {q} is a big step, how do you feel?",
               "I'm so proud of you for the {q}."],
     "single": ["What changed for {P} with the {q}?", "What does {P}'s {q} involve?",
                "What detail did {P} share about the {q}?"],
     "when": ["When did {P} get the {q}?", "When did {P}'s {q} happen?"],
     "infer": ["Is {P} ambitious about {their} career?", "Would {P} be a good mentor for juniors?"],
     "noise": ["Everyone at the party asked me about my {q} plans.", "I read an article on how to negotiate a {q}.",
               "My brother is thinking about a {q} too."]},
    {"group": "family", "items": [("sister's wedding", "family celebration", "the barn venue"), ("grandma's 90th birthday", "family party", "her old village"),
                                  ("nephew's graduation", "ceremony", "the university hall"), ("parents' anniversary", "family dinner", "the Italian place")],
     "say": ["We had my {a} at {d}, I cried the whole time.", "My {a} was lovely, all of us at {d}.",
             "Spent Saturday at my {a}; {d} was packed.", "The {a} happened at {d} and it was perfect."],
     "reply": ["A {q} like that is so precious.", "Sounds like a beautiful {q}.", "I miss having a {q} like that."],
     "single": ["Where was {P}'s {q} held?", "At which place did the {q} of {P}'s relatives take place?",
                "Where did {P}'s {q} happen?"],
     "when": ["When did {P} attend the {q}?", "When was {P}'s {q}?"],
     "infer": ["Is {P} close to {their} family?", "Would {P} value a photo album of relatives?"],
     "noise": ["The restaurant was full of some {q}.", "We planned a {q} but half of us got the flu.",
               "Her {q} stories are always chaotic."]},
    {"group": "health", "items": [("sprained ankle", "injury", "physio twice a week"), ("flu", "illness", "a week in bed"),
                                  ("knee surgery", "operation", "crutches"), ("migraine", "headache", "a dark room")],
     "say": ["Ugh, I've got a {a}, so it's {d} for me.", "The {a} knocked me out: {d}.",
             "Quick update: {a}, the doctor says {d}.", "Been dealing with a {a}, meaning {d}."],
     "reply": ["Oh no, an {q}? Take care of yourself.", "Sorry about the {q}, rest up.", "That {q} sounds awful."],
     "single": ["How is {P} treating {their} {q}?", "What did {P} need after the {q}?",
                "What was the consequence of {P}'s {q}?"],
     "when": ["When did {P} have the {q}?", "When was {P} dealing with an {q}?"],
     "infer": ["Has {P} had health problems?", "Would {P} appreciate a get-well card?"],
     "noise": ["The news had a report about a footballer's {q}.", "Insurance forms for any {q} are a nightmare.",
               "Half the office is out with some {q}."]},
    {"group": "home", "items": [("new apartment", "move", "a balcony"), ("kitchen renovation", "remodel", "green tiles"),
                                ("vegetable garden", "gardening", "tomatoes"), ("house plants", "greenery", "a monstera")],
     "say": ["We got the {a}; the best part is {d}.", "Our {a} is finally done, with {d}.",
             "Spent the weekend on the {a}, mostly {d}.", "The {a} is coming along, {d} everywhere."],
     "reply": ["A {q} is so much work but worth it.", "Your {q} sounds lovely.", "I'd love to see the {q}."],
     "single": ["What is special about {P}'s {q}?", "What did {P} mention about the {q}?",
                "What feature does {P}'s {q} have?"],
     "when": ["When did {P} do the {q}?", "When did {P}'s {q} happen?"],
     "infer": ["Does {P} like working with {their} hands?", "Would {P} like a plant as a housewarming gift?"],
     "noise": ["The landlord mentioned a {q} in the building.", "I watched a {q} show on TV last night.",
               "Our neighbour's {q} is making so much noise."]},
    {"group": "learning", "items": [("Spanish course", "language", "ordering tapas"), ("coding bootcamp", "programming", "a weather app"),
                                    ("photography workshop", "camera skills", "portraits"), ("cooking class", "cuisine", "fresh pasta")],
     "say": ["My {a} started, so far I can manage {d}.", "Loving the {a}, I learnt {d} today.",
             "Signed up for a {a}; the teacher had us do {d}.", "The {a} is hard but I nailed {d}."],
     "reply": ["Learning {q} takes guts.", "{q} is such a useful skill.", "I tried {q} once and gave up."],
     "single": ["What has {P} learnt in {their} {q} studies?", "What can {P} do now thanks to the {q} lessons?",
                "What did {P} practise while studying {q}?"],
     "when": ["When did {P} begin studying {q}?", "When did {P} enrol to learn {q}?"],
     "infer": ["Is {P} curious and eager to learn?", "Would {P} enjoy an evening class?"],
     "noise": ["The school board argued about {q} funding.", "My phone keeps suggesting {q} apps.",
               "There was a {q} quiz at the pub."]},
    {"group": "events", "items": [("jazz concert", "music show", "the encore"), ("book launch", "reading", "a signed copy"),
                                  ("charity gala", "fundraiser", "the auction"), ("food festival", "street fair", "the dumplings")],
     "say": ["Went to a {a} last night, {d} was the best part.", "The {a} was amazing, I still think about {d}.",
             "Dragged my friends to a {a}; {d} made it worth it.", "At the {a} we got {d}."],
     "reply": ["A {q}? Jealous!", "I never get to go to a {q} anymore.", "That {q} sounds like so much fun."],
     "single": ["What was the highlight of the {q} {P} attended?", "What did {P} enjoy most at the {q}?",
                "What stood out for {P} at the {q}?"],
     "when": ["When did {P} go to the {q}?", "When was the {q} {P} went to?"],
     "infer": ["Does {P} have an active social life?", "Would {P} want tickets to a show?"],
     "noise": ["Parking near the {q} was impossible.", "The radio advertised a {q} I can't afford.",
               "My flatmate came back late from some {q}."]},
]

NAMES = {
    "a": [("Ana", "Ben"), ("Carla", "David"), ("Elena", "Farid"), ("Grace", "Hugo"), ("Ines", "Jonas")],
    "b": [("Kira", "Liam"), ("Maya", "Noah"), ("Olga", "Pavel"), ("Rosa", "Sami"), ("Tara", "Umar"), ("Vera", "Walt")],
}
PRONOUNS = {"Ana": "she", "Carla": "she", "Elena": "she", "Grace": "she", "Ines": "she", "Kira": "she", "Maya": "she",
            "Olga": "she", "Rosa": "she", "Tara": "she", "Vera": "she"}

# small talk: an opener and a remark, drawn without repeats within a conversation
OPENERS = ["Hey {O}!", "Good to hear from you, {O}.", "Haha.", "Oh wow.", "Honestly,", "Thanks for asking, {O}.",
           "Not much new here.", "I know what you mean.", "Same here.", "Anyway,", "Ha, classic.", "Well,",
           "You know me.", "Oh, {O}.", "Right?", "To be fair,"]
REMARKS = ["this week flew by.", "work has been hectic lately.", "I'm totally drained.",
           "we should catch up in person soon.", "that sounds like a plan!", "talk soon, take care!",
           "I'm so happy for you.", "tell me more.", "the weather has been so gloomy.", "did you watch the game?",
           "I've been binging a new series.", "my week was quiet, mostly reading.", "how's everyone at home?",
           "I was just thinking about you.", "let me know how it goes!", "fingers crossed for you.",
           "I totally get it.", "enough about me.", "what have you been up to?", "it's been a long day.",
           "I'll tell you everything next time.", "I slept terribly again.", "the commute is killing me.",
           "I need more coffee.", "my phone died twice today.", "we ordered pizza again."]
MONTHLY = ["What did {P} tell about {their} {q} in {m}?", "In {m}, what news did {P} share on the {q}?",
           "What was {P} saying about a {q} back in {m}?", "Which {q} update did {P} give during {m}?"]
MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
          "November", "December"]

SETS = {
    # seed, names, template half, conversations, sessions, fillers per session, reply rate, distractors per session
    "a": dict(seed=13, names="a", half=0, convs=5, sessions=(14, 18), filler=(8, 14), reply=0.6, noise=2, same=0.5,
              start=dt.datetime(2023, 1, 9, 18, 0, tzinfo=dt.timezone.utc)),
    "b": dict(seed=1318, names="b", half=1, convs=6, sessions=(10, 15), filler=(12, 20), reply=0.4, noise=3, same=0.4,
              start=dt.datetime(2024, 3, 4, 9, 30, tzinfo=dt.timezone.utc)),
}


def half(templates: list[str], which: int) -> list[str]:
    """One of two disjoint halves of a template list (each set draws from its own)."""
    picked = templates[which::2]
    return picked or templates


def fill(template: str, **slots: str) -> str:
    out = template.format(**slots)
    return out[0].upper() + out[1:]


def conversation(rng: random.Random, cfg: dict, ci: int) -> tuple[list[dict], list[dict]]:
    people = NAMES[cfg["names"]][ci % len(NAMES[cfg["names"]])]
    scope = f"conv-{cfg['names']}{ci + 1}"
    nsess = rng.randint(*cfg["sessions"])
    when = cfg["start"] + dt.timedelta(days=rng.randint(0, 60))
    # each person gets facts: for each topic, maybe one or two items (two -> multi-hop material)
    plan: list[tuple[str, dict, tuple]] = []
    for topic in TOPICS:
        for person in people:
            if rng.random() < 0.55:
                items = rng.sample(topic["items"], k=2 if rng.random() < 0.35 else 1)
                for item in items:
                    plan.append((person, topic, item))
    rng.shuffle(plan)
    per_session: list[list[tuple[str, dict, tuple]]] = [[] for _ in range(nsess)]
    for i, fact in enumerate(plan):
        per_session[i % nsess].append(fact)
    memories: list[dict] = []
    facts: list[dict] = []  # {person, topic, item, key, date}
    n = 0

    def turn(speaker: str, text: str, at: dt.datetime) -> str:
        nonlocal n
        n += 1
        key = f"{scope}:{len(memories) + 1}"
        memories.append({"key": key, "scope": scope, "speaker": speaker, "text": text,
                         "time": at.strftime("%Y-%m-%dT%H:%M:%SZ")})
        return key

    used: set[str] = set()
    said: set[tuple[str, str]] = set()
    for si in range(nsess):
        when += dt.timedelta(days=rng.randint(4, 25))
        at = when
        lines: list[tuple[str, str, dict | None]] = []
        speaker_i = rng.randint(0, 1)
        slots = [("filler", None)] * rng.randint(*cfg["filler"]) + [("fact", f) for f in per_session[si]]
        slots += [("noise", None)] * cfg["noise"]
        rng.shuffle(slots)
        for what, fact in slots:
            if lines:  # turns alternate
                speaker_i = people.index(lines[-1][0]) ^ 1
            if what == "fact":
                person, topic, item = fact
                other = people[1] if person == people[0] else people[0]
                a, q, d = item
                text = fill(rng.choice(half(topic["say"], cfg["half"])), a=a, q=q, d=d)
                lines.append((person, text, {"person": person, "topic": topic, "item": item}))
                if rng.random() < cfg["reply"]:
                    lines.append((other, fill(rng.choice(topic["reply"]), a=a, q=q, d=d), None))
            elif what == "noise":
                topic = rng.choice(TOPICS)
                q = rng.choice(rng.choice(topic["items"])[:2])
                lines.append((people[speaker_i], fill(rng.choice(topic["noise"]), q=q), None))
                speaker_i ^= 1
            else:
                other = people[speaker_i ^ 1]
                while True:
                    opener, remark = rng.choice(OPENERS), rng.choice(REMARKS)
                    if opener[-1] in ".!?":
                        remark = remark[0].upper() + remark[1:]
                    small = fill(opener + " " + remark, O=other)
                    if small not in used:
                        break
                used.add(small)
                lines.append((people[speaker_i], small, None))
                speaker_i ^= 1
        for speaker, text, fact in lines:
            if fact is not None or (speaker, text) not in said:  # an identical turn would be one memory
                said.add((speaker, text))
            else:
                continue
            at += dt.timedelta(seconds=rng.randint(20, 240))
            key = turn(speaker, text, at)
            if fact is not None:
                facts.append({**fact, "key": key, "date": at})
    return memories, questions(rng, cfg, scope, people, facts)


def questions(rng: random.Random, cfg: dict, scope: str, people: tuple[str, str], facts: list[dict]) -> list[dict]:
    out: list[dict] = []

    def slots(person: str) -> dict[str, str]:
        she = PRONOUNS.get(person) == "she"
        return {"P": person, "they": "she" if she else "he", "their": "her" if she else "his"}

    def ask(template: str, category: str, keys: list[str], person: str, q: str) -> None:
        out.append({"query": fill(template, q=q, **slots(person)), "keys": keys, "category": category,
                    "scope": scope})

    h = cfg["half"]
    for f in facts:
        topic, person = f["topic"], f["person"]
        # a question names the thing as it was said half of the time, else in other words
        q = f["item"][0] if rng.random() < cfg["same"] else f["item"][1]
        ask(rng.choice(half(topic["single"], h)), "single-hop", [f["key"]], person, q)
        if rng.random() < 0.5:
            ask(rng.choice(half(topic["when"], h)), "temporal", [f["key"]], person, q)
        else:  # a month named instead of "when": the date is in the entry's time, not in its words
            month = f"{MONTHS[f['date'].month - 1]} {f['date'].year}"
            t = rng.choice(half(MONTHLY, h)).replace("{m}", month)
            ask(t, "temporal", [f["key"]], person, q)
        if rng.random() < 0.5:
            ask(rng.choice(half(topic["infer"], h)), "open-domain", [f["key"]], person, q)
        if rng.random() < 0.4:
            other = people[1] if person == people[0] else people[0]
            ask(rng.choice(half(topic["single"], 1 - h)), "adversarial", [f["key"]], other, q)
    groups: dict[tuple[str, str], list[dict]] = {}
    for f in facts:
        groups.setdefault((f["person"], f["topic"]["group"]), []).append(f)
    multi = ["Which {g} has {P} mentioned over time?", "What {g} came up in {P}'s stories?",
             "Across all the chats, what {g} did {P} talk about?", "List everything {P} said about {g}."]
    pair = ["What do {P}'s {q1} and {q2} have in common?", "How did {P} feel about the {q1} compared with the {q2}?",
            "Did the {q1} or the {q2} matter more to {P}?", "What links {P}'s {q1} with {their} {q2}?"]
    for (person, group), fs in sorted(groups.items(), key=lambda kv: kv[0]):
        if len(fs) >= 2:
            t = rng.choice(half(multi, h))
            out.append({"query": fill(t.replace("{g}", group), **slots(person)), "keys": [f["key"] for f in fs],
                        "category": "multi-hop", "scope": scope})
    by_person: dict[str, list[dict]] = {}
    for f in facts:
        by_person.setdefault(f["person"], []).append(f)
    for person, fs in sorted(by_person.items()):
        # two facts of different sessions, each named as said or in other words
        for _ in range(len(fs) // 4):
            f1, f2 = rng.sample(fs, 2)
            if f1["date"].date() == f2["date"].date():
                continue
            w1, w2 = (f["item"][0] if rng.random() < cfg["same"] else f["item"][1] for f in (f1, f2))
            t = rng.choice(half(pair, h)).replace("{q1}", w1).replace("{q2}", w2)
            out.append({"query": fill(t, **slots(person)), "keys": [f1["key"], f2["key"]], "category": "multi-hop",
                        "scope": scope})
    return out


def generate(name: str) -> dict:
    cfg = SETS[name]
    rng = random.Random(cfg["seed"])
    memories: list[dict] = []
    queries: list[dict] = []
    for ci in range(cfg["convs"]):
        m, q = conversation(rng, cfg, ci)
        memories += m
        queries += q
    doc = (f"Generated by bench/gen_conversations.py --set {name} (do not edit by hand): {cfg['convs']} two-person "
           "conversations over dated sessions, every turn a memory (scope = the conversation), questions in five "
           "categories with the evidence turns as keys. Format: okfpro/core/evalmetrics.py.")
    return {"_doc": doc, "memories": memories, "queries": queries}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--set", choices=sorted(SETS), default="a")
    args = ap.parse_args(argv)
    json.dump(generate(args.set), sys.stdout, ensure_ascii=False, indent=0)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
