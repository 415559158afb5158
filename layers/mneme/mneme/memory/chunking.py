"""Long content → chunks an embedding model takes (issue 11.3).

:func:`split` cuts at paragraph, then sentence, then word boundaries, never inside a word unless a word alone
is longer than the chunk; every chunk is stripped and at most ``size`` characters. Content that fits is one
chunk (itself). :func:`chunk_ids` gives deterministic ids: a retried write stores the same entries.
"""

from __future__ import annotations

import hashlib
import re
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from mneme.models.memory import MemoryDocument, MemoryHit

_BOUNDARIES = (re.compile(r"\n\s*\n"), re.compile(r"(?<=[.!?])\s+"), re.compile(r"\s+"))
#: chunks one entry may have: a 200,000-character document (limits.MAX_DOCUMENT_CHARS) in chunks of 1,000 (the
#: local model's) makes ~200-400 at sentence boundaries; all of them are stored, more is a 413 — never a cut
MAX_CHUNKS = 512


def whole(entry: MemoryDocument | MemoryHit) -> bool:
    """Whether ``entry`` is a whole memory: not a chunk of a long one (the first chunk included)."""
    return entry.parent_id is None and (entry.chunk_count or 1) == 1


def split(text: str, size: int) -> list[str]:
    text = text.strip()
    if len(text) <= size:
        return [text] if text else []
    return [chunk for chunk in _split(text, size, 0) if chunk]


def _split(text: str, size: int, level: int) -> list[str]:
    if len(text) <= size:
        return [text.strip()]
    if level >= len(_BOUNDARIES):
        return [text[i : i + size].strip() for i in range(0, len(text), size)]
    pieces = [p for p in _BOUNDARIES[level].split(text) if p.strip()]
    if len(pieces) == 1:
        return _split(text, size, level + 1)
    joiner = "\n\n" if level == 0 else " "
    chunks: list[str] = []
    current = ""
    for raw in pieces:
        piece = raw.strip()
        candidate = f"{current}{joiner}{piece}" if current else piece
        if len(candidate) <= size:
            current = candidate
            continue
        if current:
            chunks.append(current)
        if len(piece) > size:
            chunks += _split(piece, size, level + 1)
            current = ""
        else:
            current = piece
    if current:
        chunks.append(current)
    return chunks


def chunk_ids(first_id: str, count: int) -> list[str]:
    """``first_id`` for the first chunk (the entry a client deletes), derived ids for the rest."""
    return [first_id] + [
        hashlib.sha256(f"{first_id}\x00chunk\x00{i}".encode()).hexdigest()[:32] for i in range(1, count)
    ]
