"""The hybrid search's fusion: the vector leg, the keyword leg per turn and per conversation window (issue 30.1).

Measured on real multi-session conversations (/work/shared/reference/memory-retrieval.md and
``bench/memory_eval.py``), each lever below gains recall at the same number of characters:

* **Candidate depth independent of ``top_k``**: each leg contributes its best :data:`DEPTH` documents. With
  ``k = 4 × top_k`` and rank fusion, any document both short legs found outranked a leg's own first hit.
* **Normalised score fusion** instead of reciprocal rank fusion: each leg's scores are scaled to [0, 1] over
  its candidates and summed with :data:`WEIGHTS`, so a leg's clear winner stays a winner.
* **The conversation window**: a stored turn is also scored by BM25 over itself and its :data:`WINDOW` turns
  on each side (theirs weighted :data:`NEIGHBOUR_WEIGHT`): the answer to "what are Kate's hobbies" is often
  the turn after the one naming Kate. Windows are read around the best :data:`ANCHORS` documents of each leg
  (``MemoryStore.adjacent``); the turn itself is returned. A turn longer than :data:`CHAT_LINE_CHARS` stands
  alone: a whole message, not a line of a chat whose answer the next line holds, it neither takes its
  neighbours' words nor lends its own.
* **Smoothing**: a share (:data:`SMOOTHING`) of the neighbouring turns' fused scores is added to a turn's (the
  neighbours its window holds).

**Calibrated relevance** (issue 30.2): ``confidence × √((1 + fused / best) / 2 × content)``. The hits keep
the fused order; the best scores the query's confidence and the last at least √½ of it (each times the root of
its content factor, :mod:`mneme.memory.content_prior`: "Hey Kate!" says less than a whole sentence), so
``min_score`` decides whether a query recalls anything rather than cutting a confident query's tail. Without the
root (the last at half the confidence) a search with the default floor returned fewer than ``top_k`` hits of a
confident query: on ``bench/recall_eval.py``, recall@10 with the floor 0.841 against 0.886 without, now 0.856;
off-topic questions silent as before (the confidence is unchanged). The confidence is ``max(c_v, c_k)``
(:mod:`mneme.memory.calibration`): ``c_v`` maps the best cosine through the embedding model's calibration
(``COSINE_SCALE``: below ``low`` nothing is similar, above ``high`` clearly; a long passage's cosine lifted by
``LENGTH_LIFT``), ``c_k`` the share of the query's idf mass the best window contains (``Bm25.coverage``) above
:data:`COVERAGE_FLOOR`. An off-topic question — its rare words absent, its best cosine low — scores low for every
hit, so the floor empties it. A question naming nobody whose best candidate is a whole short note standing out of
the others (``STANDOUT``) is as confident as that note stands out: over a user's own notes in the first person ("I
work as a nurse …", asked "What do I do for a living?"; ``bench/own_notes.py``) auto-inject carried 0.633 of the
evidence, every off-topic question silent; now 0.869, still silent. A transcript's lines are left to their
windows: over the conversations of ``bench/recall_eval.py`` it let general off-topic questions through (silent 1.00
→ 0.94), and so did a long turn's later chunks (no speaker: notes) over LongMemEval's sessions (other users'
questions silent 0.979 → 0.913).

**A note that says nothing of the question** (:func:`says_nothing`): the share lets a confident query's tail through,
as a conversation needs (an answer line's window vouches for it). A note stands alone (``talk.is_note``):
sharing no word with the question but the names it asks about, its cosine at or under the model's ``low``, it keeps
:data:`SAYS_NOTHING` of its relevance (its place, under every floor). "Where is the offsite?" over ten notes injected
four about Maria and Tom (cosines 0.05-0.12) at 0.73-0.75 beside the offsite's; now the offsite's alone. A line of
talk read alone — its conversation holds no line beside it, as one transcript line stored among notes — has no window
to vouch for it and says nothing by the same test: "Kate: I adopted a cat named Pixel." rode at 0.73-0.76 on every
confident question over a user's notes ("What is my favourite colour?").
"""

from __future__ import annotations

import math
from functools import partial
from typing import TYPE_CHECKING, Any

from mneme.memory.calibration import cosine_scale, evidence_cosine, ramp
from mneme.memory.content_prior import CHAT_LINE_CHARS, content_factor
from mneme.memory.talk import is_note, one_talk
from mneme.models.memory import MemoryCandidate, MemoryDocument

if TYPE_CHECKING:
    from collections.abc import Callable, Mapping, Sequence

    from mneme.memory.keyword_scoring import Bm25

DEPTH = 50
ANCHORS = 10
WINDOW = 2
SPAN = 2 * WINDOW  # turns read on each side of an anchor: every turn within WINDOW of it gets its whole window
WEIGHTS = {"vector": 0.4, "turn": 0.25, "window": 0.35}
#: the weights when the keyword legs found nothing but the people a question names (their scores: length alone)
VECTOR_ONLY = {"vector": 1.0, "turn": 0.0, "window": 0.0}
SMOOTHING = 0.2
NEIGHBOUR_WEIGHT = 0.5  # a window turn's words count this much next to the turn's own (1.0: a plain window)
COVERAGE_FLOOR = 0.5
#: the keyword mode's: its only evidence (measured with the default floors, @10: ours 0.202 -> 0.233, LoCoMo
#: categories 1-4 0.277 -> 0.350, LongMemEval own 0.186 -> 0.273, pooled 0.314 -> 0.422; off-topic silent 1.00)
KEYWORD_MODE_COVERAGE_FLOOR = 0.35
MIN_CONFIDENCE = 1e-6  # a query without evidence still ranks its candidates (no floor: all of them, in order)
SAYS_NOTHING = 1e-3  # the share of its relevance a note keeps that says nothing of the question (the module doc)

Adjacent = dict[str, tuple[list[MemoryDocument], list[MemoryDocument]]]


def keyword_confidence(coverage: float, floor: float = COVERAGE_FLOOR) -> float:
    """Keyword evidence counts once a text holds more than ``floor`` of the query's idf mass (a question about
    someone never mentioned still shares its common words with many memories). Beside the vector's (hybrid)
    it counts above :data:`COVERAGE_FLOOR`; alone (the keyword mode) above :data:`KEYWORD_MODE_COVERAGE_FLOOR`,
    where a question that says a thing in other words than the memory has nothing else to vouch for it."""
    return ramp(coverage, floor, 1.0)


def says_nothing(
    model_id: str, doc: MemoryDocument, cosine: float | None, *, words_shared: Callable[[], bool], alone: bool = False
) -> bool:
    """Whether ``doc`` is a note, or a line of talk read ``alone`` (its conversation holds no line beside it), that
    says nothing of the question (the module doc): its cosine (``None``: not a vector candidate), as evidence
    (``calibration.evidence_cosine``), is at or under the model's ``low`` and it shares no word with it
    (``words_shared``, asked last: it reads the note's words)."""
    if not (alone or is_note(doc)):
        return False
    low, _high = cosine_scale(model_id)
    if cosine is not None and evidence_cosine(model_id, cosine, len(doc.content)) > low:
        return False
    return not words_shared()


def share(relative: float, content: str) -> float:
    """A candidate's share of its query's confidence: from half (the last) to all (the best) by its fused score
    relative to the best's, times its content factor, and the square root of that. The root keeps the order
    and lifts the tail: the floor decides whether a query recalls anything, not how much of a confident query's
    tail it keeps."""
    return math.sqrt((1.0 + relative) / 2.0 * content_factor(content))


def anchors(vector: Sequence[MemoryCandidate], turns: Sequence[tuple[MemoryDocument, float]]) -> list[MemoryDocument]:
    """The documents whose conversation is read: the best :data:`ANCHORS` of each leg, once each."""
    chosen = {c.document.id: c.document for c in vector[:ANCHORS]}
    chosen |= {doc.id: doc for doc, _ in turns[:ANCHORS] if doc.id not in chosen}
    return list(chosen.values())


class _Windows:
    """Each turn's window score and ±1 neighbours, from the conversation read around the anchors."""

    def __init__(self, bm25: Bm25, around: Adjacent, known: dict[str, MemoryDocument]) -> None:
        self._bm25 = bm25
        self.scores: dict[str, float] = {}
        self.coverage = 0.0
        self.neighbours: dict[str, list[str]] = {}
        self.alone: set[str] = set()  # read, and no line of their conversation beside them
        for anchor_id, (before, after) in sorted(around.items()):
            sequence = [*before, known[anchor_id], *after]
            at = len(before)
            for position in range(max(0, at - WINDOW), min(len(sequence), at + WINDOW + 1)):
                self._score(sequence, position)

    def counts(self, doc: MemoryDocument) -> dict[str, float]:
        return self._bm25.counts_of(doc)

    def _score(self, sequence: list[MemoryDocument], position: int) -> None:
        doc = sequence[position]
        window = [
            turn
            for turn in sequence[max(0, position - WINDOW) : position + WINDOW + 1]
            if turn is doc or (max(len(turn.content), len(doc.content)) <= CHAT_LINE_CHARS and one_talk(doc, turn))
        ]
        counts: dict[str, float] = {}
        for turn in window:
            weight = 1.0 if turn is doc else NEIGHBOUR_WEIGHT
            for key, tf in self.counts(turn).items():
                counts[key] = counts.get(key, 0.0) + weight * tf
        chars = sum(len(turn.content) * (1.0 if turn is doc else NEIGHBOUR_WEIGHT) for turn in window)
        span = 1.0 + NEIGHBOUR_WEIGHT * (len(window) - 1)
        score = self._bm25.score(counts, chars, span=span)
        self.scores[doc.id] = max(score, self.scores.get(doc.id, 0.0))
        self.coverage = max(self.coverage, self._bm25.coverage(counts))
        held = {turn.id for turn in window}
        sides = [
            sequence[i].id for i in (position - 1, position + 1) if 0 <= i < len(sequence) and sequence[i].id in held
        ]
        self.neighbours.setdefault(doc.id, sides)
        if _alone(sequence, position):
            self.alone.add(doc.id)


def _alone(sequence: list[MemoryDocument], position: int) -> bool:
    """Whether no line of its own talk is said beside the line at ``position`` (whatever their lengths)."""
    doc = sequence[position]
    return not any(one_talk(doc, sequence[i]) for i in (position - 1, position + 1) if 0 <= i < len(sequence))


def _scaled(scores: dict[str, float], *, low: float = 0.0) -> dict[str, float]:
    """Scores mapped to [0, 1]: the best is 1, ``low`` (or less) 0."""
    if not scores:
        return {}
    best = max(scores.values())
    if best <= low:
        return dict.fromkeys(scores, 1.0 if best > 0 else 0.0)
    return {key: max(0.0, (value - low) / (best - low)) for key, value in scores.items()}


def fuse(
    vector: Sequence[MemoryCandidate],
    turns: Sequence[tuple[MemoryDocument, float]],
    bm25: Bm25,
    around: Adjacent,
    *,
    vector_confidence: float,
    vector_bonus: Mapping[str, float] | None = None,
    keyword_ranks: bool = True,
    model_id: str | None = None,
    names: frozenset[str] = frozenset(),
    notes: dict[str, Any] | None = None,
) -> list[MemoryCandidate]:
    """The fused candidates, best first, ``similarity`` the calibrated relevance (see the module doc);
    ``vector_confidence`` is what the vector evidence vouches for (the question's best cosine calibrated,
    ``calibration.cosine_confidence``, times the share a name lift keeps); ``vector_bonus`` is added to some candidates'
    cosines before the vector leg is scaled (their reported ``vector_similarity`` stays the cosine); without
    ``keyword_ranks`` the keyword legs (:func:`mneme.memory.name_lift.names_only`) do not rank. With the
    embedding ``model_id`` a note that says nothing of the question (:func:`says_nothing`; a match on one of the
    question's ``names``, keyword stems, is not a word shared) keeps :data:`SAYS_NOTHING` of its relevance.
    ``notes`` (explain) receives the query's ``confidence``: its ``value`` and the ``keyword_coverage`` behind it,
    and the ids of the notes that say nothing (``says_nothing``)."""
    vector = list(vector[:DEPTH])
    turns = list(turns[:DEPTH])
    known = {c.document.id: c.document for c in vector} | {doc.id: doc for doc, _ in turns}
    for before, after in around.values():
        known |= {doc.id: doc for doc in (*before, *after)}
    windows = _Windows(bm25, around, known)
    for doc, _ in turns:  # a keyword hit outside every anchor's window: its own window is itself
        if doc.id not in windows.scores:
            counts = windows.counts(doc)
            windows.scores[doc.id] = bm25.score(counts, len(doc.content))
            windows.coverage = max(windows.coverage, bm25.coverage(counts))
    cosines = {c.document.id: c.similarity for c in vector}
    turn_scores = {doc.id: score for doc, score in turns}
    bonus = vector_bonus or {}
    ranked = {doc_id: cosine + bonus.get(doc_id, 0.0) for doc_id, cosine in cosines.items()}
    lowest = min(ranked.values()) if len(ranked) > 1 else 0.0
    weights = WEIGHTS if keyword_ranks else VECTOR_ONLY
    legs = (
        (weights["vector"], _scaled(ranked, low=lowest)),
        (weights["turn"], _scaled(turn_scores)),
        (weights["window"], _scaled(windows.scores)),
    )
    fused = {doc_id: sum(weight * leg.get(doc_id, 0.0) for weight, leg in legs) for doc_id in known}
    smoothed = {
        doc_id: score + SMOOTHING * sum(fused.get(n, 0.0) for n in windows.neighbours.get(doc_id, ())) / 2
        for doc_id, score in fused.items()
    }
    best = max(smoothed.values(), default=0.0)
    if best <= 0:
        return []
    confidence = max(vector_confidence, keyword_confidence(windows.coverage), MIN_CONFIDENCE)
    _note(notes, confidence, windows.coverage)
    found = cosines.keys() | turn_scores.keys()  # a leg's own candidate stays, even its lowest (scaled to 0)
    kept = {doc_id for doc_id in smoothed if smoothed[doc_id] > 0 or doc_id in found}

    def words_shared(doc_id: str) -> bool:  # its own beyond the names asked about, or lent by neighbours (a window)
        return bool(windows.neighbours.get(doc_id)) or not bm25.counts_of(known[doc_id]).keys() <= names

    silenced = sorted(
        doc_id
        for doc_id in kept
        if model_id is not None
        and says_nothing(
            model_id,
            known[doc_id],
            cosines.get(doc_id),
            words_shared=partial(words_shared, doc_id),
            alone=doc_id in windows.alone,
        )
    )
    relevance = {doc_id: confidence * share(smoothed[doc_id] / best, known[doc_id].content) for doc_id in kept}
    relevance |= {doc_id: relevance[doc_id] * SAYS_NOTHING for doc_id in silenced}
    ordered = sorted(relevance.items(), key=lambda item: (-item[1], known[item[0]].content_hash, item[0]))
    if notes is not None and silenced:
        notes["says_nothing"] = silenced
    return [
        MemoryCandidate(
            document=known[doc_id],
            similarity=score,
            vector_similarity=cosines.get(doc_id),
            keyword_score=turn_scores.get(doc_id),
        )
        for doc_id, score in ordered
    ]


def keyword_only(
    turns: Sequence[tuple[MemoryDocument, float]], bm25: Bm25, notes: dict[str, Any] | None = None
) -> list[MemoryCandidate]:
    """The keyword mode: the calibrated relevance of the fusion with the keyword evidence alone."""
    if not turns:
        return []
    best = turns[0][1]
    coverage = max(bm25.coverage(bm25.counts_of(doc)) for doc, _ in turns[:DEPTH])
    confidence = max(keyword_confidence(coverage, KEYWORD_MODE_COVERAGE_FLOOR), MIN_CONFIDENCE)
    _note(notes, confidence, coverage)
    scored = [(doc, score, confidence * share(score / best, doc.content)) for doc, score in turns[:DEPTH]]
    scored.sort(key=lambda item: (-item[2], item[0].content_hash, item[0].id))
    return [MemoryCandidate(document=doc, similarity=fused, keyword_score=score) for doc, score, fused in scored]


def _note(notes: dict[str, Any] | None, confidence: float, coverage: float) -> None:
    """What explain shows of a query's confidence: the most any hit's similarity can be before its rule bonus and
    recency, and the keyword evidence's part (beside the vector's, which the caller noted)."""
    if notes is not None:
        notes.setdefault("confidence", {}).update(value=round(confidence, 4), keyword_coverage=round(coverage, 4))
