"""Replay recorded exchanges (tests/contract/recordings, written by scripts/contract_record.py) through the
openai-compatible adapter: a fake session stands in for the HTTP transport."""

from __future__ import annotations

import io
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import requests

RECORDINGS = Path(__file__).parent / "recordings"


def recordings(kind: str) -> list[dict[str, Any]]:
    loaded = [json.loads(path.read_text(encoding="utf-8")) for path in sorted(RECORDINGS.glob("*.json"))]
    return [record for record in loaded if record["kind"] == kind]


def recording(name: str) -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads((RECORDINGS / f"{name}.json").read_text(encoding="utf-8"))
    return loaded


class RecordedRaw:
    """The body as urllib3 streams it (``stream=True``): ``read1`` until it answers ``b""``."""

    connection = None

    def __init__(self, data: bytes) -> None:
        self._data = io.BytesIO(data)

    def read1(self, amt: int, decode_content: bool = True) -> bytes:
        return self._data.read(amt)


class RecordedReply:
    """The recorded answer as ``requests`` gives it to the adapter (the body streamed, ``stream=True``)."""

    def __init__(self, answer: dict[str, Any]) -> None:
        self.status_code = int(answer["status"])
        self._body = answer["body"]
        self.headers = {"Content-Type": answer.get("content_type", "")}
        self.text = self._body if isinstance(self._body, str) else json.dumps(self._body)
        self.raw = RecordedRaw(self.text.encode())

    def close(self) -> None:
        return None

    def json(self) -> Any:
        if isinstance(self._body, str):
            return json.loads(self._body)  # raises ValueError like requests for a text body
        return self._body


@dataclass
class ReplaySession:
    """Answers every POST with the recorded answer (a recorded dropped connection raises) and keeps what the
    adapter sent."""

    answer: dict[str, Any]
    sent: list[dict[str, Any]] = field(default_factory=list)

    def post(self, url: str, *, data: bytes, headers: dict[str, str], timeout: Any, **_: Any) -> RecordedReply:
        self.sent.append({"url": url, "body": json.loads(data), "headers": headers})
        if "error" in self.answer:
            raise requests.ConnectionError(self.answer["error"])
        return RecordedReply(self.answer)
