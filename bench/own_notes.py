"""A user's own notes, in the first person: what a person stores about themselves first (issue 30).

``bench/notes.py`` keeps notes about other people, each naming them ("Maria works as a nurse at the city hospital."),
whose questions share the name and much of the note's vector. A person's first memories are about themselves, in the
first person: "I work as a nurse at the city hospital.", asked "What do I do for a living?" — no name, often no word
in common, and a MiniLM cosine of 0.35-0.5 to the note that answers, under the calibrated scale's clear match
(:data:`mneme.memory.calibration.COSINE_SCALE`) while the user's other notes sit near 0.

* **Memories**: small ones, as a new user's are: 3 to 14 notes a user (sizes cycling 3, 5, 5, 7, 7, 10, 10, 14, 14,
  14, 3, 7), each a fact of its own kind (job, pets, car, colour, allergy, city, birthday, partner, instrument, diet,
  language, weekends, a child's school, usual drink), stored seconds apart; no speaker.
* **Questions**: one per note, with the note's words or paraphrased (half each, seeded); the evidence is that note.
* **Off-topic**: two general questions and two about the user on a subject never noted ("What is my blood type?")
  a memory: auto-inject should add nothing.
* **Beside a transcript** (:func:`beside`): the same notes stored in the memories of ``bench/conversations.py``, a
  user's notes with the transcript of the same index.

Deterministic (seeded), generated in code: nothing is downloaded. ``dataset(users=N)`` gives N memories in the
shape of :class:`conversations.Conversation`; ``bench/recall_eval.py --own-notes --users 36`` measures them.
"""

from __future__ import annotations

import random
import sys
from dataclasses import replace
from datetime import timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run as a script, from bench/

from bench.conversations import Conversation
from bench.notes import noted

# each kind: values, the note, the question with the note's words, the question paraphrased
KINDS: list[tuple[list[tuple[str, ...]], str, str, str]] = [
    ([("a nurse", "the city hospital"), ("a teacher", "the primary school"), ("an accountant", "a shipping firm")],
     "I work as {0} at {1}.", "Where do I work?", "What do I do for a living?"),
    ([("a cat named Pixel",), ("a dog called Pepper",), ("two rabbits",)], "I have {0}.", "Do I have a cat or a dog?",
     "What pets do I have?"),
    ([("a red Volvo",), ("a green cargo bike",), ("a grey minivan",)], "I drive {0}.", "What do I drive?",
     "What car do I have?"),
    ([("teal",), ("orange",), ("navy blue",)], "My favourite colour is {0}.", "What is my favourite colour?",
     "Which colour do I like best?"),
    ([("peanuts",), ("shellfish",), ("penicillin",)], "I am allergic to {0}.", "What am I allergic to?",
     "Do I have any allergies?"),
    ([("Leeds",), ("Porto",), ("Graz",)], "I live in {0}.", "Where do I live?", "Which city is my home?"),
    ([("June 3",), ("October 21",), ("February 14",)], "My birthday is on {0}.", "When is my birthday?",
     "When was I born?"),
    ([("Sam",), ("Priya",), ("Jonas",)], "My partner's name is {0}.", "What is my partner's name?",
     "Who am I married to?"),
    ([("the cello",), ("the piano",), ("the drums",)], "I am learning to play {0}.", "What am I learning to play?",
     "Which instrument do I practise?"),
    ([("vegetarian",), ("vegan",), ("pescatarian",)], "I am {0}.", "Am I vegetarian?", "What is my diet?"),
    ([("Spanish",), ("Japanese",), ("German",)], "I am learning {0} on Duolingo.", "Which language am I learning?",
     "What language am I studying?"),
    ([("rock climbing",), ("sailing",), ("running marathons",)], "On weekends I go {0}.", "What do I do on weekends?",
     "What is my hobby?"),
    ([("Emma", "September"), ("Noah", "August")], "My daughter {0} starts school in {1}.",
     "When does {0} start school?", "When does my kid start school?"),
    ([("oat milk lattes",), ("green tea",), ("espresso",)], "I always order {0}.", "What do I always order?",
     "What is my usual drink?"),
]  # fmt: skip
OFF_TOPIC_GENERAL = [
    "How do I bake banana bread?", "What is the capital of Australia?", "How far away is the moon?",
    "Who wrote War and Peace?", "What's the weather like today?", "How do I fix a flat bicycle tyre?",
]  # fmt: skip
OFF_TOPIC_OWN = [
    "What is my blood type?", "When is my dentist appointment?", "What size shoes do I wear?",
    "What is my wifi password?", "Which football club do I support?", "What is my favourite opera?",
]  # fmt: skip
SIZES = [3, 5, 5, 7, 7, 10, 10, 14, 14, 14, 3, 7]


def memory(index: int) -> Conversation:
    rng = random.Random(9_000 + index)
    user = f"own{index:02d}"
    facts: list[tuple[str, str]] = []  # (note, question)
    for values, note, words, paraphrased in rng.sample(KINDS, SIZES[index % len(SIZES)]):
        value = rng.choice(values)
        facts.append((note.format(*value), (paraphrased if rng.random() < 0.5 else words).format(*value)))
    off = [
        *(("off-topic", q) for q in rng.sample(OFF_TOPIC_GENERAL, 2)),
        *(("off-topic-speaker", q) for q in rng.sample(OFF_TOPIC_OWN, 2)),
    ]
    return noted(user, index, facts, off, kind="own-note")


def dataset(users: int = 36) -> list[Conversation]:
    return [memory(i) for i in range(users)]


def beside(transcripts: list[Conversation], own: list[Conversation]) -> list[Conversation]:
    """Each user's own notes stored in the memory of the transcript of the same index, a day after its last line
    (``bench/recall_eval.py --own-notes --beside-transcripts``): both sets' questions, asked of one memory."""
    mixed = []
    for talk, notes in zip(transcripts, own, strict=True):
        shift = max(t.at for t in talk.turns) - min(t.at for t in notes.turns) + timedelta(days=1)
        ids = {t.turn_id: t.turn_id.replace(notes.user, talk.user, 1) for t in notes.turns}
        turns = [replace(t, turn_id=ids[t.turn_id], at=t.at + shift) for t in notes.turns]
        questions = [
            replace(q, qid=q.qid.replace(notes.user, talk.user, 1), evidence=[ids[e] for e in q.evidence])
            for q in notes.questions
        ]
        mixed.append(Conversation(talk.user, talk.turns + turns, talk.questions + questions))
    return mixed


if __name__ == "__main__":
    data = dataset()
    print(f"{len(data)} memories, {sum(len(c.turns) for c in data)} notes, {sum(len(c.questions) for c in data)} asked")
    for q in data[3].questions:
        print(q.category, "|", q.question, "|", [t.content for t in data[3].turns if t.turn_id in q.evidence])
