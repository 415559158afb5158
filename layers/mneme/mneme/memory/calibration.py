"""How much a question's cosine to a memory says, per embedding model (issue 30.2): the calibrated scale of the
fusion's confidence, a long passage's lift as evidence, a note standing out of the caller's other candidates, and a
memory's cosine and words vouching together.
Read by :mod:`mneme.memory.hybrid` (the fused relevance), :mod:`mneme.memory.name_lift` and the search's first
stage (``mneme.engine.memory_io.retrieval``)."""

from __future__ import annotations

import math
from statistics import median
from typing import TYPE_CHECKING

from mneme.memory.content_prior import CHAT_LINE_CHARS
from mneme.memory.talk import is_note

if TYPE_CHECKING:
    from collections.abc import Iterable, Sequence

    from mneme.models.memory import MemoryDocument

#: embedding model → (low, high): cosines at or below ``low`` say nothing, at or above ``high`` a clear match
COSINE_SCALE: dict[str, tuple[float, float]] = {
    "all-MiniLM-L6-v2": (0.35, 0.75),  # bench/recall_eval.py: answerable best 0.53-0.69, names lift off-topic
    "amazon.titan-embed-text-v2:0": (0.15, 0.5),  # not measured offline: Titan V2 cosines of related text run higher
    "hashing": (0.1, 0.6),  # the tests' fake embedder
}
_DEFAULT_SCALE = (0.2, 0.6)
#: embedding model → (lift, chars): a passage's cosine to a question falls as the passage grows (its vector is the
#: mean of more word pieces, the sentence that answers one of many), so as the question's evidence (never in the
#: order) a passage longer than ``chars`` counts ``lift`` more per doubling of its length: MiniLM's longest entry
#: (a 1,000-character chunk) +0.13. LongMemEval, each question over its own sessions (turns of 1,205 characters
#: on average): @10 with the default floors 0.616 -> 0.700, auto-inject 0.517 -> 0.580, two other users' questions
#: silent 0.995 -> 0.979; bench/recall_eval.py (turns under 300 characters) and LoCoMo unchanged. Not measured for
#: Titan (whose chunks run to 8,000 characters): no lift
LENGTH_LIFT: dict[str, tuple[float, int]] = {"all-MiniLM-L6-v2": (0.075, 300)}
#: embedding model → (cosine, low, high): a note the question's best cosine points to — at least ``cosine``, ``low``
#: to ``high`` above the median of its other candidates' — vouches as far for a question naming nobody
#: (:func:`standout_confidence`). "What do I do for a living?" over seven notes of a user's own: 0.46 to "I work as
#: a nurse at the city hospital.", the others -0.07-0.05; a MiniLM paraphrase runs 0.35-0.5, under the scale's
#: clear match. The least is the scale's ``low``: a cosine it says nothing of does not say something by standing out
#: ("Anything about long-polls today?" at 0.34 to "The quarterly briefing happens every Thursday." stood out of the
#: user's other notes at 0.3; the own notes, alone and beside transcripts, measured the same at 0.3 and 0.35). Not
#: measured for Titan: no stand-out
STANDOUT: dict[str, tuple[float, float, float]] = {"all-MiniLM-L6-v2": (0.35, 0.15, 0.45)}

#: embedding model → (cosine from, to, coverage from, to): one memory both near the question and holding part of its
#: words vouches for it, though neither reaches its own bar (the cosine under the scale's ``low``, the words under
#: ``hybrid.COVERAGE_FLOOR``): "What's the dog's name?" at 0.33 to "We have an old beagle named Chorizo …", which
#: holds 0.41 of its words, recalled nothing (:func:`joint_confidence`, ``bench/first_hour.py``). Not measured for
#: Titan: none
JOINT: dict[str, tuple[float, float, float, float]] = {"all-MiniLM-L6-v2": (0.2, 0.35, 0.2, 0.5)}


def cosine_scale(model_id: str) -> tuple[float, float]:
    """The embedding model's :data:`COSINE_SCALE`."""
    if model_id.startswith("amazon.titan-embed-text-v2"):
        return COSINE_SCALE["amazon.titan-embed-text-v2:0"]
    return COSINE_SCALE.get(model_id, _DEFAULT_SCALE)


def ramp(value: float, low: float, high: float) -> float:
    """0 at or below ``low``, 1 at or above ``high``, linear between."""
    return min(1.0, max(0.0, (value - low) / (high - low)))


def cosine_confidence(model_id: str, cosine: float) -> float:
    return ramp(cosine, *cosine_scale(model_id))


def short_note(doc: MemoryDocument) -> bool:
    """Whether ``doc`` is a note (``talk.is_note``) no longer than a line of chat (:data:`CHAT_LINE_CHARS`) and
    whole: what a person notes of themselves, not a part of a long text (whose part that stands out may be about
    anything)."""
    return doc.chunk_index is None and len(doc.content) <= CHAT_LINE_CHARS and is_note(doc)


def standout_confidence(model_id: str, best: float, others: Sequence[float]) -> float:
    """How far the question's cosine to its best candidate, ``best``, stands above the median of its cosines to the
    ``others`` (0 with none), ramped over the model's :data:`STANDOUT` (0 under its least cosine, or for a model not
    in it). The candidates are the caller's own (the vector leg's, filtered by the granted namespaces): no other
    user's memories move it."""
    if model_id not in STANDOUT:
        return 0.0
    least, low, high = STANDOUT[model_id]
    if best < least:
        return 0.0
    return ramp(best - (median(others) if others else 0.0), low, high)


def evidence_cosine(model_id: str, cosine: float, chars: int) -> float:
    """``cosine`` as evidence that a passage of ``chars`` characters answers the question (:data:`LENGTH_LIFT`)."""
    lift, start = LENGTH_LIFT.get(model_id, (0.0, 1))
    if chars <= start:
        return cosine
    return cosine + lift * math.log2(chars / start)


def joint_confidence(model_id: str, evidence: Iterable[tuple[float, float]]) -> float:
    """The most one memory vouches for a question by its cosine and the share of the question's words it holds
    together (``evidence``: a (cosine, coverage) pair per vector candidate), ramped over the model's :data:`JOINT`
    and multiplied; 0 for a model not in it."""
    if model_id not in JOINT:
        return 0.0
    cosine_from, cosine_to, coverage_from, coverage_to = JOINT[model_id]
    return max(
        (
            ramp(cosine, cosine_from, cosine_to) * ramp(coverage, coverage_from, coverage_to)
            for cosine, coverage in evidence
        ),
        default=0.0,
    )
