"""Extraction of atomic facts, preferences and a session summary from a run (issue 13.2) — the pure part.

* :func:`extraction_request` — the Converse request the extraction model gets: a system block starting with
  :data:`EXTRACTION_MARKER`, the strategies asked for, the run's input and answer; JSON only.
* :class:`Extracted` — the JSON the model must answer, validated by pydantic; :func:`parse_extraction`
  turns malformed output into ``(None, warning)``, never an exception.
* :func:`offline_extract` — the deterministic extractor of the offline model: every clause (sentences, and
  ", I …" inside one) of the form "I like/love/prefer/hate …" is a preference; "I live/work/drive … (in/at/
  as)", "I am <word>", "I have", "My X is (called)" a fact whose subject is the phrase before the value
  without "now/also/still" ("i live in", "i am learning", "my sister is called"), so a later "I now live in
  Oslo" supersedes "I live in Porto" (same subject, new value).
"""

import json
import re
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from mneme.memory.speakers import said

EXTRACTION_MARKER = "MNEME MEMORY EXTRACTION"
Strategy = Literal["facts", "preferences", "summary"]
STRATEGIES_LINE = "STRATEGIES: "


def requested_strategies(system: str) -> list[str]:
    """The strategies named in an extraction request's system text."""
    line = next((ln for ln in system.splitlines() if ln.startswith(STRATEGIES_LINE)), "")
    named = [name.strip() for name in line.removeprefix(STRATEGIES_LINE).split(",")]
    return [name for name in ("facts", "preferences", "summary") if name in named]


class ExtractedItem(BaseModel, defer_build=True):
    model_config = ConfigDict(extra="ignore")

    kind: Literal["fact", "preference", "summary"]
    text: str = Field(min_length=1, max_length=2_000)
    subject: str | None = Field(None, max_length=200)  # what the fact is about: same subject = an update


class Extracted(BaseModel, defer_build=True):
    model_config = ConfigDict(extra="ignore")

    items: list[ExtractedItem] = Field(default_factory=list, max_length=50)


def extraction_request(model_id: str, strategies: list[str], user_input: str, answer: str) -> dict[str, Any]:
    system = (
        f"{EXTRACTION_MARKER}\n{STRATEGIES_LINE}{', '.join(strategies)}\n"
        "Extract long-term memory of those kinds from the conversation turn below. Answer only JSON:"
        ' {"items": [{"kind": "fact" | "preference" | "summary", "text": "<one atomic statement about the'
        ' user>", "subject": "<what it is about, e.g. \'user lives in\'>"}]}. Use the same subject for a'
        ' statement that replaces an earlier value. When the turn names its speaker ("Kate: ..."), each'
        ' statement names who said it ("Kate lives in Oslo"). No items when nothing is worth remembering.'
    )
    turn = f"USER:\n{user_input}\n\nASSISTANT:\n{answer}"
    return {
        "modelId": model_id,
        "system": [{"text": system}],
        "messages": [{"role": "user", "content": [{"text": turn}]}],
        "inferenceConfig": {"maxTokens": 1024, "temperature": 0},
    }


def parse_extraction(text: str) -> tuple[Extracted | None, str | None]:
    """The validated items, or ``(None, warning)`` for output that is not the JSON asked for."""
    start, end = text.find("{"), text.rfind("}")
    try:
        data = json.loads(text[start : end + 1]) if start >= 0 < end else None
        if data is None:
            raise ValueError("no JSON object")
        return Extracted.model_validate(data), None
    except (ValueError, ValidationError) as exc:
        return None, f"the extraction model's answer is not valid extraction JSON: {str(exc)[:200]}"


_PREFERENCE = re.compile(r"^(?:i\s+(?:really\s+|much\s+)?(?:like|love|prefer|hate|enjoy|would rather))\b", re.I)
_FACT = re.compile(
    r"^(?P<subject>i\s+(?:(?:now|also|still)\s+)?(?:live|work|drive|grew up|study|use|own)(?:\s+(?:in|at|as|on))?"
    r"|i\s+am\s+\w+|i\s+have"
    r"|my\s+[\w' ]{1,40}?\s+(?:is|are)(?:\s+called|\s+named)?)\s+(?P<value>.+)$",
    re.I,
)
_CLAUSE = re.compile(r"(?<=[.!?;:])\s+|,\s+(?=i\s)", re.I)
_ADVERB = re.compile(r"\s+(?:now|also|still)\b", re.I)


def offline_extract(user_input: str, strategies: list[str]) -> Extracted:
    """The offline model's deterministic extractor (see the module docstring). A turn written as ``Speaker:
    text`` is read after its speaker, and its items say who said it ("Kate says: I live in Oslo.")."""
    items: list[ExtractedItem] = []
    speaker = said(user_input)
    who = f"{speaker.name[0].upper()}{speaker.name[1:]} says" if speaker else "The user says"
    text = user_input[speaker.body :] if speaker else user_input
    for sentence in _CLAUSE.split(text.strip()):
        clean = sentence.strip().rstrip(".!?;:").strip()
        if not clean:
            continue
        if "preferences" in strategies and _PREFERENCE.match(clean):
            items.append(ExtractedItem(kind="preference", text=f"{who}: {clean}.", subject=None))
        elif "facts" in strategies and (found := _FACT.match(clean)):
            subject = " ".join(_ADVERB.sub("", found["subject"].lower()).split())
            if speaker:  # Kate's "I live in" is not Tom's: the subject names the speaker
                subject = f"{speaker.name.lower()}: {subject}"
            items.append(ExtractedItem(kind="fact", text=f"{who}: {clean}.", subject=subject))
    if "summary" in strategies and user_input.strip():
        items.append(ExtractedItem(kind="summary", text=f"Session summary: {user_input.strip()[:500]}"))
    return Extracted(items=items)
