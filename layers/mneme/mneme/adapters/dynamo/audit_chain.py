"""The hash chain over one user's audit records (pure: items in, items or a report out; no I/O).

Every record of a user's partition carries

* ``chain_seq`` — its position in the user's chain (1, 2, 3 …, no gaps),
* ``chain_prev`` — the digest of the record before it (``""`` for the first),
* ``detail_digest`` — sha256 of its ``detail`` text as stored,
* ``chain_digest`` — sha256 over the chain version, ``chain_prev``, ``chain_seq``, the record's keys and every
  attribute but the detail itself, and ``detail_digest``.

The chain head (``PK = CHAIN#<user_id>``, ``SK = HEAD``: ``seq``, ``digest``) names the last link; an append
moves it with a condition on its ``seq`` in the same transaction as the records, so two concurrent appends
can never both extend the same link (one fails and re-chains on the new head).

Because the chain covers the digest of the detail and not the detail, an erasure may replace the detail
(``redacted_at`` set, ``detail_digest`` kept) without breaking it — but only records chained before an
``erasure`` record may be redacted: a redacted record with no later erasure is reported. Verification walks
the records in ``chain_seq`` order and reports the first link that is missing, duplicated, out of line
(``chain_prev``), altered (``chain_digest``), or whose detail no longer matches its digest; it ends at the
head, so records removed from the end are found too. The chain detects changes by anyone who does not
recompute every later digest and the head; keep the head digest (the verification report and an erasure
receipt show it) to detect even that.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Sequence
from typing import Any

from mneme.adapters.dynamo.items import PK, SK, Item
from mneme.models.privacy import ChainBreak, ChainReport
from mneme.records import Record

CHAIN_VERSION = "mneme-audit-chain/1"
HEAD_SK = "HEAD"
REDACTED_DETAIL = json.dumps({"redacted": True}, separators=(",", ":"))
#: the attributes a link's digest covers besides its chain fields (``detail`` through ``detail_digest``)
COVERED = ("at", "action", "user_id", "depth", "namespace", "run_id", "root_run_id", "agent_id", "task_id")
CHAIN_FIELDS = ("chain_seq", "chain_prev", "chain_digest", "detail_digest")


def head_pk(user_id: str) -> str:
    return f"CHAIN#{user_id}"


class Head(Record):
    seq: int = 0
    digest: str = ""


def head_of(item: Item | None) -> Head | None:
    return None if item is None else Head(int(item["seq"]), str(item["digest"]))


def head_item(user_id: str, head: Head) -> Item:
    return {PK: head_pk(user_id), SK: HEAD_SK, "user_id": user_id, "seq": head.seq, "digest": head.digest}


def sha256(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def link_digest(item: Item, prev: str, seq: int) -> str:
    covered = [item.get(name) for name in COVERED]
    body = [CHAIN_VERSION, prev, seq, item[PK], item[SK], *covered, item["detail_digest"]]
    return sha256(json.dumps(body, separators=(",", ":"), ensure_ascii=True, default=str))


def chain(head: Head | None, items: Sequence[Item]) -> tuple[list[Item], Head]:
    """The items as links after ``head`` (copies with their chain fields), and the new head."""
    current = head or Head()
    linked: list[Item] = []
    for item in items:
        seq = current.seq + 1
        link = {**item, "detail_digest": sha256(str(item["detail"])), "chain_seq": seq, "chain_prev": current.digest}
        link["chain_digest"] = link_digest(link, current.digest, seq)
        linked.append(link)
        current = Head(seq, link["chain_digest"])
    return linked, current


def redacted(item: Item, at: str) -> Item:
    """The item with its detail replaced (its digest, and so the chain, unchanged)."""
    return {**item, "detail": REDACTED_DETAIL, "redacted_at": at}


def _break(item: Item | None, seq: int, reason: str) -> ChainBreak:
    if item is None:
        return ChainBreak(seq=seq, reason=reason)
    return ChainBreak(seq=seq, reason=reason, key=str(item[SK]), at=item.get("at"), action=item.get("action"))


def _link_problem(item: Item, prev: str, seq: int, erased_after: int) -> str | None:
    if item.get("chain_prev") != prev:
        return "chain_prev does not name the digest of the record before it"
    if item.get("chain_digest") != link_digest(item, prev, seq):
        return "the record was altered: its digest does not match its content"
    if "redacted_at" in item:
        if seq >= erased_after:
            return "the detail was redacted, but no erasure follows it in the chain"
    elif item.get("detail_digest") != sha256(str(item.get("detail"))):
        return "the detail was altered: it does not match its digest"
    return None


def verify(user_id: str, items: Iterable[Item], head: Head | None) -> ChainReport:
    """Walk the user's records in chain order; the report names the first broken link."""
    links: dict[int, list[Item]] = {}
    unchained = redacted_count = 0
    for item in items:
        if "chain_seq" not in item:
            unchained += 1
            continue
        links.setdefault(int(item["chain_seq"]), []).append(item)
        redacted_count += "redacted_at" in item
    last = max(links, default=0)
    erasures = [seq for seq, found in links.items() if any(i.get("action") == "erasure" for i in found)]
    erased_after = max(erasures, default=0)
    prev, problem = "", None
    for seq in range(1, last + 1):
        found = links.get(seq, [])
        if not found:
            problem = _break(None, seq, "the record is missing")
        elif len(found) > 1:
            problem = _break(found[0], seq, f"the chain forked: {len(found)} records claim this position")
        else:
            reason = _link_problem(found[0], prev, seq, erased_after)
            problem = _break(found[0], seq, reason) if reason else None
        if problem is not None:
            break
        prev = str(found[0]["chain_digest"])
    known = head or Head()
    if problem is None and known.seq > last:
        problem = _break(None, last + 1, f"the record is missing: the chain head names {known.seq} records")
    elif problem is None and known != Head(last, prev):
        problem = _break(links[last][0] if last else None, last, "the chain head does not name the last record")
    return ChainReport(
        user_id=user_id,
        verified=problem is None,
        records=sum(len(found) for found in links.values()),
        unchained=unchained,
        redacted=redacted_count,
        head={"seq": head.seq, "digest": head.digest} if head else None,
        first_broken=problem,
    )


def export_fields(item: Item) -> dict[str, Any]:
    """The chain fields of a stored record, as an export shows them."""
    return {name: item[name] for name in (*CHAIN_FIELDS, "redacted_at") if name in item}
