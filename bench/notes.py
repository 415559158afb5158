"""A memory of notes: what an agent's extraction or a user's ``POST /v1/memory/documents`` stores (issue 30).

``bench/conversations.py`` stores transcripts, whose every line says who speaks and whose answer line often shares
no word with the question (the conversation window finds it). A memory of notes is the other shape users meet
first: short statements that stand alone ("Maria has two cats named Pixel and Byte."), many about the same few
people, so every note about Maria shares her name and much of her vector with a question about her. What it
measures is what a run gets injected: the note that answers, and how many others come with it.

* **Notes**: per user six people (names drawn apart from ``conversations.py``'s), each with five of nine kinds of
  fact, and five notes about the team that name nobody; one note per entry, no speaker, stored a few seconds apart.
* **Questions**: one per fact, asked with the note's words or paraphrased (half each, seeded): "What does Maria
  do for a living?" for "Maria works as a nurse at the city hospital."; the evidence is that note.
* **Off-topic**: general questions, a known person asked about something never noted, and people never noted
  (auto-inject should add nothing).

Deterministic (seeded), generated in code: nothing is downloaded. ``dataset(users=N)`` gives N memories in the
shape of :class:`conversations.Conversation` (a note is a :class:`conversations.Turn` without a speaker).
"""

from __future__ import annotations

import random
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run as a script, from bench/

from bench.conversations import Conversation, Question, Turn

NAMES = [
    "Maria", "Tom", "Aisha", "Bruno", "Chen", "Dana", "Elif", "Felix", "Greta", "Hugo", "Ines", "Jonas",
    "Kira", "Leo", "Mina", "Nils", "Olga", "Pablo", "Rosa", "Stefan", "Tara", "Umar", "Vera", "Yusuf",
]  # fmt: skip
STRANGERS = ["Bartholomew", "Ximena", "Quentin", "Zofia", "Ignatius", "Wilhelmina"]
# each kind: values, the note, the question with the note's words, the question paraphrased
KINDS: list[tuple[list[tuple[str, ...]], str, str, str]] = [
    (
        [("a nurse", "the city hospital"), ("a civil engineer", "a bridge builder"),
         ("an accountant", "a shipping firm"), ("a teacher", "the primary school"),
         ("a chef", "an Italian restaurant")],
        "{p} works as {0} at {1}.", "Where does {p} work?", "What does {p} do for a living?",
    ),
    (
        [("cats", "Pixel and Byte"), ("dog", "Pepper"), ("rabbits", "Clover and Moss"), ("parrot", "Kiwi"),
         ("tortoise", "Sheldon")],
        "{p} has {0} named {1}.", "What {0} does {p} have?", "What pets does {p} keep at home?",
    ),
    (
        [("Leeds",), ("Porto",), ("Graz",), ("Tampere",), ("Bologna",)],
        "{p} lives in {0}.", "Where does {p} live?", "Which city is {p} based in?",
    ),
    (
        [("June 3",), ("October 21",), ("February 14",), ("August 9",), ("December 1",)],
        "{p}'s birthday is on {0}.", "When is {p}'s birthday?", "When was {p} born?",
    ),
    (
        [("peanuts",), ("shellfish",), ("gluten",), ("cat hair",), ("penicillin",)],
        "{p} is allergic to {0}.", "What is {p} allergic to?", "What should {p} avoid for health reasons?",
    ),
    (
        [("blue Volvo",), ("red Vespa",), ("green cargo bike",), ("white Tesla",), ("grey minivan",)],
        "{p} drives a {0}.", "What does {p} drive?", "How does {p} get around town?",
    ),
    (
        [("cello",), ("banjo",), ("piano",), ("saxophone",), ("drums",)],
        "{p} is learning to play the {0}.", "What is {p} learning to play?", "Which instrument does {p} practise?",
    ),
    (
        [("green tea",), ("oat milk lattes",), ("sparkling water",), ("hot chocolate",), ("espresso",)],
        "{p} always orders {0} at meetings.", "What does {p} always order at meetings?",
        "What is {p}'s usual drink?",
    ),
    (
        [("marathons",), ("rock climbing",), ("sailing",), ("chess tournaments",), ("birdwatching",)],
        "On weekends {p} goes {0}.", "What does {p} do on weekends?", "What is {p}'s hobby?",
    ),
]  # fmt: skip
TEAM = [
    ("The team offsite is planned for March in Lisbon.", "Where is the team offsite?", "Where will we meet offsite?"),
    ("The Atlas launch moved to the second week of May.", "When is the Atlas launch?", "When does Atlas ship?"),
    ("The staging database runs PostgreSQL 15 on a single node.", "What does the staging database run?",
     "Which database engine is staging on?"),
    ("Quarterly reports are due on the fifth working day.", "When are quarterly reports due?",
     "What is the deadline for the quarter's report?"),
    ("The office wifi password rotates every month.", "How often does the office wifi password rotate?",
     "When does the wireless password change?"),
]  # fmt: skip
OFF_TOPIC_GENERAL = [
    "How do I bake banana bread?", "What is the capital of Australia?", "How far away is the moon?",
    "Any tips for growing tomatoes on a balcony?", "Who wrote War and Peace?", "How do I fix a flat bicycle tyre?",
]  # fmt: skip
OFF_TOPIC_KNOWN = ["What is {p}'s favourite opera?", "Which football club does {p} support?"]
OFF_TOPIC_STRANGER = ["What does {x} do for a living?", "Where does {x} live?"]


def memory(index: int) -> Conversation:
    rng = random.Random(7_000 + index)
    user = f"n{index:02d}"
    people = rng.sample(NAMES, 6)
    facts: list[tuple[str, str]] = []  # (note, question)
    for person in people:
        for note, words, paraphrased in _facts(rng, person):
            facts.append((note, paraphrased if rng.random() < 0.5 else words))
    for note, words, paraphrased in TEAM:
        facts.append((note, paraphrased if rng.random() < 0.5 else words))
    rng.shuffle(facts)
    off = [
        *(("off-topic", q) for q in rng.sample(OFF_TOPIC_GENERAL, 2)),
        *(("off-topic-speaker", q.format(p=rng.choice(people))) for q in OFF_TOPIC_KNOWN),
        *(("off-topic-stranger", q.format(x=rng.choice(STRANGERS))) for q in OFF_TOPIC_STRANGER),
    ]
    return noted(user, index, facts, off)


def noted(
    user: str, index: int, facts: list[tuple[str, str]], off: list[tuple[str, str]], kind: str = "note"
) -> Conversation:
    """``user``'s memory of ``facts`` (note, question), one note per entry stored seconds apart, each question's
    evidence its note (category ``kind``), then the ``off`` questions (kind, question) nothing answers."""
    start = datetime(2024, 3, 4, 9, 0, tzinfo=UTC) + timedelta(days=index)
    turns = [Turn(f"{user}:n{i}", 0, start + timedelta(seconds=7 * i), "", note) for i, (note, _) in enumerate(facts)]
    questions = [Question(f"{user}:q{i}", kind, asked, [turns[i].turn_id]) for i, (_, asked) in enumerate(facts)]
    questions += [Question(f"{user}:o{i}", category, text, []) for i, (category, text) in enumerate(off)]
    return Conversation(user, turns, questions)


def _facts(rng: random.Random, person: str) -> list[tuple[str, str, str]]:
    """Five facts about ``person``: (note, question with its words, question paraphrased)."""
    chosen = []
    for values, note, words, paraphrased in rng.sample(KINDS, 5):
        value = rng.choice(values)
        said, asked, asked_otherwise = (text.format(*value, p=person) for text in (note, words, paraphrased))
        chosen.append((said, asked, asked_otherwise))
    return chosen


def dataset(users: int = 12) -> list[Conversation]:
    return [memory(i) for i in range(users)]


if __name__ == "__main__":
    data = dataset()
    print(f"{len(data)} memories, {sum(len(c.turns) for c in data)} notes, {sum(len(c.questions) for c in data)} asked")
    for q in data[0].questions[:8] + data[0].questions[-6:]:
        print(q.category, "|", q.question, "|", [t.content for t in data[0].turns if t.turn_id in q.evidence])
