"""What a speaker's name alone explains of a question's similarity (issue 30: off-topic questions inject nothing).

Conversation memory is stored turn by turn (``"Caroline: Take care, Melanie!"``), and a small embedding model's
cosine follows a name the question shares with a memory: "Which submarine did Melanie serve on?" scores
0.50-0.57 against "Caroline: Take care, Melanie!" although no submarine was ever mentioned, as high as questions
the memory answers. So the vector confidence of a question that names a **speaker of the caller's own memories**
(the ``Speaker:`` prefixes of the candidates the search already holds: never another user's data, no list of
names) keeps only the share the question earns without those names, :func:`vector_share`: the larger of

* the best cosine of the question embedded again **without the names** (one more embedding and vector search),
  ramped from the cosine under which the model's calibration (:data:`mneme.memory.calibration.COSINE_SCALE`'s
  ``low``) says nothing is similar to :data:`NAME_FREE_RAMP` above it, and
* the share of the question's idf mass, names left out, that one memory contains (:func:`name_free_coverage`),
  ramped over :data:`COVERAGE_SCALE`: a word of the subject found ("What diet has Hana followed since spring?"
  → "since spring") is evidence a paraphrase's cosine alone is not, and
* how far the whole question's best cosine to a turn the named speaker said **stands out** above the median of
  that speaker's other turns among the candidates (:func:`standout`, at least :data:`STANDOUT_TURNS` of them),
  ramped over :data:`STANDOUT_SCALE` of the model's cosine scale: what the name alone explains is the speaker's
  typical cosine, not the best one. "Where does Maria live?" is 0.65 from "Maria: I moved to Porto." and 0.41-0.54
  from Maria's other turns, while its name-free "Where does live?" is 0.28 from it and shares no word with it (it
  found nothing before); "Which submarine did Melanie serve on?" is 0.50-0.57 from every turn of Melanie's alike.

Measured on ``bench/recall_eval.py`` (all-MiniLM-L6-v2, 12 users): the name-free best cosine of questions about a
speaker on a subject never discussed has a median of 0.22 (90 % under 0.36), that of answerable questions 0.47
(95 % over 0.34); the name-free coverage of answerable questions in between is 0.11 or more, of the off-topic
ones 0 but where a word of the question is in memory ("the name of Jon's yacht" ↔ "Named it Milo"). Off-topic
questions about a speaker silent 0.38 → 0.88, recall@5/@10/@20 unchanged, auto-inject 0.574 → 0.573 (a ramp
from 0.05 under ``low`` to 0.05 over it: 0.83; from ``low`` to 0.15 over it: 0.88 at 0.571); the name-free
cosine alone (no coverage) reached 0.90 but cost 0.031 of auto-inject. LoCoMo and LongMemEval
(``bench/public_conversations.py``) unchanged. The scale is the model's own calibration: not measured on Titan.
The standout (2026-12-06, the same benches, before → after): ours @10 with the floors 0.876 → 0.880, auto-inject
0.783 → 0.786 (its hits 0.777 → 0.780), off-topic questions about a speaker still 0.88 silent (a scale of 0.05-0.12:
0.85; 0.03-0.08: 0.65); LoCoMo categories 1-4 auto-inject 0.740 → 0.741, @10 with the floors 0.729 (unchanged);
LongMemEval unchanged.

A question about a person **no memory the caller can read mentions** (:func:`unknown`: a capitalised possessor
or subject, "What did Penelope cook for dinner?", whose words no readable document contains) keeps none of its
vector confidence: what the vector leg found ("What do you cook these days?") is about someone else. Its
keyword confidence already counts the missing name (the rarest word weighs the most). Only a person's place in
the question counts: a destination ("move to Colorado" ↔ "relocating to Denver") is often said otherwise.
Measured: off-topic questions about strangers silent 0.88 → 1.00 (all off-topic 0.917 → 0.958), recall and
auto-inject unchanged; on LoCoMo 1 question of 1,982 and on LongMemEval 1 of 470 name such a word.

The name-free search is also **the vector leg the fusion ranks by** (``engine.memory_io.retrieval``): the
whole question's nearest turns are those naming the speaker ("Melanie: Take care, Caroline!" first for "Which
piece is Caroline rehearsing?"), the name-free question's are about the piece. Who said it still counts: a
turn a named speaker said ranks as if its cosine were :data:`SPEAKER_BONUS` higher (:func:`speaker_bonus`),
and the keyword leg keeps the name. The confidence stays the whole question's best cosine times the share.
Measured (recall@5 / @10 / @20, auto-inject; before → name-free leg → with the speaker bonus):
``bench/recall_eval.py`` 0.587 / 0.664 / 0.718, 0.573 → 0.690 / 0.833 / 0.924, 0.669 → 0.741 / 0.883 / 0.953,
0.712 (bonus 0.05: 0.723 / 0.859; 0.15: 0.756 / 0.886); LoCoMo 0.651 / 0.755 / 0.823, 0.631 → 0.660 / 0.763 /
0.837, 0.640 → 0.680 / 0.771 / 0.841, 0.658; LongMemEval (its questions name no speaker) unchanged. In the
keyword leg a named speaker's name then counts in a turn's ``Speaker:`` only, not where a turn addresses them
("Melanie: Thanks, Caroline!" was a best keyword match of "Where is Caroline employed now?"; ``Bm25``'s
``said_by``): 0.752 / 0.886 / 0.957, auto-inject 0.722; LoCoMo 0.680 / 0.773 / 0.846, 0.658.
"""

from __future__ import annotations

import re
from statistics import median
from typing import TYPE_CHECKING

from mneme.memory.calibration import cosine_scale, ramp
from mneme.memory.keyword_scoring import stems
from mneme.memory.keywords import STOPWORDS, query_words
from mneme.memory.speakers import speaker_name
from mneme.records import Record

if TYPE_CHECKING:
    from collections.abc import Iterable

    from mneme.memory.keyword_scoring import Bm25
    from mneme.models.memory import MemoryCandidate, MemoryDocument

NAME_FREE_RAMP = 0.1  # the name-free best cosine counts from the model's "nothing is similar" cosine to this above
COVERAGE_SCALE = (0.05, 0.15)
#: the best turn of a named speaker standing out above the median of their others, as shares of the model's cosine
#: scale (MiniLM's 0.35-0.75: 0.08-0.16 of cosine), counts from the first to the second
STANDOUT_SCALE = (0.2, 0.4)
STANDOUT_TURNS = 3  # turns of the named speakers among the candidates: fewer, and their median says little
#: the stand-out vouches only for a question whose name-free best cosine is at most this under the model's ``low``: in
#: a short chat, "What is Sam's favourite band?" (name-free 0.14) had a turn of Sam's stand out of his few others;
#: "Where does Maria live?" (0.28, the stand-out's own example) still does. bench/first_hour.py off-topic silent 50 ->
#: 51 of 59 (0.05 under: 52, but Maria's 0.28 lost), recall and bench/recall_eval.py unchanged
STANDOUT_NEAR = 0.1
SPEAKER_BONUS = 0.1  # added to the name-free cosine of a turn a named speaker said: who, beside what
_NAME_WORD = re.compile(r"\b[A-Z][\w'-]*\b(?!\.)")  # a capitalised word, not a title ("Dr.")
#: a capitalised word where a question names a person: its possessor ("Penelope's dog") or the subject after an
#: auxiliary ("did Penelope cook"); a place is rarely either ("the trip to Japan", "move to Colorado"), nor is a
#: possessive after a determiner ("my Bachelor's degree")
_PERSON = re.compile(
    r"(?:\b(\w+) )?\b([A-Z][\w-]*)['’]s\b|\b(?:did|does|do|is|was|has|had|have|would|will|can|could|should)\s+"
    r"([A-Z][\w-]*)\b(?!\.)"
)
_DETERMINERS = frozenset({"a", "an", "the", "my", "your", "his", "her", "its", "our", "their"})
#: capitalised by the calendar, not because they name someone: a memory's date is its metadata, not its words
CALENDAR = frozenset({
    "january", "february", "march", "april", "may", "june", "july", "august", "september", "october", "november",
    "december", "monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday",
})  # fmt: skip


class Named(Record):
    """The speakers a question names and the question without them."""

    names: tuple[str, ...]
    rest: str


def speakers(documents: Iterable[MemoryDocument]) -> set[str]:
    """The words naming the speakers of these memories ("Dr. Ana Lima:" gives "Ana" and "Lima", not the title)."""
    found: set[str] = set()
    for doc in documents:
        for word in _NAME_WORD.findall(speaker_name(doc.content)):
            if len(word) > 1 and word.lower() not in STOPWORDS:
                found.add(word)
    return found


def named(question: str, documents: Iterable[MemoryDocument]) -> Named | None:
    """The speakers of ``documents`` that ``question`` names, as written (capitalised: the name, not the word),
    and the question without them (and their possessive ``'s``); None if it names none or nothing else."""
    names = tuple(name for name in sorted(speakers(documents)) if re.search(rf"\b{re.escape(name)}\b", question))
    if not names:
        return None
    rest = question
    for name in names:
        rest = re.sub(rf"\b{re.escape(name)}(?:['’]s\b)?", "", rest)
    rest = re.sub(r"\s+", " ", rest).strip()
    return Named(names, rest) if query_words(rest) and rest != question else None


def unknown(question: str, bm25: Bm25) -> tuple[str, ...]:
    """The people ``question`` names (:data:`_PERSON`) that no memory the caller can read mentions
    (``bm25.absent``): "What did Penelope cook for dinner?" asked of memories where no Penelope appears.
    Calendar words and function words are left out."""
    return tuple(word for word in people(question) if (keys := stems(word.lower())) and set(keys) <= bm25.absent)


def people(question: str) -> tuple[str, ...]:
    """The people ``question`` names (:data:`_PERSON`: a possessor, or the subject after an auxiliary), in order;
    calendar and function words left out."""
    found: list[str] = []
    for before, possessor, subject in _PERSON.findall(question):
        if possessor and before.lower() in _DETERMINERS:
            continue
        word = possessor or subject
        lower = word.lower()
        if len(word) >= 2 and lower not in STOPWORDS and lower not in CALENDAR and word not in found:
            found.append(word)
    return tuple(found)


def name_stems(question: str) -> frozenset[str]:
    """The keyword stems of the people ``question`` names (:func:`people`)."""
    return frozenset(key for person in people(question) for key in stems(person.lower()))


def names_only(question: str, bm25: Bm25, turns: Iterable[tuple[MemoryDocument, float]]) -> bool:
    """Whether the keyword leg found nothing but the people ``question`` names: "What pets does Maria have?"
    over notes where only "Maria" occurs. Their BM25 then differs by length alone — the shortest note about
    Maria first — so the keyword leg says nothing of which one answers, and does not rank (the fusion)."""
    named = name_stems(question)
    matched = {key for doc, _ in turns for key in bm25.counts_of(doc)}
    return bool(named) and bool(matched) and matched <= named


def speaker_bonus(candidates: Iterable[MemoryCandidate], names: Iterable[str]) -> dict[str, float]:
    """:data:`SPEAKER_BONUS` for each candidate a named speaker said (its leading ``Speaker:`` names one)."""
    wanted = set(names)
    return {c.document.id: SPEAKER_BONUS for c in candidates if _said_by(c, wanted)}


def _said_by(candidate: MemoryCandidate, names: set[str]) -> bool:
    """Whether the candidate's leading ``Speaker:`` names one of ``names``."""
    return bool(names.intersection(_NAME_WORD.findall(speaker_name(candidate.document.content))))


def name_free_coverage(bm25: Bm25, documents: Iterable[MemoryDocument], names: Iterable[str]) -> float:
    """The largest share of the query's idf mass, the names' stems left out, that one of ``documents`` contains."""
    left_out = {token for name in names for token in stems(name)}
    total = sum(idf for key, idf in bm25.idf.items() if key not in left_out)
    if total <= 0:
        return 0.0
    return max(
        (sum(bm25.idf[key] for key in bm25.counts_of(doc) if key not in left_out) / total for doc in documents),
        default=0.0,
    )


def standout(candidates: Iterable[MemoryCandidate], names: Iterable[str]) -> float:
    """How far the best cosine of a turn a named speaker said is above the median of that speaker's other turns
    among ``candidates`` (the whole question's vector leg); 0 with fewer than :data:`STANDOUT_TURNS` turns."""
    wanted = set(names)
    said = sorted((c.similarity for c in candidates if _said_by(c, wanted)), reverse=True)
    return said[0] - median(said[1:]) if len(said) >= STANDOUT_TURNS else 0.0


def vector_share(model_id: str, cosine: float, coverage: float, stands_out: float = 0.0) -> float:
    """The share of its vector confidence a question naming a speaker keeps (see the module doc)."""
    nothing, clear = cosine_scale(model_id)
    low, high = (share * (clear - nothing) for share in STANDOUT_SCALE)
    standing = ramp(stands_out, low, high) if cosine >= nothing - STANDOUT_NEAR else 0.0
    return max(ramp(cosine, nothing, nothing + NAME_FREE_RAMP), ramp(coverage, *COVERAGE_SCALE), standing)
