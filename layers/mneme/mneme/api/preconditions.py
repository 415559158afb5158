"""Conditional requests on the configuration routes (RFC 9110 §8.8.3, §13): each GET and PUT answers the
resource's ``ETag``; a PUT with ``If-Match`` (or ``If-None-Match: *``, create only) is refused with 412 when it
no longer holds, instead of silently replacing what another request wrote since."""

from __future__ import annotations

import re
from typing import Annotated, Any

from aws_lambda_powertools.event_handler import Response
from aws_lambda_powertools.event_handler.openapi.params import Header
from pydantic import BaseModel

from mneme.api.responses import JSON, json_response
from mneme.errors import InvalidInput, PreconditionFailed
from mneme.models.precondition import ANY, Precondition, etag_of

_EMPTY = re.compile(r"[\s,]+")
_TAG = re.compile(r'\s*((?:W/)?"[\x21\x23-\x7e\x80-\xff]*")\s*(?:,|$)')

IfMatch = Annotated[
    str | None,
    Header(
        alias="If-Match",
        max_length=2048,
        description='write only if the resource\'s ETag is one of these (or "*": if it exists); else 412',
    ),
]
IfNoneMatch = Annotated[
    str | None,
    Header(
        alias="If-None-Match",
        max_length=2048,
        description='"*" (the resource exists) or its current ETag: a GET is a 304, a PUT or DELETE a 412',
    ),
]

#: the ``responses=`` of a conditional route: what it answers, with its ETag header, and the 412
ETAG_HEADER: dict[str, Any] = {
    "ETag": {"description": "the resource's entity tag, for If-Match", "schema": {"type": "string"}}
}
REFUSED: dict[str, Any] = {
    "description": "If-Match / If-None-Match does not hold: the resource changed (its ETag is answered)"
}
CONDITIONAL: dict[int, Any] = {200: {"description": "OK", "headers": ETAG_HEADER}, 412: REFUSED}
NOT_MODIFIED: dict[str, Any] = {
    "description": "If-None-Match names the current ETag: not sent again",
    "headers": ETAG_HEADER,
}
#: the ``responses=`` of a conditional GET
CONDITIONAL_READ: dict[int, Any] = {**CONDITIONAL, 304: NOT_MODIFIED}
CONDITIONAL_DELETE: dict[int, Any] = {412: REFUSED}


def tagged_answer(view: type[BaseModel], *, read: bool = False) -> dict[int, Any]:
    """The ``responses=`` of a conditional route answering ``view`` with its ETag (``read``: a GET, also 304)."""
    answers = {200: {"description": "OK", "headers": ETAG_HEADER, "content": {JSON: {"model": view}}}, 412: REFUSED}
    return {**answers, 304: NOT_MODIFIED} if read else answers


def _tags(value: str, header: str) -> tuple[str, ...]:
    """The entity tags of an ``If-Match`` / ``If-None-Match`` list (RFC 9110 §5.6.1: empty elements are skipped),
    or ``("*",)``; else a 400 naming the header as the request's validation names it (lowercase)."""
    if value.strip() == ANY:
        return (ANY,)
    tags, at = [], 0
    while at < len(value):
        if (skipped := _EMPTY.match(value, at)) and skipped.end() > at:
            at = skipped.end()
            continue
        found = _TAG.match(value, at)
        if found is None or found.end() == at:
            raise InvalidInput(f'{header}: expected "*" or a list of entity tags such as "3f2a…"', field=header.lower())
        tags.append(found.group(1))
        at = found.end()
    if not tags:
        raise InvalidInput(f"{header}: no entity tag", field=header.lower())
    return tuple(tags)


def precondition_of(if_match: str | None, if_none_match: str | None) -> Precondition | None:
    """The request's precondition, or None when it sets neither header."""
    if if_match is None and if_none_match is None:
        return None
    return Precondition(
        if_match=_tags(if_match, "If-Match") if if_match is not None else None,
        if_none_match=_tags(if_none_match, "If-None-Match") if if_none_match is not None else None,
    )


def tagged(body: dict[str, Any], model: BaseModel) -> Response[str]:
    """A resource's JSON with its entity tag."""
    return json_response(200, body, {"ETag": etag_of(model)})


def tagged_read(
    body: dict[str, Any], model: BaseModel, if_match: str | None, if_none_match: str | None
) -> Response[str]:
    """A GET's answer under its preconditions (RFC 9110 §13.2.2): ``If-Match`` that does not hold is a 412; then
    ``If-None-Match`` naming the current tag (compared weakly) or ``*`` is a ``304 Not Modified`` with the tag and no
    body — a client that keeps what it read asks again without fetching it again; else the JSON with its tag."""
    tag = etag_of(model)
    condition = precondition_of(if_match, if_none_match) or Precondition()
    if not Precondition(if_match=condition.if_match).holds(tag):
        raise PreconditionFailed(condition.refusal(tag), details={"etag": tag})
    if not Precondition(if_none_match=condition.if_none_match).holds(tag):
        return Response(304, None, "", headers={"ETag": tag})
    return json_response(200, body, {"ETag": tag})
