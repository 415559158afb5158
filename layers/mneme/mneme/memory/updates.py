"""Knowledge updates (issue 30, "What to build" 4): a later statement of the same thing ranks above the earlier.

Once a value changes, the memory holds both statements ("Kate: My sister works at the bakery." and, months later,
"Kate: My sister works at the hospital now."), and a query that finds the old one should find the current one
first. Consolidation supersedes an **extracted** fact by a newer one with the same subject (docs/memory.md §3), so
only one of them is a candidate; the raw turns that stated them, and extracted entries consolidation did not
pair, both stay. So, among one search's candidates, a candidate **restates** a higher-ranked one when both are

* in the same namespace, of the same owner, said by the same speaker (the content's leading ``Speaker:``, or
  both without one),
* about the same thing: both carry an extraction ``subject`` and it is the same; else they share at least
  :data:`MIN_SHARED` content words (function words and a leading ``Speaker:`` aside), and at least
  :data:`OVERLAP` of the longer one's,
* and it was said later (``observed_at``, else ``created_at``; the same moment is no update).

Or, for one question, a later note **answers it anew**: two whole short notes (``calibration.short_note``: no
``Speaker:``, at most a chat line long) of the same owner and namespace, the later one covering every word of the
question the earlier one covers (at least one) and saying that something changed (one of :data:`CHANGE_CUES`: "We
*moved* the standup to 10am", "I *cancelled* FitLab and joined the climbing gym", "The Q3 launch *slipped* to October
6"). Such pairs share the question's words and little else, so the same-thing test above cannot pair them. Measured:
``bench/first_hour.py``'s updated facts with the old value above the new 4 → 0 of 10. Lines of talk and long texts
are left out: they say "now" and "new" in passing — over LoCoMo's turns the rule lost 0.013 @10 (categories 1-4,
0.760 → 0.747; 0.002 without "now" and "new"), over LongMemEval's long turns 0.004 @10 (own) and 0.010 (pooled).

And a superseding fact (consolidation marks the raw turns the facts it replaced came from:
``metadata.consolidated.turns``) restates each of those turns, and so does each turn it came from, whoever said
it and in whatever words: the raw turn that stated a superseded value never outranks the current one.

A restatement's similarity is lifted to just above the highest-ranked candidate it restates: it lands right
before it, nothing is dropped, nothing else moves. The lift is applied after the fusion and the optional reranker,
before the ranking (:mod:`mneme.engine.memory_io.ops`), so local mode and AWS (Titan + OpenSearch, the same
fusion in core) take one code path, and explain lists ``restates`` (the id it was lifted above).

Measured (``bench/recall_eval.py``, 809 questions): stale-first 44 → 43, recall@5 / @10 / inject within 0.002
(docs/memory.md §4). Half of the *shorter* one's words made short turns restate long ones: LoCoMo lost 0.053 @5
and 0.051 auto-inject; of the longer one's, at most 0.002 anywhere. Of the
44, 40 are a retrieval miss (the current value's turn is not in the top 20 at all) and the other pairs share no
content word ("I drive a vintage convertible" / "Yep, sold it. Now I have a sensible sedan."); their mutual
cosine (0.25-0.61) is below that of unrelated later turns of the same speaker (up to 0.73), so no similarity
rule finds them, and a recency preference among near ties (no "same thing" test) lost 0.004-0.009 @5.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from datetime import UTC, datetime
from functools import lru_cache
from itertools import chain
from typing import TYPE_CHECKING, NamedTuple

from mneme.memory.calibration import short_note
from mneme.memory.content_prior import distinct_content_words
from mneme.memory.speakers import speaker_name, speaker_prefix
from mneme.records import replace

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

    from mneme.memory.ranking import Outcome
    from mneme.models.memory import MemoryCandidate, MemoryDocument, MemoryHit

# English words a statement uses to say a value changed (bench/first_hour.py's updates; docs/memory.md §4)
CHANGE_CUES = frozenset(
    {
        "moved", "changed", "switched", "slipped", "cancelled", "canceled", "instead", "anymore", "rescheduled",
        "postponed", "replaced", "updated", "quit", "sold", "new", "now",
    }
)  # fmt: skip
MIN_SHARED = 2  # one shared word ("Oh man, ..." in two turns) is no restatement: measured, -0.07 @5
OVERLAP = 0.5
_SAYS = re.compile(r"^\s*(The user|[A-Z][\w.'-]*(?: [A-Z][\w.'-]*){0,2}) says:\s")  # mneme.memory.extraction


def said_at(doc: MemoryDocument | MemoryHit) -> datetime:
    """When a memory's content was said: ``observed_at`` when known, else when it was stored (naive is UTC)."""
    moment = doc.observed_at or doc.created_at
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)


def _prefix(text: str) -> int:
    """Where a memory's content starts after its ``Kate:`` (a turn) or ``Kate says:`` (an extracted entry)."""
    found = _SAYS.match(text)
    return found.end() if found else speaker_prefix(text)


def _speaker(doc: MemoryDocument) -> str:
    says = _SAYS.match(doc.content)  # an extracted entry's "Kate says: ..." is Kate's
    return (says.group(1) if says else speaker_name(doc.content)).casefold()


def content_words(doc: MemoryDocument) -> frozenset[str]:
    """The distinct words of a memory after its ``Speaker:``, lower-cased, function words and letters aside."""
    return _words(doc.content)


@lru_cache(maxsize=4096)  # read again for each search the memory is a candidate of
def _words(content: str) -> frozenset[str]:
    return frozenset(w for w in distinct_content_words(content[_prefix(content) :]) if len(w) > 1)


class Said(NamedTuple):
    """What the rule reads of one memory, read once a search (see the module doc)."""

    who: tuple[str, str, str]  # namespace, owner, speaker
    at: datetime
    subject: str | None
    words: frozenset[str]
    note: bool  # a whole short note (calibration.short_note): what a person notes, not a line of talk or a long text


def said(doc: MemoryDocument) -> Said:
    subject = doc.metadata.get("subject")
    return Said(
        (doc.namespace, doc.owner_user_id, _speaker(doc)),
        said_at(doc),
        subject if isinstance(subject, str) and subject else None,
        content_words(doc),
        short_note(doc),
    )


def same_thing(earlier: Said, later: Said) -> bool:
    """Whether two memories state about the same thing (see the module doc), whoever said them when."""
    if earlier.subject and later.subject:
        return earlier.subject == later.subject
    return alike(len(earlier.words & later.words), max(len(earlier.words), len(later.words)))


def alike(shared: int, longest: int) -> bool:
    """Whether ``shared`` content words make two memories, the longer of ``longest`` words, about the same thing."""
    return shared >= MIN_SHARED and shared >= OVERLAP * longest


def restates(later: Said, earlier: Said, asked: frozenset[str] = frozenset()) -> bool:
    """Whether ``later`` is a later statement of what ``earlier`` said (or answers the question of words ``asked``
    anew), by the same speaker in the same memory."""
    if later.who != earlier.who or later.at <= earlier.at:
        return False
    return same_thing(earlier, later) or answers_anew(later, earlier, asked)


def asked_words(query: str) -> frozenset[str]:
    """A question's distinct content words, lower-cased, function words and letters aside."""
    return frozenset(w for w in distinct_content_words(query) if len(w) > 1) if query else frozenset()


def answers_anew(later: Said, earlier: Said, asked: frozenset[str]) -> bool:
    """Whether ``later`` says what changed in the answer ``earlier`` gave to a question of words ``asked``."""
    if not (says_a_change(later, asked) and earlier.note):
        return False
    covered = asked & earlier.words
    return bool(covered) and covered <= later.words


def says_a_change(later: Said, asked: frozenset[str]) -> bool:
    """Whether ``later`` may answer a question anew: a short note (talk and long texts say "now" and "new" in
    passing, the module doc) with a word that says a value changed, and a question to answer."""
    return bool(asked) and later.note and not later.words.isdisjoint(CHANGE_CUES)


def replaced_turns(doc: MemoryDocument) -> frozenset[str]:
    """The raw turns that stated what ``doc`` superseded (consolidation's mark on a superseding fact)."""
    mark = doc.metadata.get("consolidated")
    if not isinstance(mark, dict) or mark.get("strategy") != "supersedes":
        return frozenset()
    return frozenset(str(turn) for turn in mark.get("turns") or ())


def links(candidates: Sequence[MemoryCandidate]) -> dict[str, frozenset[str]]:
    """Candidate id → the raw turns it replaces: a superseding fact's, and those of the turns it came from (the
    turn that stated the new value replaces the turn that stated the old one)."""
    found: dict[str, frozenset[str]] = {}
    for candidate in candidates:
        doc = candidate.document
        if turns := replaced_turns(doc):
            for doc_id in (doc.id, *doc.derived_from):
                found[doc_id] = found.get(doc_id, frozenset()) | turns
    return found


class _Peers:
    """One speaker's candidates so far, best first, indexed by their words and subjects, so that a candidate is
    compared only with those it may restate (:meth:`related`) instead of with every one of them (a search's ~200
    candidates: ~5,000 pairs)."""

    def __init__(self) -> None:
        self.ids: list[str] = []
        self.sizes: list[int] = []
        self.by_word: dict[str, list[int]] = {}
        self.by_subject: dict[str, list[int]] = {}

    def add(self, doc_id: str, this: Said) -> None:
        at = len(self.ids)
        for word in this.words:
            self.by_word.setdefault(word, []).append(at)
        if this.subject:
            self.by_subject.setdefault(this.subject, []).append(at)
        self.ids.append(doc_id)
        self.sizes.append(len(this.words))

    def related(self, this: Said, asked: frozenset[str]) -> list[str]:
        """The peers ``this`` may restate, best first: a superset of those :func:`restates` accepts — the same
        subject, enough shared words (:func:`alike`), or, where ``this`` may answer ``asked`` anew, one."""
        shared = Counter(chain.from_iterable(self.by_word.get(word, ()) for word in this.words))  # counted in C
        size = len(this.words)
        if says_a_change(this, asked):
            found = set(shared)
        else:
            need, sizes = max(MIN_SHARED, OVERLAP * size), self.sizes  # alike(), unrolled: ~5,000 pairs a search
            found = {at for at, n in shared.items() if n >= need and n >= OVERLAP * sizes[at]}
        if this.subject:
            found.update(self.by_subject.get(this.subject, ()))
        return [self.ids[at] for at in sorted(found)]


def later_first(candidates: Sequence[MemoryCandidate], query: str = "") -> tuple[list[MemoryCandidate], dict[str, str]]:
    """The candidates, each restatement lifted just above the best candidate it restates (or answers ``query``
    anew); and which it was lifted above (lifted id → that candidate's id). The input's order is kept; ranking sorts
    by the new similarities."""
    ordered = sorted(candidates, key=lambda c: -c.similarity)
    score = {c.document.id: c.similarity for c in ordered}
    replaces = links(ordered)
    asked = asked_words(query)
    read = {c.document.id: said(c.document) for c in ordered}
    first = dict(score)  # the similarities before any lift
    peers: dict[tuple[str, str, str], _Peers] = {}  # the candidates of each speaker so far
    lifted: dict[str, str] = {}
    for later in ordered:
        doc_id, this = later.document.id, read[later.document.id]
        own = peers.setdefault(this.who, _Peers())
        higher = [i for i in own.related(this, asked) if first[i] > later.similarity and restates(this, read[i], asked)]
        above = higher + [i for i in replaces.get(doc_id, ()) if first.get(i, 0.0) > later.similarity]
        own.add(doc_id, this)
        if above:  # a lifted earlier candidate counts where it now stands
            best = max(above, key=score.__getitem__)
            score[doc_id], lifted[doc_id] = math.nextafter(score[best], math.inf), best
    result = [
        c.model_copy(update={"similarity": score[c.document.id]}) if c.document.id in lifted else c for c in candidates
    ]
    return result, lifted


def note(outcomes: dict[str, Outcome], restated: Mapping[str, str]) -> None:
    """Explain: each lifted candidate's outcome names the candidate it was lifted above."""
    for doc_id, above in restated.items():
        if doc_id in outcomes:
            outcomes[doc_id] = replace(outcomes[doc_id], restates=above)
