"""A search's first stage: the candidates of the vector leg, the keyword leg, or both fused."""

from __future__ import annotations

from typing import TYPE_CHECKING

from mneme.memory import calibration, hybrid, name_lift
from mneme.memory.fusion import fuse
from mneme.memory.keyword_scoring import MATCH_LIMIT, Bm25, score_documents
from mneme.memory.keywords import query_words
from mneme.memory.ranking import k_for
from mneme.models.memory import MemoryCandidate
from mneme.records import Record, field, replace

if TYPE_CHECKING:
    from collections.abc import Sequence
    from datetime import datetime

    from mneme.engine.memory_io.search_ports import MemoryPorts, Ranking
    from mneme.memory.access import ReadAccess
    from mneme.models.memory import MemoryDocument
    from mneme.ports.memory import MemoryView


def retrieve(
    ports: MemoryPorts,
    store: MemoryView,
    access: ReadAccess,
    query: str,
    ranking: Ranking,
    *,
    vector: Sequence[float] | None,
    now: datetime,
    notes: dict[str, object] | None = None,
) -> list[MemoryCandidate]:
    """The candidates of one search: the vector leg, the keyword leg, or both fused (each leg filtered
    inside its own query by the same granted namespaces and liveness; :mod:`mneme.memory.hybrid`).
    ``notes`` (explain) receives the name lift's ``names`` and ``vector_share`` when it applied, and the query's
    ``confidence`` (:func:`mneme.memory.hybrid.fuse`) with its best cosine before and after a long memory's lift,
    and how far its best note stands out (``vector_standout``) where that may vouch for the question."""
    patterns = list(access.allowed)
    depth = candidate_depth(ranking)
    by_vector: list[MemoryCandidate] = []
    if ranking.retrieval in ("vector", "hybrid"):
        query_vector = list(vector) if vector is not None else ports.embed_one(query)
        by_vector = store.search(query_vector, patterns, depth, now=now)
    if ranking.retrieval == "vector":
        return by_vector
    words = query_words(query)
    limit = MATCH_LIMIT if ranking.retrieval == "hybrid" else 4 * MATCH_LIMIT  # alone, the leg's own depth matters
    matches = store.keyword_matches(words, patterns, limit, now=now) if words else None
    if matches is None:
        return [] if ranking.retrieval == "keyword" else _vector_only(ports, by_vector)
    score_fusion = ranking.retrieval == "hybrid" and ranking.fusion != "rrf"
    named = name_lift.named(query, [c.document for c in by_vector] + matches.documents) if score_fusion else None
    # a named speaker's name counts where they speak, not where they are addressed
    bm25 = Bm25(words, matches, said_by=named.names if named is not None else ())
    turns = score_documents(bm25, matches)
    if ranking.retrieval == "keyword":
        return hybrid.keyword_only(turns, bm25, notes)
    if ranking.fusion == "rrf":
        keyword = [MemoryCandidate(document=d, similarity=s, keyword_score=s) for d, s in turns[: k_for(ranking.top_k)]]
        return fuse(by_vector[: k_for(ranking.top_k)], keyword, method="rrf")
    leg = _vector_leg(ports, store, patterns, query, bm25, named, by_vector, turns, depth, now=now, notes=notes)
    around = store.adjacent(hybrid.anchors(leg.candidates, turns), hybrid.SPAN, now=now)
    if notes is not None:  # the conversations already read: the lines shown with the hits come from them
        notes["around"] = around
    best = max(
        (calibration.evidence_cosine(ports.model_id, c.similarity, len(c.document.content)) for c in by_vector),
        default=0.0,
    )
    keyword_ranks = not name_lift.names_only(query, bm25, turns)
    standout = _standout(ports.model_id, query, by_vector)
    names = name_lift.name_stems(query)
    # one candidate's cosine and its share of the question's words but the people named (who, not what), together;
    # a generator: a model without the rule (calibration.JOINT) reads no candidate's words for it
    joint = calibration.joint_confidence(
        ports.model_id, ((c.similarity, bm25.coverage(bm25.counts_of(c.document), names)) for c in leg.candidates)
    )
    if notes is not None:
        notes["confidence"] = _vector_evidence(
            by_vector, best, standout, keyword_ranks=keyword_ranks, words_and_vector=leg.share * joint
        )
    confidence = leg.share * max(calibration.cosine_confidence(ports.model_id, best), standout or 0.0, joint)
    return hybrid.fuse(
        leg.candidates,
        turns,
        bm25,
        around,
        vector_confidence=confidence,
        vector_bonus=leg.bonus,
        keyword_ranks=keyword_ranks,
        model_id=ports.model_id,
        names=names,
        notes=notes,
    )


def _vector_evidence(
    by_vector: Sequence[MemoryCandidate],
    best: float,
    standout: float | None,
    *,
    keyword_ranks: bool,
    words_and_vector: float,
) -> dict[str, object]:
    """What explain shows of the vector evidence: the best cosine, as evidence, the stand-out where it may vouch,
    a candidate's cosine and words vouching together where they do, and ``keyword_ranks`` false when the keyword
    legs matched only the names asked about."""
    cosine = max((c.similarity for c in by_vector), default=0.0)
    noted: dict[str, object] = {"vector_cosine": round(cosine, 4), "vector_evidence": round(best, 4)}
    if standout is not None:
        noted["vector_standout"] = round(standout, 4)
    if words_and_vector > 0:
        noted["words_and_vector"] = round(words_and_vector, 4)
    return noted if keyword_ranks else {**noted, "keyword_ranks": False}


def _standout(model_id: str, query: str, by_vector: Sequence[MemoryCandidate]) -> float | None:
    """How far a question naming nobody stands out on its best candidate, a whole short note, from the other such
    notes among its candidates (:func:`mneme.memory.calibration.standout_confidence`): beside a transcript, its
    lines would let a note about the same kind of thing stand out of them; ``None`` where it cannot vouch."""
    if not by_vector or not calibration.short_note(by_vector[0].document) or name_lift.name_stems(query):
        return None
    others = [c.similarity for c in by_vector[1:] if calibration.short_note(c.document)]
    return calibration.standout_confidence(model_id, by_vector[0].similarity, others)


class VectorLeg(Record):
    """The vector leg the fusion ranks by: its candidates, a bonus per candidate id added to its cosine in the
    ranking, and the share of the question's vector confidence it keeps."""

    candidates: list[MemoryCandidate]
    bonus: dict[str, float] = field(default_factory=dict)
    share: float = 1.0


def _vector_leg(
    ports: MemoryPorts,
    store: MemoryView,
    patterns: list[str],
    query: str,
    bm25: Bm25,
    named: name_lift.Named | None,
    by_vector: list[MemoryCandidate],
    turns: Sequence[tuple[MemoryDocument, float]],
    depth: int,
    *,
    now: datetime,
    notes: dict[str, object] | None,
) -> VectorLeg:
    """The vector leg the fusion ranks by (:mod:`mneme.memory.name_lift`). A question naming speakers of the
    caller's memories is embedded again without the names and searched once more: those candidates are the
    leg, a turn one of the named speakers said ranked :data:`~mneme.memory.name_lift.SPEAKER_BONUS` higher
    (one more embedding and vector search, only for such a question), and the question keeps the share of its
    vector confidence the name-free search earns or the speaker's best turn standing out earns. A question about a
    person no readable memory mentions keeps none of it."""
    strangers = name_lift.unknown(query, bm25)
    leg = VectorLeg(by_vector)
    if named is not None:
        found = store.search(ports.embed_one(named.rest), patterns, depth, now=now)
        cosine = max((c.similarity for c in found), default=0.0)
        coverage = name_lift.name_free_coverage(bm25, [doc for doc, _ in turns], named.names)
        stands_out = name_lift.standout(by_vector, named.names)
        share = name_lift.vector_share(ports.model_id, cosine, coverage, stands_out)
        leg = VectorLeg(found, name_lift.speaker_bonus(found, named.names), share)
    if strangers:  # about someone no memory mentions: what the vector found is about someone else
        leg = replace(leg, share=0.0)
    if notes is not None and (named is not None or strangers):
        names = list(named.names) if named is not None else []
        unknown = {"unknown": list(strangers)} if strangers else {}
        notes["name_lift"] = {"names": names, **unknown, "vector_share": round(leg.share, 4)}
    return leg


def candidate_depth(ranking: Ranking) -> int:
    """Candidates fetched per leg: ``4 × top_k`` alone (the order of one leg needs no more) or for the old rank
    fusion, else a depth independent of ``top_k`` (the fusion's own candidates)."""
    if ranking.retrieval == "vector" or ranking.fusion == "rrf":
        return k_for(ranking.top_k)
    return max(hybrid.DEPTH, ranking.top_k)


def _vector_only(ports: MemoryPorts, by_vector: list[MemoryCandidate]) -> list[MemoryCandidate]:
    """A query without a searchable word: the vector leg, its cosines calibrated like the fused score's."""
    return [
        MemoryCandidate(
            document=c.document,
            similarity=calibration.cosine_confidence(ports.model_id, c.similarity),
            vector_similarity=c.similarity,
        )
        for c in by_vector
    ]
