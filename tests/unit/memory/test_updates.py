"""Knowledge updates (issue 30): a later statement of the same thing is lifted just above the earlier one."""

from __future__ import annotations

import math
from datetime import UTC, datetime, timedelta
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from mneme.memory.ranking import Outcome, rank
from mneme.memory.updates import later_first, note, said, same_thing
from mneme.models.memory import MemoryCandidate, MemoryDocument

ALICE = "vector.user.alice.memory"
JAN = datetime(2024, 1, 10, tzinfo=UTC)
JUN = datetime(2024, 6, 10, tzinfo=UTC)
OLD = "Kate: My sister works at the bakery."
NEW = "Kate: My sister works at the hospital now."


def doc(doc_id: str, content: str, *, said: datetime | None, namespace: str = ALICE, **extra: Any) -> MemoryDocument:
    return MemoryDocument(
        id=doc_id,
        namespace=namespace,
        owner_user_id="alice",
        content=content,
        content_hash=doc_id,
        created_at=datetime(2024, 7, 1, tzinfo=UTC),
        updated_at=datetime(2024, 7, 1, tzinfo=UTC),
        observed_at=said,
        **extra,
    )


def cand(document: MemoryDocument, similarity: float) -> MemoryCandidate:
    return MemoryCandidate(document=document, similarity=similarity)


def order(candidates: list[MemoryCandidate]) -> list[str]:
    lifted, _ = later_first(candidates)
    return [c.document.id for c in sorted(lifted, key=lambda c: -c.similarity)]


def test_a_later_restatement_moves_just_above_the_earlier() -> None:
    found = [cand(doc("old", OLD, said=JAN), 0.8), cand(doc("x", "Kate: Hey!", said=JAN), 0.6)]
    found.append(cand(doc("new", NEW, said=JUN), 0.5))
    lifted, restated = later_first(found)
    assert order(found) == ["new", "old", "x"]
    assert restated == {"new": "old"}
    assert 0.8 < lifted[2].similarity < 0.8 + 1e-9  # just above: nothing else moves


def test_an_earlier_statement_ranked_below_a_later_one_stays_below() -> None:
    found = [cand(doc("new", NEW, said=JUN), 0.8), cand(doc("old", OLD, said=JAN), 0.5)]
    assert later_first(found) == (found, {})


def test_an_unrelated_later_hit_does_not_move() -> None:
    found = [cand(doc("old", OLD, said=JAN), 0.8), cand(doc("pet", "Kate: We adopted a kitten.", said=JUN), 0.5)]
    assert later_first(found) == (found, {})


def test_one_shared_word_is_no_restatement() -> None:
    assert not same_thing(said(doc("a", "Kate: My sister lives in Porto.", said=JAN)), said(doc("b", NEW, said=JUN)))


def test_two_shared_words_of_a_long_statement_are_no_restatement() -> None:
    long = "Kate: My sister works at the bakery, she bakes bread and cakes every morning before dawn."
    assert not same_thing(said(doc("a", long, said=JAN)), said(doc("b", NEW, said=JUN)))


def test_another_speakers_statement_does_not_move() -> None:
    found = [cand(doc("old", OLD, said=JAN), 0.8)]
    found.append(cand(doc("tom", NEW.replace("Kate:", "Tom:"), said=JUN), 0.5))
    assert later_first(found) == (found, {})


def test_a_statement_in_another_namespace_does_not_move() -> None:
    found = [cand(doc("old", OLD, said=JAN), 0.8), cand(doc("new", NEW, said=JUN, namespace="global.team"), 0.5)]
    assert later_first(found) == (found, {})


def test_the_same_moment_is_no_update() -> None:
    found = [cand(doc("old", OLD, said=JAN), 0.8), cand(doc("new", NEW, said=JAN), 0.5)]
    assert later_first(found) == (found, {})


def test_equal_similarities_are_left_to_the_ranking() -> None:
    found = [cand(doc("old", OLD, said=JAN), 0.5), cand(doc("new", NEW, said=JUN), 0.5)]
    assert later_first(found) == (found, {})


def test_without_observed_at_the_storing_time_counts() -> None:
    old = doc("old", OLD, said=None).model_copy(update={"created_at": JAN})
    found = [cand(old, 0.8), cand(doc("new", NEW, said=None), 0.5)]  # stored 2024-07-01
    assert order(found) == ["new", "old"]


def test_naive_timestamps_are_utc() -> None:
    found = [cand(doc("old", OLD, said=JAN.replace(tzinfo=None)), 0.8), cand(doc("new", NEW, said=JUN), 0.5)]
    assert order(found) == ["new", "old"]


def test_the_same_extraction_subject_is_the_same_thing_whatever_the_words() -> None:
    old = doc("old", "Kate says: I drive a Volvo.", said=JAN, metadata={"subject": "kate: i drive"})
    new = doc("new", "Kate says: Now I have a bike.", said=JUN, metadata={"subject": "kate: i drive"})
    assert order([cand(old, 0.8), cand(new, 0.5)]) == ["new", "old"]


def test_another_extraction_subject_is_another_thing_whatever_the_words() -> None:
    old = doc("old", OLD, said=JAN, metadata={"subject": "kate: my sister is"})
    new = doc("new", NEW, said=JUN, metadata={"subject": "kate: my sister works at"})
    assert later_first([cand(old, 0.8), cand(new, 0.5)])[1] == {}


def test_a_restatement_of_a_lifted_restatement_goes_above_both() -> None:
    first = cand(doc("a", OLD, said=JAN), 0.9)
    second = cand(doc("b", NEW, said=JUN), 0.5)
    third = cand(doc("c", "Kate: My sister works nights at the hospital now.", said=JUN + timedelta(days=30)), 0.3)
    assert order([first, second, third]) == ["c", "b", "a"]


def test_the_ranking_keeps_the_lifted_order() -> None:
    found = [cand(doc("old", OLD, said=JAN), 0.8), cand(doc("new", NEW, said=JUN), 0.5)]
    lifted, _ = later_first(found)
    hits = rank(lifted, now=JUN, top_k=5, min_score=0.0, relative_cutoff=0.0, recency_decay=0.0)
    assert [hit.id for hit in hits] == ["new", "old"]


def test_explain_names_the_candidate_a_restatement_was_lifted_above() -> None:
    outcomes = {"new": Outcome(reason="hit", namespace=ALICE), "old": Outcome(reason="hit", namespace=ALICE)}
    note(outcomes, {"new": "old"})
    assert (outcomes["new"].restates, outcomes["old"].restates) == ("old", None)


def _superseding(doc_id: str, content: str, turns: list[str], derived_from: list[str]) -> MemoryDocument:
    mark = {"rule": "consolidation", "strategy": "supersedes", "entries": ["x-old"], "turns": turns}
    return doc(doc_id, content, said=JUN, metadata={"consolidated": mark}, derived_from=derived_from)


def test_a_superseding_fact_goes_above_the_raw_turn_that_stated_the_old_value() -> None:
    turn = cand(doc("turn-old", "Kate: Porto has been home for years, I love it.", said=JAN), 0.8)
    fact = cand(_superseding("fact-new", "Kate says: I live in Lisbon.", ["turn-old"], ["turn-new"]), 0.4)
    assert order([turn, fact]) == ["fact-new", "turn-old"]


def test_the_turn_a_superseding_fact_came_from_goes_above_the_old_turn_too() -> None:
    old = cand(doc("turn-old", "Kate: Porto has been home for years, I love it.", said=JAN), 0.8)
    fact = cand(_superseding("fact-new", "Kate says: I live in Lisbon.", ["turn-old"], ["turn-new"]), 0.4)
    new = cand(doc("turn-new", "Kate: We moved! Lisbon now.", said=JUN), 0.3)
    _, restated = later_first([old, fact, new])
    assert restated == {"fact-new": "turn-old", "turn-new": "turn-old"}
    assert order([old, fact, new])[-1] == "turn-old"


def test_a_raw_turn_the_fact_did_not_replace_does_not_move_below_it() -> None:
    other = cand(doc("turn-other", "Kate: Porto has been home for years, I love it.", said=JAN), 0.8)
    fact = cand(_superseding("fact-new", "Kate says: I live in Lisbon.", ["turn-old"], ["turn-new"]), 0.4)
    assert later_first([other, fact]) == ([other, fact], {})


def test_a_fact_that_superseded_nothing_replaces_no_turn() -> None:
    turn = cand(doc("turn-old", "Kate: Porto has been home for years, I love it.", said=JAN), 0.8)
    mark = {"rule": "consolidation", "strategy": "near_duplicate", "entries": ["turn-old"]}
    fact = cand(doc("fact", "Kate says: I live in Lisbon.", said=JUN, metadata={"consolidated": mark}), 0.4)
    assert later_first([turn, fact]) == ([turn, fact], {})


def test_an_extracted_entry_is_its_speakers() -> None:
    found = [cand(doc("old", OLD, said=JAN), 0.8), cand(doc("new", NEW.replace("Kate:", "Kate says:"), said=JUN), 0.5)]
    assert order(found) == ["new", "old"]


def test_the_users_extracted_entry_is_not_kates() -> None:
    found = [cand(doc("old", OLD, said=JAN), 0.8)]
    found.append(cand(doc("new", NEW.replace("Kate:", "The user says:"), said=JUN), 0.5))
    assert later_first(found) == (found, {})


def test_a_memorys_words_are_read_once_across_searches(content_reads) -> None:
    # its words are read for each search it is a candidate of: once per content, then from the cache
    from mneme.memory import updates

    reads = content_reads(updates)
    old = doc("a", "Kate: My sister works at the bakery downtown.", said=JAN)
    new = doc("b", "Kate: My sister works at the hospital downtown now.", said=JUN)
    later_first([cand(old, 0.9), cand(new, 0.8)])
    later_first([cand(old, 0.7), cand(new, 0.6)])
    assert len(reads) == 2
    edited = doc("b", "Kate: My sister now works at the hospital.", said=JUN + timedelta(days=1))
    later_first([cand(old, 0.9), cand(edited, 0.8)])
    assert len(reads) == 3  # other content: read


def test_a_stamped_restatement_is_the_same_speaker_s() -> None:
    found = [cand(doc("old", f"[10 Jan 2024] {OLD}", said=JAN), 0.8)]
    found.append(cand(doc("new", f"[10 Jun 2024] {NEW}", said=JUN), 0.5))
    assert order(found) == ["new", "old"]


def test_a_stamped_line_of_another_speaker_does_not_move() -> None:
    found = [cand(doc("old", f"[10 Jan 2024] {OLD}", said=JAN), 0.8)]
    found.append(cand(doc("tom", f"[10 Jun 2024] {NEW.replace('Kate:', 'Tom:')}", said=JUN), 0.5))
    assert later_first(found) == (found, {})


STANDUP = "What time is standup?"
STANDUP_OLD = "Our daily standup is at 9:30am in the Juniper room."
STANDUP_NEW = "We moved the standup to 10am, and it's on Zoom now."


def asked(query: str, *found: MemoryCandidate) -> list[str]:
    lifted, _ = later_first(list(found), query)
    return [c.document.id for c in sorted(lifted, key=lambda c: -c.similarity)]


def test_a_later_answer_that_says_it_changed_goes_above_the_earlier_answer() -> None:
    old, new = cand(doc("old", STANDUP_OLD, said=JAN), 0.8), cand(doc("new", STANDUP_NEW, said=JUN), 0.5)
    assert asked(STANDUP, old, new) == ["new", "old"]
    assert later_first([old, new], STANDUP)[1] == {"new": "old"}


def test_the_same_pair_without_the_question_is_no_update() -> None:
    # the two share one content word (standup): only the question says they answer the same thing
    old, new = cand(doc("old", STANDUP_OLD, said=JAN), 0.8), cand(doc("new", STANDUP_NEW, said=JUN), 0.5)
    assert asked("", old, new) == ["old", "new"]


def test_a_later_answer_that_says_nothing_changed_stays_below() -> None:
    old = cand(doc("old", STANDUP_OLD, said=JAN), 0.8)
    new = cand(doc("new", "The standup ran long today, 40 minutes.", said=JUN), 0.5)
    assert asked(STANDUP, old, new) == ["old", "new"]


def test_a_change_to_something_else_the_question_does_not_ask_about_stays_below() -> None:
    old = cand(doc("old", "The Q3 launch is planned for September 15.", said=JAN), 0.8)
    new = cand(doc("new", "We moved the offsite to October.", said=JUN), 0.5)
    assert asked("When is the Q3 launch?", old, new) == ["old", "new"]


def test_a_later_answer_that_covers_fewer_of_the_questions_words_stays_below() -> None:
    old = cand(doc("old", "The Q3 launch is planned for September 15.", said=JAN), 0.8)
    new = cand(doc("new", "The launch party moved to the rooftop.", said=JUN), 0.5)
    assert asked("When is the Q3 launch?", old, new) == ["old", "new"]


def test_an_earlier_changed_answer_stays_below_a_later_plain_one() -> None:
    old = cand(doc("old", STANDUP_OLD, said=JUN), 0.8)
    new = cand(doc("new", STANDUP_NEW, said=JAN), 0.5)
    assert asked(STANDUP, old, new) == ["old", "new"]


def test_another_speakers_changed_answer_stays_below() -> None:
    old = cand(doc("old", f"Lena: {STANDUP_OLD}", said=JAN), 0.8)
    new = cand(doc("new", f"Omar: {STANDUP_NEW}", said=JUN), 0.5)
    assert asked(STANDUP, old, new) == ["old", "new"]


def test_a_changed_statement_is_no_update_of_one_that_shares_none_of_the_questions_words() -> None:
    old = cand(doc("old", "Our weekly sync is at 9:30am.", said=JAN), 0.8)
    new = cand(doc("new", "I moved my yoga class to 10am.", said=JUN), 0.5)
    assert asked(STANDUP, old, new) == ["old", "new"]


def test_a_speakers_later_changed_line_stays_below_their_earlier_line() -> None:
    # in a conversation the words that say a change are small talk: only notes answer a question anew
    old = cand(doc("old", f"Lena: {STANDUP_OLD}", said=JAN), 0.8)
    new = cand(doc("new", f"Lena: {STANDUP_NEW}", said=JUN), 0.5)
    assert asked(STANDUP, old, new) == ["old", "new"]


def test_a_long_texts_later_changed_passage_stays_below() -> None:
    # a long text says "now" and "new" in passing: only whole short notes answer a question anew
    filler = " We talked about many other things that week, none of them about meetings or rooms at all." * 5
    old = cand(doc("old", STANDUP_OLD, said=JAN), 0.8)
    new = cand(doc("new", STANDUP_NEW + filler, said=JUN), 0.5)
    assert asked(STANDUP, old, new) == ["old", "new"]


def _every_pair(candidates: list[MemoryCandidate], query: str) -> dict[str, str]:
    """What later_first lifts, found by comparing each candidate with every higher one of its speaker."""
    from mneme.memory.updates import asked_words, links, restates

    ordered = sorted(candidates, key=lambda c: -c.similarity)
    score = {c.document.id: c.similarity for c in ordered}
    first, replaces, asked = dict(score), links(ordered), asked_words(query)
    read = {c.document.id: said(c.document) for c in ordered}
    seen: list[str] = []
    lifted: dict[str, str] = {}
    for later in ordered:
        doc_id, this = later.document.id, read[later.document.id]
        higher = [i for i in seen if first[i] > later.similarity and restates(this, read[i], asked)]
        above = higher + [i for i in replaces.get(doc_id, ()) if first.get(i, 0.0) > later.similarity]
        seen.append(doc_id)
        if above:
            best = max(above, key=score.__getitem__)
            score[doc_id], lifted[doc_id] = math.nextafter(score[best], math.inf), best
    return lifted


_TEXTS = [
    OLD, NEW, STANDUP_OLD, STANDUP_NEW, "Kate: My sister works nights at the hospital now.",
    "Kate: We adopted a kitten.",
    "Tom: My sister works at the bakery.", "The Q3 launch is planned for September 15.", "Kate: Hey!",
    "The Q3 launch slipped to October 6.", "Our weekly sync is at 9:30am.", "I moved my yoga class to 10am.",
]  # fmt: skip


@given(
    st.lists(
        st.tuples(
            st.sampled_from(_TEXTS),
            st.integers(0, 9),
            st.sampled_from([0.2, 0.5, 0.5, 0.8, 0.9]),
            st.sampled_from([None, "kate: my sister works at", "q3 launch"]),
        ),
        max_size=12,
    ),
    st.sampled_from(["", STANDUP, "When is the Q3 launch?", "Where does Kate's sister work?"]),
)
def test_the_lift_compares_a_candidate_with_the_peers_it_shares_a_word_or_subject_with_and_misses_none(
    drawn: list[tuple[str, int, float, str | None]], query: str
) -> None:
    found = [
        cand(doc(f"m{n}", text, said=JAN + timedelta(days=day), metadata={"subject": subject} if subject else {}), sim)
        for n, (text, day, sim, subject) in enumerate(drawn)
    ]
    assert later_first(found, query)[1] == _every_pair(found, query)
