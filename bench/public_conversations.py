"""Measure — memory recall on public data: LongMemEval's oracle set, as a package ships it (issue 30).

LongMemEval (Wu et al., 2024, MIT licence) is a published benchmark of long-term chat memory: 500 questions,
each over the chat sessions a simulated user had with an assistant, every turn that holds the answer labelled
``has_answer``. Its *oracle* file keeps, for each question, only the sessions that hold the evidence (1 to 6
sessions, 22 turns on average). The graphiti-core sdist (Apache-2.0) ships it as
``tests/evals/data/longmemeval_data/longmemeval_oracle.json``. This bench never downloads: get the file once
with

    .venv/bin/python -m pip download --no-deps --no-binary :all: -d ~/.cache/mneme/public graphiti-core==0.31.2

(or set ``MNEME_PUBLIC_DATA`` to the folder holding that sdist, or the json itself) and run

    .venv/bin/python bench/public_conversations.py [--setting own,pooled] [--modes default,keyword,vector,rrf]

Every turn becomes one memory entry ``"User: <text>"`` / ``"Assistant: <text>"``, observed at its session's
date; a question's evidence is its ``has_answer`` turns; its category is the data's ``question_type``. Two
settings: ``own`` asks each question over its own sessions only (the oracle as published: one user per
question), ``pooled`` puts the 940 distinct sessions of all questions in one user's memory (10,866 turns: the
other questions' sessions are the distractors). The 30 abstention questions (``_abs``: asking about something
never said; 21 of them have no labelled turn) are left out, and so would be any other without a labelled turn:
the data has no off-topic set comparable to ours, so off-topic silence is reported for
``bench/conversations.py`` only. The evaluation, the table and the
columns are ``bench/recall_eval.py``'s; ``keyword`` (BM25 alone) is the plain baseline.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tarfile
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import Skip, use_repo_paths
from conversations import Conversation, Question, Turn

PACKAGE = "graphiti-core"
VERSION = "0.31.2"
MEMBER = "tests/evals/data/longmemeval_data/longmemeval_oracle.json"
CACHE = Path.home() / ".cache" / "mneme" / "public"
HOW = (
    f"LongMemEval's oracle set is not here; get it once with `.venv/bin/python -m pip download --no-deps "
    f"--no-binary :all: -d {CACHE} {PACKAGE}=={VERSION}` (or set MNEME_PUBLIC_DATA to its sdist or json)"
)
SETTINGS = ("own", "pooled")


def locate(where: str | None = None) -> Path:
    """The sdist (or json) holding the oracle set; :class:`Skip` saying how to get it when there is none."""
    place = Path(where or os.environ.get("MNEME_PUBLIC_DATA") or CACHE).expanduser()
    if place.is_file():
        return place
    found = sorted(place.glob("graphiti_core-*.tar.gz")) if place.is_dir() else []
    if not found:
        raise Skip(HOW)
    return found[-1]


def read(path: Path) -> list[dict[str, Any]]:
    """The oracle's 500 records, read from the json or straight out of the sdist (nothing is unpacked)."""
    if path.suffix == ".json":
        return json.loads(path.read_text())  # type: ignore[no-any-return]
    with tarfile.open(path) as archive:
        for member in archive.getmembers():
            if member.name.endswith(MEMBER):
                extracted = archive.extractfile(member)
                if extracted is not None:
                    return json.loads(extracted.read())  # type: ignore[no-any-return]
    raise Skip(f"{path} holds no {MEMBER}; {HOW}")


def _when(text: str) -> datetime:
    """LongMemEval's dates: ``2023/04/10 (Mon) 17:50``."""
    day, _, clock = text.partition(" (")
    return datetime.strptime(f"{day} {clock.split(') ')[1]}", "%Y/%m/%d %H:%M").replace(tzinfo=UTC)


def _sessions(record: dict[str, Any], prefix: str) -> tuple[list[Turn], list[str]]:
    """A record's turns (ids ``<prefix><session id>:<n>``) and the ids of those labelled as the answer."""
    turns, evidence = [], []
    sessions = zip(record["haystack_session_ids"], record["haystack_sessions"], record["haystack_dates"], strict=True)
    for index, (session_id, session, date) in enumerate(sessions):
        at = _when(date)
        for n, turn in enumerate(session):
            turn_id = f"{prefix}{session_id}:{n}"
            speaker = "User" if turn["role"] == "user" else "Assistant"
            turns.append(Turn(turn_id=turn_id, session=index, at=at, speaker=speaker, text=turn["content"]))
            if turn.get("has_answer"):
                evidence.append(turn_id)
    return turns, evidence


def _asked(record: dict[str, Any]) -> bool:
    return not record["question_id"].endswith("_abs")


def convert(records: list[dict[str, Any]], setting: str = "own") -> list[Conversation]:
    """The oracle set in ``bench/conversations.py``'s shape: one user per question (``own``) or one for all."""
    if setting == "own":
        data = []
        for record in filter(_asked, records):
            qid = record["question_id"]
            turns, evidence = _sessions(record, f"{qid}/")
            if evidence:
                question = Question(qid, record["question_type"], record["question"], evidence)
                data.append(Conversation(user=f"lme-{qid}", turns=turns, questions=[question]))
        return data
    if setting != "pooled":
        raise ValueError(f"unknown setting {setting!r}: one of {', '.join(SETTINGS)}")
    pooled: dict[str, Turn] = {}
    questions = []
    for record in records:
        turns, evidence = _sessions(record, "")
        for turn in turns:
            pooled.setdefault(turn.turn_id, turn)
        if _asked(record) and evidence:
            questions.append(Question(record["question_id"], record["question_type"], record["question"], evidence))
    ordered = sorted(pooled.values(), key=lambda turn: (turn.at, turn.turn_id))
    return [Conversation(user="lme-pooled", turns=ordered, questions=questions)]


def measure(
    settings: str = "own,pooled", modes: str = "default,keyword,vector,rrf", where: str | None = None
) -> dict[str, Any]:
    """Print ``recall_eval``'s table for each setting; the figures by setting and mode."""
    path = locate(where)
    records = read(path)
    use_repo_paths()
    import recall_eval

    print(f"LongMemEval oracle ({len(records)} records) from {path.name}")
    figures = {}
    for setting in settings.split(","):
        data = convert(records, setting)
        asked = sum(len(conv.questions) for conv in data)
        print(f"\n--- setting {setting}: {asked} questions with labelled evidence ---")
        figures[setting] = recall_eval.report(data, modes)
    return figures


def bench(full: bool) -> dict[str, Any]:
    """``make bench``: both settings, every mode; skipped (with how to get the data) when it is absent."""
    return measure()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--setting", "--settings", default="own,pooled")
    parser.add_argument("--modes", "--mode", default="default,keyword,vector,rrf")
    parser.add_argument("--data", default=None, help="the sdist or json (default: $MNEME_PUBLIC_DATA or the cache)")
    args = parser.parse_args()
    try:
        measure(args.setting, args.modes, args.data)
    except Skip as skip:
        print(f"skipped: {skip}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
