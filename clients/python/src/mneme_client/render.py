"""How the CLI prints what the API answers: one line per run event, memory hits, documents as NDJSON."""

from __future__ import annotations

import json
from typing import Any, TextIO

from mneme_client import models
from mneme_client.sse import FollowItem, TextDelta

MAX_TEXT = 200


def _short(value: Any) -> str:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    text = " ".join(text.split())
    return text if len(text) <= MAX_TEXT else text[: MAX_TEXT - 1] + "…"


def answer_with(run_id: str | None, call_id: object) -> str:
    """The command that answers a pending tool call, with the ids it needs."""
    return f"answer with: mneme approve {run_id or 'RUN'} {call_id} [--deny] [--always]"


def _calls(calls: list[Any], run_id: str | None) -> str:
    """Each call a run waits for: its tool, its arguments (shortened) and the command that answers it."""
    return "; ".join(
        f"{call.get('tool')} {_short(call.get('arguments') or {})} — {answer_with(run_id, call.get('call_id'))}"
        for call in calls
        if isinstance(call, dict)
    )


def event_line(event: models.EventView, run_id: str | None = None) -> str:
    """``[seq] type details`` for one run event of run ``run_id`` (tree events are indented by depth and carry
    their own run's id)."""
    fields: dict[str, Any] = event.model_extra or {}
    kind = event.type
    if kind == "tool_call":
        detail = f"{fields.get('tool')} {fields.get('status')}"
        if fields.get("error"):
            detail += f": {_short(fields['error'])}"
    elif kind == "memory_hits":
        hits = fields.get("hits") or fields.get("ids") or []
        detail = f"{fields.get('count', len(hits))} hit(s)"
    elif kind == "model_call":
        usage = fields.get("usage") or {}
        detail = f"{fields.get('model_id') or ''} in={usage.get('input_tokens')} out={usage.get('output_tokens')}"
    elif kind in ("delegation_started", "delegation_finished"):
        detail = f"{fields.get('agent_id')} → {fields.get('child_run_id')} (depth {fields.get('depth')})"
    elif kind == "approval_requested":
        detail = _calls(fields.get("calls") or [], fields.get("run_id") or run_id)
    elif kind == "completed":
        detail = f"{fields.get('status', '')} {_short(fields.get('output') or '')}".strip()
    elif kind in ("error", "warning"):
        detail = _short(fields.get("message") or fields.get("error") or fields)
    else:
        detail = ""
    indent = "  " * int(fields.get("run_depth") or 0)  # a tree's events: their run's depth
    return f"{indent}[{event.seq}] {kind}" + (f" {detail.strip()}" if detail.strip() else "")


class FollowPrinter:
    """Prints a followed run: event lines, and model text as it streams (on its own lines) — a tree's text indented
    by its run's depth, as that run's events are (the delta's ``depth``, else the depth its events named)."""

    def __init__(self, out: TextIO, *, as_json: bool = False, run_id: str | None = None) -> None:
        self.out = out
        self.as_json = as_json
        self.run_id = run_id
        self._in_text = False
        self._text_run: str | None = None
        self._line_start = True
        self._depths: dict[str, int] = {}

    def __call__(self, item: FollowItem) -> None:
        if isinstance(item, TextDelta):
            if self.as_json:
                self.out.write(json.dumps({"delta": item.text, "run_id": item.run_id, "depth": item.depth}) + "\n")
            else:
                self._text(item)
            self.out.flush()
            return
        self._learn_depths(item)
        self._end_text()
        text = item.model_dump_json() if self.as_json else event_line(item, self.run_id)
        self.out.write(text + "\n")
        self.out.flush()

    def _text(self, item: TextDelta) -> None:
        if self._in_text and item.run_id != self._text_run:  # another run's text: on a line of its own
            self._end_text()
        indent = "  " * (item.depth or self._depths.get(item.run_id, 0))
        for number, piece in enumerate(item.text.split("\n")):
            if number:  # a line break inside the text: the next line is indented too
                self.out.write("\n")
                self._line_start = True
            if piece:
                self.out.write((indent if self._line_start else "") + piece)
                self._line_start = False
        self._in_text, self._text_run = True, item.run_id

    def _end_text(self) -> None:
        if self._in_text and not self._line_start:
            self.out.write("\n")
        self._in_text, self._text_run, self._line_start = False, None, True

    def _learn_depths(self, event: models.EventView) -> None:
        """Each run's depth, from a tree's events: their own run's (``run_depth``), and a delegation's child's."""
        fields: dict[str, Any] = event.model_extra or {}
        if isinstance(fields.get("run_id"), str) and isinstance(fields.get("run_depth"), int):
            self._depths[fields["run_id"]] = fields["run_depth"]
        if event.type == "delegation_started" and isinstance(fields.get("child_run_id"), str):
            self._depths[fields["child_run_id"]] = int(fields.get("depth") or 0)


def hit_lines(view: models.SearchView) -> list[str]:
    """A hit per entry: its relevance, namespace and id, then its content — with the lines said around it, when
    asked for (``--lines``), in the order they were said, the hit's own marked ``>``."""
    return [f"{hit.relevance:.3f}  {hit.namespace}  {hit.id}\n{_said(hit)}" for hit in view.hits]


def _said(hit: models.MemoryHitView) -> str:
    if not hit.context:
        return f"       {_short(hit.content)}"
    rows = {int(line["offset"]): f"       {_short(str(line['content']))}" for line in hit.context}
    rows[0] = f"     > {_short(hit.content)}"
    return "\n".join(rows[offset] for offset in sorted(rows))


def document_json(document: models.DocumentView) -> str:
    return json.dumps(document.model_dump(mode="json", by_alias=True), ensure_ascii=False, sort_keys=True)


def run_summary(run: models.RunView) -> str:
    lines = [f"run {run.run_id}: {run.status}"]
    if run.output:
        lines.append(run.output)
    if run.error:
        lines.append(f"error: {run.error}")
    for call in run.pending_approvals or []:  # a run waiting_approval: what it waits for, and how to answer
        lines.append(f"waiting for approval: {_calls([call.model_dump(mode='json')], run.run_id)}")
    return "\n".join(lines)


def usage_line(run: models.RunView) -> str:
    """The run's own tokens: ``usage: input 32, output 7, cache read 0, cache write 0 tokens``."""
    used = run.usage
    return (
        f"usage: input {used.input_tokens}, output {used.output_tokens}, cache read {used.cache_read_tokens}, "
        f"cache write {used.cache_write_tokens} tokens"
    )


def run_line(run: models.RunSummaryView) -> str:
    """``run_id  status  agent  created_at  $cost`` (the whole delegation tree's cost), tab-separated."""
    return f"{run.run_id}\t{run.status}\t{run.agent_id}\t{run.created_at}\t${run.cost_usd:.4f}"
