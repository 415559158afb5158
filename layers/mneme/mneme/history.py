"""The rolling summary of a chat's history (SPEC §4).

A chat stores its messages, a summary and ``summary_covers``: how many of the oldest messages the summary
replaces. :func:`compress` turns the stored history into what the model sees:

* When the uncovered part (messages after ``covers``) exceeds the token trigger (characters ÷ 4) or the
  message trigger, everything before the **last user message** of that part is summarized by the
  :class:`~mneme.ports.models.Summarizer` together with the previous summary. The new summary is capped at
  8,000 characters and covers every message before the cut.
* The model then sees a user message starting with :data:`SUMMARY_PREFIX` plus the summary, a short
  assistant acknowledgement, the re-attached skills (system blocks, :attr:`CompressedHistory.
  reattached_skill_blocks`; the assembler puts them into ``system`` after the skill catalog, since
  Converse takes system blocks only there) and the retained tail. A stored summary is shown the same way
  even when no new compression is due, so the prefix stays byte-identical for prompt caching.
* **Tool pairs are never split**: if the cut would put a tool call on one side and its result on the
  other, the cut moves *earlier*, to just before the first message of that pair (repeated until no pair
  straddles it), so the pair stays in the retained tail. If the cut reaches the covered part, nothing is
  summarized this time.
* A failing summarizer (any exception, or an empty summary) never fails the run: the history passes
  through unchanged — the stored summary (if any) plus every uncovered message — with a ``warning``
  for the engine's ``warning`` event.

Pure: the only call out is the injected summarizer.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence

from mneme.models import ChatMessage, ReasoningMessage, Skill, TextMessage, ToolCallMessage, ToolResultMessage
from mneme.ports.models import Summarizer, Summary
from mneme.records import Record, field, replace
from mneme.skills import activated_skill_names, reattach_blocks
from mneme.spec_limits import CHARS_PER_TOKEN, SUMMARY_MAX_CHARS, SUMMARY_TRIGGER_MESSAGES, SUMMARY_TRIGGER_TOKENS

SUMMARY_PREFIX = "[Context Summary — compressed history of this conversation]"
SUMMARY_ACKNOWLEDGEMENT = "Understood. I have the summary of our earlier conversation and will continue from there."
SUMMARY_TRUNCATION_MARK = "…"


class CompressedHistory(Record):
    """The history as the model sees it, and what must be stored on the chat.

    ``messages`` is what the assembler packs (summary pair + retained tail, no system messages);
    ``reattached_skill_blocks`` are extra system blocks. ``new_summary`` / ``new_covers`` are the summary
    and covered count in effect after this call (the stored ones when nothing changed); ``changed`` says
    they must be persisted (``ChatStore.set_summary``). ``warning`` is set when summarizing failed.
    """

    messages: list[ChatMessage]
    reattached_skill_blocks: list[str] = field(default_factory=list)
    new_summary: str | None = None
    new_covers: int = 0
    changed: bool = False
    warning: str | None = None
    covered_skills: list[str] = field(default_factory=list)  # skills activated in the covered part
    summary_call: Summary | None = None  # the summary model call made now (its usage is counted on the run)


def message_chars(message: ChatMessage) -> int:
    """The characters a message contributes to the estimate (text, tool name + arguments, result)."""
    if isinstance(message, ToolCallMessage):
        return len(message.tool) + len(json.dumps(message.arguments, sort_keys=True, ensure_ascii=False))
    if isinstance(message, ToolResultMessage):
        return len(message.content)
    if isinstance(message, ReasoningMessage):
        return len(message.text or message.redacted or "")
    return len(message.text)


def estimate_tokens(messages: Sequence[ChatMessage] | str) -> int:
    """Estimated tokens: characters ÷ 4, rounded up (so ``> N tokens`` means ``> 4N characters``)."""
    chars = len(messages) if isinstance(messages, str) else sum(message_chars(m) for m in messages)
    return -(-chars // CHARS_PER_TOKEN)


def needs_compression(
    history: Sequence[ChatMessage],
    covers: int = 0,
    *,
    trigger_tokens: int = SUMMARY_TRIGGER_TOKENS,
    trigger_messages: int = SUMMARY_TRIGGER_MESSAGES,
) -> bool:
    """Whether the part not covered by the summary exceeds the token or the message trigger."""
    uncovered = history[_clamp(covers, len(history)) :]
    return len(uncovered) > trigger_messages or estimate_tokens(uncovered) > trigger_tokens


def find_cut(history: Sequence[ChatMessage], covers: int = 0) -> int:
    """Index of the first retained message: the last user message after ``covers``, moved earlier so no
    tool call / result pair straddles it. Returns ``covers`` when there is nothing to summarize."""
    covers = _clamp(covers, len(history))
    cut = covers
    for index in range(len(history) - 1, covers - 1, -1):
        message = history[index]
        if isinstance(message, TextMessage) and message.role == "user":
            cut = index
            break
    return _keep_tool_pairs(history, covers, cut)


def _keep_tool_pairs(history: Sequence[ChatMessage], covers: int, cut: int) -> int:
    while cut > covers:
        retained = {_call_id(m) for m in history[cut:]} - {None}
        straddling = [i for i in range(covers, cut) if _call_id(history[i]) in retained]
        if not straddling:
            return cut
        cut = min(straddling)
    return cut


def _call_id(message: ChatMessage) -> str | None:
    return message.call_id if isinstance(message, ToolCallMessage | ToolResultMessage) else None


def summary_messages(summary: str) -> list[ChatMessage]:
    """The summary pair the model sees in place of the covered messages."""
    return [
        TextMessage(role="user", text=f"{SUMMARY_PREFIX}\n\n{summary}"),
        TextMessage(role="assistant", text=SUMMARY_ACKNOWLEDGEMENT),
    ]


def cap_summary(summary: str, max_chars: int = SUMMARY_MAX_CHARS) -> str:
    """The summary stripped and cut to ``max_chars`` (a cut one ends with ``…``)."""
    summary = summary.strip()
    if len(summary) <= max_chars:
        return summary
    return summary[: max_chars - len(SUMMARY_TRUNCATION_MARK)].rstrip() + SUMMARY_TRUNCATION_MARK


def compress(
    history: Sequence[ChatMessage],
    *,
    summary: str | None,
    covers: int,
    summarizer: Summarizer,
    skills: Mapping[str, Skill],
    first_seq: int = 0,
    covered_skills: Sequence[str] | None = None,
    trigger_tokens: int = SUMMARY_TRIGGER_TOKENS,
    trigger_messages: int = SUMMARY_TRIGGER_MESSAGES,
    max_summary_chars: int = SUMMARY_MAX_CHARS,
) -> CompressedHistory:
    """The model's view of ``history``: the chat's stored messages from position ``first_seq`` on (the whole
    chat when 0), oldest first.

    ``summary`` / ``covers`` are the stored rolling summary and the count of messages it replaces (a
    ``covers`` without summary text is ignored; it is clamped to the chat's length). ``covered_skills`` are
    the skills activated in the covered messages the caller did not load (the messages before
    ``first_seq``, which must not be after ``covers``); ``skills`` are the agent's assigned skills by name,
    used to re-attach the skills activated in the covered part. ``new_covers`` counts from the chat's start.
    """
    if not summary:
        summary, covers = None, 0
    local = _clamp(covers - first_seq, len(history))
    if covers and covers < first_seq:
        raise ValueError(f"the history starts at message {first_seq}, after the {covers} the summary covers")
    known = [*(covered_skills or []), *activated_skill_names(history[:local])]
    current = _view(history, summary, local, first_seq, known, skills)
    if not needs_compression(history, local, trigger_tokens=trigger_tokens, trigger_messages=trigger_messages):
        return current
    cut = find_cut(history, local)
    if cut <= local:
        return current
    try:
        call = summarizer.summarize(summary, list(history[local:cut]))
        new_summary = cap_summary(call.text, max_summary_chars)
    except Exception as exc:  # a failed summary never fails the run
        return _with_warning(current, f"rolling summary failed, history kept unchanged: {type(exc).__name__}: {exc}")
    if not new_summary:
        warned = _with_warning(current, "rolling summary failed, history kept unchanged: empty summary")
        return replace(warned, summary_call=call)
    view = _view(history, new_summary, cut, first_seq, [*known, *activated_skill_names(history[local:cut])], skills)
    return replace(view, changed=True, summary_call=call)


def _view(
    history: Sequence[ChatMessage],
    summary: str | None,
    local_covers: int,
    first_seq: int,
    covered_skills: Sequence[str],
    skills: Mapping[str, Skill],
) -> CompressedHistory:
    if summary is None or local_covers + first_seq == 0:
        return CompressedHistory(messages=list(history), new_summary=summary, new_covers=0)
    names = list(dict.fromkeys(covered_skills))
    return CompressedHistory(
        messages=[*summary_messages(summary), *history[local_covers:]],
        reattached_skill_blocks=reattach_blocks(names, skills),
        new_summary=summary,
        new_covers=first_seq + local_covers,
        covered_skills=names,
    )


def _with_warning(view: CompressedHistory, warning: str) -> CompressedHistory:
    return replace(view, warning=warning)


def _clamp(covers: int, length: int) -> int:
    return max(0, min(covers, length))
