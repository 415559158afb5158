"""A hard memory benchmark: long two-person conversations, many users loaded together (issue 30.6).

``bench/memory_dataset.py`` plants one-line facts in filler and asks with the planted words: recall@10 0.988
for code that scores 0.603 on real conversations. This generator imitates what made the real data hard:

* **Conversation, not statements**: a fact is an exchange — a question turn, then the answer turn that does
  not repeat its words ("What did you do on Saturday?" / "Finally tried that pottery class downtown!"),
  often followed by a detail in a third turn. Every turn is one memory entry ``"<Speaker>: <text>"``.
* **Paraphrased questions**: asked with other words than the evidence ("ceramics lesson" for "pottery class",
  "relative" for "cousin"), about either speaker by name.
* **Distractors**: the same kinds of facts about the other speaker with other values, small talk that shares
  the topic words ("I saw a pottery video online"), short name-only turns ("Hey Caroline!"), and sessions
  about nothing in particular.
* **Categories**: single-hop, multi-hop (two facts in different sessions, e.g. a pet's name, then what the pet
  loves), temporal (when something happened: the session date is the entry's ``observed_at``), knowledge
  update (an old value, later a new one: the new turn is the evidence, the old one counted as stale),
  open-domain (an inference from a fact: "Would Caroline enjoy a ceramics museum?") and off-topic (nothing
  relevant stored: auto-inject should add nothing).

Deterministic (seeded), generated in code: nothing is downloaded. ``dataset(users=N)`` gives N conversations.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime, timedelta
from typing import Any

PEOPLE = [
    ("Caroline", "Melanie"),
    ("Jon", "Gina"),
    ("Maria", "Joanna"),
    ("Nate", "Audrey"),
    ("Deborah", "Jolene"),
    ("Evan", "Sam"),
    ("Calvin", "Dave"),
    ("John", "Tim"),
    ("Andrew", "Audrey"),
    ("James", "Lena"),
    ("Priya", "Omar"),
    ("Lucas", "Hana"),
]
SMALL_TALK = [
    "Hey {o}!",
    "Hi {o}, good to hear from you!",
    "Haha, totally.",
    "That sounds amazing!",
    "Oh wow, really?",
    "I know, right?",
    "How have you been lately?",
    "Same here, busy week.",
    "Tell me more!",
    "That's so cool.",
    "I hear you.",
    "Talk soon!",
    "Take care, {o}!",
    "What about you, {o}?",
    "Not much, just the usual.",
    "Sorry for the late reply, things got hectic.",
    "Ha, that's hilarious.",
    "I'm so happy for you!",
    "Oh no, that's rough.",
    "Fingers crossed!",
    "Good luck with everything.",
    "Thanks, {o}, that means a lot.",
    "Anyway, how's work?",
    "Work's fine, a bit slow.",
    "It was a long day.",
    "Did you sleep well?",
    "The weather has been so weird lately.",
    "I can't believe it's already the weekend again.",
    "Let's catch up properly soon.",
    "I've been meaning to call you.",
    "Same old, same old.",
]

# Each fact: the slot values, the exchange (asker's question, the answer, an optional detail), paraphrased
# questions and, for distractors, topical small talk sharing its words. {s} the speaker, {o} the other one.
FACTS: list[dict[str, Any]] = [
    {
        "kind": "hobby",
        "values": [
            ("pottery class", "made a lopsided blue bowl", "ceramics lesson"),
            ("salsa lessons", "stepped on my partner's feet twice", "Latin dance course"),
            ("climbing gym", "reached the top of the orange route", "bouldering place"),
            ("watercolor workshop", "painted the harbor at sunset", "painting course"),
            ("chess club", "beat the club champion in twenty moves", "board game society"),
        ],
        "turns": ["What did you get up to on Saturday?", "Finally tried the {0} downtown!", "I {1}, haha."],
        "questions": [
            ("What did {s} do at the {2}?", "What did {s} do at the {0}?", "a2"),
            ("Which activity did {s} try downtown?", "What did {s} try downtown on Saturday?", "a1"),
        ],
        "open": "Would {s} enjoy a visit to a place related to the {2}?",
        "chatter": ["I saw a video about a {0} online yesterday.", "My cousin keeps talking about some {0}."],
    },
    {
        "kind": "pet",
        "values": [
            ("puppy", "Pepper", "the beach", "dog"),
            ("kitten", "Milo", "the windowsill", "cat"),
            ("rabbit", "Clover", "the garden", "bunny"),
            ("parrot", "Kiwi", "the kitchen radio", "bird"),
            ("beagle", "Biscuit", "the dog park", "hound"),
        ],
        "turns": ["Any news at home?", "We adopted a {0} last week! Named it {1}."],
        "later": ["How is {1} settling in?", "{1} is obsessed with {2}, we can't keep it away."],
        "questions": [
            ("What is the name of the animal {s} adopted?", "What did {s} name the {0}?", "a1"),
            ("What does {s}'s new {3} love most?", "What is {1} obsessed with?", "l"),
        ],
        "multi": "Where does {s}'s {3} like to spend its time?",
        "chatter": ["The neighbour's {3} barked all night.", "I watched a documentary about {3}s."],
    },
    {
        "kind": "job",
        "values": [
            ("the bakery on Elm Street", "the public library"),
            ("a logistics startup", "the city hospital"),
            ("a dental clinic", "an architecture firm"),
            ("the university lab", "a marketing agency"),
            ("a bookshop", "the train company"),
        ],
        "turns": ["Where are you working these days?", "I'm at {0}, mostly mornings."],
        "update": ["Big news, I quit!", "I switched jobs, I'm at {1} now."],
        "questions": [
            ("Where is {s} employed now?", "Where is {s} working these days?", "u"),
            ("What is {s}'s current workplace?", "Which job did {s} switch to?", "u"),
        ],
        "chatter": ["Work has been so draining for everyone I know.", "My boss is away all month."],
    },
    {
        "kind": "trip",
        "values": [
            ("Lisbon", "the pastries", "Portugal"),
            ("Kyoto", "the temples at dawn", "Japan"),
            ("Reykjavik", "the hot springs", "Iceland"),
            ("Oaxaca", "the markets", "Mexico"),
            ("Edinburgh", "the castle walk", "Scotland"),
        ],
        "turns": ["Any plans for the holidays?", "Booked a flight to {0}! Leaving in two weeks."],
        "later": ["How was the trip?", "Loved it, {1} were the best part."],
        "questions": [
            ("Which city did {s} fly to?", "Where did {s} book a flight to?", "a1"),
            ("What did {s} like most about the trip to {2}?", "What was the best part of {s}'s trip?", "l"),
        ],
        "temporal": "When was {s} planning to leave for {2}?",
        "multi": "What was the highlight of the city {s} booked a flight to?",
        "chatter": ["Flights are so expensive this year.", "I want to travel more, maybe {2} someday."],
    },
    {
        "kind": "family",
        "values": [
            ("sister", "Kate", "marathon"),
            ("brother", "Leo", "wedding"),
            ("cousin", "Ana", "graduation"),
            ("uncle", "Raj", "retirement party"),
            ("grandma", "Rosa", "90th birthday"),
        ],
        "turns": ["How's the family?", "My {0} {1} is preparing for a {2}, everyone is excited."],
        "questions": [
            ("What event is {s}'s relative getting ready for?", "What is {s}'s {0} preparing for?", "a1"),
            ("Who in {s}'s family has a {2} coming up?", "Who is preparing for a {2}?", "a1"),
        ],
        "chatter": ["Family gatherings are always chaotic.", "My {0} called me yesterday, nothing special."],
    },
    {
        "kind": "book",
        "values": [
            ("a mystery novel about a lighthouse keeper", "the twist at the end"),
            ("a biography of Marie Curie", "her time in Paris"),
            ("a fantasy trilogy with dragons", "the map at the front"),
            ("a cookbook of Korean street food", "the spicy rice cakes"),
            ("a history of the Silk Road", "the camel caravans"),
        ],
        "turns": ["Reading anything good?", "Just finished {0}."],
        "later": ["Did you like it?", "Yes! Especially {1}."],
        "questions": [
            ("What kind of book did {s} recently complete?", "What book did {s} just finish reading?", "a1"),
            ("What part of the book did {s} enjoy?", "What did {s} like about the book?", "l"),
        ],
        "multi": "What did {s} like in the book {s} just finished?",
        "open": "Would {s} like a gift related to the topic of the last book?",
        "chatter": ["I never have time to read anymore.", "The library had a sale on novels."],
    },
    {
        "kind": "food",
        "values": [
            ("vegetarian", "lentil curry"),
            ("gluten free", "buckwheat pancakes"),
            ("trying keto", "cauliflower pizza"),
            ("vegan", "tofu scramble"),
            ("cutting sugar", "plain greek yogurt"),
        ],
        "turns": ["Want to grab dinner next week?", "Sure! Just so you know, I've been {0} since spring."],
        "later": ["What do you cook these days?", "Mostly {1}, it's easy."],
        "questions": [
            ("What diet has {s} followed since spring?", "What has {s} been since spring?", "a1"),
            ("Which dish does {s} cook most often now?", "What does {s} cook these days?", "l"),
        ],
        "multi": "Which meal fits {s}'s eating habits and is cooked most?",
        "open": "Would {s} order a steak at a restaurant?",
        "chatter": ["That new restaurant has terrible reviews.", "I had way too much cake at the party."],
    },
    {
        "kind": "move",
        "values": [
            ("Denver", "a tiny apartment near the park", "Colorado"),
            ("Austin", "a house with a porch", "Texas"),
            ("Seattle", "a loft downtown", "Washington"),
            ("Boston", "a flat by the river", "Massachusetts"),
            ("Portland", "a cabin outside town", "Oregon"),
        ],
        "turns": ["Is it true you're moving?", "Yes, we're relocating to {0} in March."],
        "later": ["Did you find a place?", "We got {1}."],
        "questions": [
            ("Which city is {s} relocating to?", "Where is {s} moving to in March?", "a1"),
            ("What kind of home did {s} find after the move?", "What place did {s} get?", "l"),
        ],
        "multi": "What kind of place does {s} live in now, and in which city?",
        "open": "Would {s} need a winter coat in the new home state?",
        "temporal": "In which month was {s} going to move to {2}?",
        "chatter": ["Moving is the worst, all those boxes.", "Rent keeps going up everywhere."],
    },
    {
        "kind": "health",
        "values": [
            ("sprained my ankle", "physical therapy twice a week"),
            ("broke my wrist", "a cast for six weeks"),
            ("hurt my back lifting boxes", "daily stretching"),
            ("had knee surgery", "crutches for a month"),
            ("got a bad flu", "a week in bed"),
        ],
        "turns": ["You sounded tired last time, everything okay?", "Ugh, I {0} playing volleyball."],
        "later": ["How's the recovery?", "Slow. The doctor prescribed {1}."],
        "questions": [
            ("What injury did {s} get?", "What did {s} hurt playing volleyball?", "a1"),
            ("What treatment did {s} have to follow?", "What did the doctor prescribe {s}?", "l"),
        ],
        "open": "Could {s} play sports right after getting hurt?",
        "chatter": ["Everyone at work is sick this month.", "I should really exercise more."],
    },
    {
        "kind": "instrument",
        "values": [
            ("cello", "a Bach suite"),
            ("ukulele", "a Beatles song"),
            ("drums", "a jazz standard"),
            ("piano", "a Chopin nocturne"),
            ("violin", "an Irish reel"),
        ],
        "turns": ["Still practicing music?", "Yes, I picked up the {0} in January."],
        "later": ["What are you working on?", "Learning {1} for the spring recital."],
        "questions": [
            ("What instrument does {s} play?", "What did {s} pick up in January?", "a1"),
            ("What piece is {s} preparing for the recital?", "What is {s} learning for the spring recital?", "l"),
        ],
        "multi": "Which piece is {s} rehearsing, and on what instrument?",
        "temporal": "When did {s} start learning an instrument?",
        "chatter": ["There was a street musician outside my office.", "Concert tickets are so pricey now."],
    },
    {
        "kind": "car",
        "values": [
            ("an old red pickup truck", "a hybrid hatchback"),
            ("a used minivan", "an electric scooter"),
            ("a vintage convertible", "a sensible sedan"),
            ("a motorbike", "a cargo bike"),
            ("a rusty station wagon", "a compact electric car"),
        ],
        "turns": ["How do you get around these days?", "I drive {0}, it barely starts in winter."],
        "update": ["Did the old one finally die?", "Yep, sold it. Now I have {1}."],
        "questions": [
            ("What vehicle does {s} use now?", "What does {s} drive now?", "u"),
            ("How does {s} get around currently?", "What did {s} get after selling the old one?", "u"),
        ],
        "chatter": ["Traffic was awful this morning.", "Gas prices are ridiculous."],
    },
]
PARAPHRASED = 0.3  # the share of questions asked with other words than the evidence
# Real turns are chatty and carry more than one thing: a fact's turn often comes wrapped in these
OPENERS = [
    "Oh man, what a week.",
    "Honestly, I've been meaning to tell you.",
    "So, funny story.",
    "Ha, you won't believe it.",
    "Okay so, quick update.",
    "Well, it's been a lot lately.",
    "Ugh, where do I start.",
    "Good question!",
]
CLOSERS = [
    "Anyway, the kids have been driving me crazy with their school project.",
    "Also my phone screen cracked again, so that's fun.",
    "Work keeps piling up though, I barely sleep.",
    "And the neighbours are renovating, it's so loud every morning.",
    "Plus I finally cleaned out the garage, feels great.",
    "Oh and I've been binge watching that baking show again.",
    "The weather has been awful, rain every single day.",
    "Still trying to drink more water and go to bed earlier, ha.",
]
#: off-topic questions of three kinds: general knowledge, about someone never mentioned, about a speaker but on
#: a subject never mentioned (the hardest: the name matches half the memories)
OFF_TOPIC_GENERAL = [
    "What's a good recipe for banana bread?",
    "How do I renew an expired passport?",
    "What is the capital of Australia?",
    "Explain how photosynthesis works.",
    "What's the best way to learn the Rust programming language?",
    "Any tips for a job interview at an investment bank?",
    "How many moons does Jupiter have?",
    "What is the boiling point of water at high altitude?",
    "Recommend a good laptop for video editing.",
    "How do you change a flat bicycle tire?",
]
STRANGERS = ["Bartholomew", "Ingrid", "Xavier", "Yusuf", "Penelope", "Thaddeus", "Ottilie", "Ruslan"]
OFF_TOPIC_STRANGER = [
    "What are {x}'s hobbies?",
    "Where does {x} work?",
    "What is the name of {x}'s dog?",
    "Where did {x} travel last year?",
    "What instrument does {x} play?",
    "What did {x} cook for dinner?",
]
OFF_TOPIC = [
    "What is {s}'s favourite opera?",
    "Has {s} ever gone skydiving?",
    "What is the name of {s}'s yacht?",
    "Which chess grandmaster does {s} admire?",
    "What does {s} think about cryptocurrency mining?",
    "Where did {s} study astrophysics?",
    "What is {s}'s golf handicap?",
    "Which vineyard does {s} own?",
    "What tattoo does {s} have?",
    "How many marathons has {s} run in Antarctica?",
    "What is {s}'s opinion on medieval armour?",
    "Which submarine did {s} serve on?",
]


@dataclass
class Turn:
    turn_id: str
    session: int
    at: datetime
    speaker: str
    text: str
    stamp: str = ""  # written in front of the line (:func:`dated`)

    @property
    def content(self) -> str:
        """``"<Speaker>: <text>"``; a note (``bench/notes.py``: no speaker) is its text; a stamp comes first."""
        said = f"{self.speaker}: {self.text}" if self.speaker else self.text
        return f"{self.stamp} {said}" if self.stamp else said


@dataclass
class Question:
    qid: str
    category: str
    question: str
    evidence: list[str]
    stale: list[str] = field(default_factory=list)


@dataclass
class Conversation:
    user: str
    turns: list[Turn]
    questions: list[Question]


def dated(data: list[Conversation]) -> list[Conversation]:
    """The same memories with each line's date in front (``[08 May 2023] Kate: …``), as chat exports and benchmark
    harnesses write them: ``--dated`` of ``bench/recall_eval.py`` and ``bench/public_conversations.py``."""
    return [replace(conv, turns=[replace(turn, stamp=f"[{turn.at:%d %B %Y}]") for turn in conv.turns]) for conv in data]


class _Builder:
    def __init__(self, index: int, sessions: int) -> None:
        self.rng = random.Random(1_000 + index)
        self.a, self.b = PEOPLE[index % len(PEOPLE)]
        self.user = f"u{index:02d}-{self.a.lower()}"
        start = datetime(2023, 1, 9, 18, 0, tzinfo=UTC) + timedelta(days=3 * index)
        self.days = [start + timedelta(days=11 * s + self.rng.randint(0, 4)) for s in range(sessions)]
        self.plan: list[list[list[tuple[str, str]]]] = [[] for _ in range(sessions)]  # session -> blocks of turns
        self.marks: dict[tuple[int, int, int], str] = {}  # (session, block, line) -> mark
        self.questions: list[tuple[str, str, list[str], list[str]]] = []

    def block(self, session: int, lines: list[tuple[str, str]], marks: dict[int, str]) -> None:
        self.plan[session].append(lines)
        for line, mark in marks.items():
            self.marks[(session, len(self.plan[session]) - 1, line)] = mark

    def exchange(self, asker: str, speaker: str, texts: list[str], values: tuple[str, ...]) -> list[tuple[str, str]]:
        people = [asker, speaker]
        lines = []
        for i, text in enumerate(texts):
            line = text.format(*values, o=people[(i + 1) % 2])
            if i % 2 and self.rng.random() < 0.6:  # an answer wrapped in chatter, as real turns are
                line = f"{self.rng.choice(OPENERS)} {line}"
            if i % 2 and self.rng.random() < 0.5:
                line = f"{line} {self.rng.choice(CLOSERS)}"
            lines.append((people[i % 2], line))
        return lines


def _fact(builder: _Builder, fact: dict[str, Any], slot: int, subject: str, other: str, tag: str) -> None:
    rng = builder.rng
    values: tuple[str, ...] = fact["values"][slot]
    sessions = len(builder.days)
    first = rng.randrange(0, sessions - 4)
    turns: list[str] = fact["turns"]
    answer_lines = {i: f"{tag}:a{i}" for i in range(1, len(turns))}
    builder.block(first, builder.exchange(other, subject, turns, values), answer_lines)
    name = {"s": subject}
    asks: list[tuple[str, str, str]] = fact["questions"]
    marks = {"a1": 1, "a2": 2}
    if "update" in fact:
        later = rng.randrange(first + 2, sessions)
        builder.block(later, builder.exchange(other, subject, fact["update"], values), {1: f"{tag}:u"})
    if "later" in fact:
        later = rng.randrange(first + 1, sessions)
        builder.block(later, builder.exchange(other, subject, fact["later"], values), {1: f"{tag}:l"})
    for paraphrased, direct, mark in asks:
        text = (paraphrased if rng.random() < PARAPHRASED else direct).format(*values, **name)
        if mark == "u":
            builder.questions.append(("knowledge-update", text, [f"{tag}:u"], [f"{tag}:a1"]))
        else:
            builder.questions.append(
                ("single-hop", text, [f"{tag}:{mark}" if mark in marks or mark == "l" else mark], [])
            )
    if "multi" in fact and "later" in fact:
        q = str(fact["multi"]).format(*values, **name)
        builder.questions.append(("multi-hop", q, [f"{tag}:a1", f"{tag}:l"], []))
    if "temporal" in fact:
        builder.questions.append(("temporal", str(fact["temporal"]).format(*values, **name), [f"{tag}:a1"], []))
    if "open" in fact:
        builder.questions.append(("open-domain", str(fact["open"]).format(*values, **name), [f"{tag}:a1"], []))


def conversation(index: int, sessions: int = 24) -> Conversation:
    builder = _Builder(index, sessions)
    rng = builder.rng
    a, b = builder.a, builder.b
    kinds = list(FACTS)
    rng.shuffle(kinds)
    for number, fact in enumerate(kinds):
        slots = rng.sample(range(len(fact["values"])), 2)
        _fact(builder, fact, slots[0], a, b, f"f{number}a")  # about the user's own speaker ...
        if number % 2 == 0:  # ... and, for half the kinds, the friend with another value: near misses
            _fact(builder, fact, slots[1], b, a, f"f{number}b")
        for line in fact["chatter"]:
            value = fact["values"][rng.randrange(len(fact["values"]))]
            speaker = rng.choice([a, b])
            builder.block(rng.randrange(sessions), [(speaker, str(line).format(*value))], {})
    for session in range(sessions):  # small talk: greetings, reactions, name-only turns
        for _ in range(rng.randint(8, 16)):
            speaker, other = (a, b) if rng.random() < 0.5 else (b, a)
            builder.block(session, [(speaker, rng.choice(SMALL_TALK).format(o=other))], {})
    turns: list[Turn] = []
    ids: dict[str, str] = {}
    for session, blocks in enumerate(builder.plan):
        order = list(range(len(blocks)))
        rng.shuffle(order)
        at = builder.days[session]
        for block_index in order:
            for line, (speaker, text) in enumerate(blocks[block_index]):
                turn_id = f"{builder.user}:s{session}:t{len(turns)}"
                turns.append(Turn(turn_id, session, at + timedelta(minutes=len(turns) % 90), speaker, text))
                mark = builder.marks.get((session, block_index, line))
                if mark:
                    ids[mark] = turn_id
    questions = [
        Question(f"{builder.user}:q{n}", category, text, [ids[m] for m in evidence], [ids[m] for m in stale])
        for n, (category, text, evidence, stale) in enumerate(builder.questions)
    ]
    asked = [*rng.sample(OFF_TOPIC_GENERAL, 2)]
    asked += [q.format(x=rng.choice(STRANGERS)) for q in rng.sample(OFF_TOPIC_STRANGER, 2)]
    asked += [q.format(s=rng.choice([a, b])) for q in rng.sample(OFF_TOPIC, 2)]
    for n, text in enumerate(asked):
        kind = ("off-topic", "off-topic-stranger", "off-topic-speaker")[n // 2]
        questions.append(Question(f"{builder.user}:o{n}", kind, text, []))
    questions += _more_off_topic(index, builder.user, (a, b), {q.question for q in questions})
    return Conversation(builder.user, turns, questions)


def _more_off_topic(index: int, user: str, speakers: tuple[str, str], asked: set[str]) -> list[Question]:
    """Two more of each off-topic kind, from their own seed: the questions above stay as they were."""
    rng = random.Random(5_000 + index)
    pools = (
        ("off-topic", [q for q in OFF_TOPIC_GENERAL if q not in asked]),
        ("off-topic-stranger", [q.format(x=rng.choice(STRANGERS)) for q in OFF_TOPIC_STRANGER]),
        ("off-topic-speaker", [q.format(s=rng.choice(speakers)) for q in OFF_TOPIC]),
    )
    more: list[Question] = []
    for kind, pool in pools:
        for text in rng.sample([q for q in pool if q not in asked], 2):
            more.append(Question(f"{user}:o{6 + len(more)}", kind, text, []))
    return more


def dataset(users: int = 12) -> list[Conversation]:
    return [conversation(i) for i in range(users)]


if __name__ == "__main__":
    data = dataset()
    turns = sum(len(c.turns) for c in data)
    questions = [q for c in data for q in c.questions]
    by: dict[str, int] = {}
    for q in questions:
        by[q.category] = by.get(q.category, 0) + 1
    print(f"{len(data)} conversations, {turns} turns, {len(questions)} questions: {by}")
    for q in data[0].questions[:12]:
        print(q.category, "|", q.question, "|", [t.content for t in data[0].turns if t.turn_id in q.evidence])
