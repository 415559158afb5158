"""Constrained field types shared by the models."""

from __future__ import annotations

from typing import Annotated

from pydantic import Field, StringConstraints

#: agent ids, task ids, skill names: lowercase letters, digits and hyphens, at most 64 characters.
SLUG_PATTERN = r"^[a-z0-9][a-z0-9-]{0,63}$"
Slug = Annotated[str, StringConstraints(pattern=SLUG_PATTERN)]

#: opaque ids chosen by a client or generated (chat, project, session, run, call ids).
ID_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9_.:-]{0,127}$"
Identifier = Annotated[str, StringConstraints(pattern=ID_PATTERN)]

#: a user id as it comes from a verified JWT ``sub`` claim.
UserId = Annotated[str, StringConstraints(min_length=1, max_length=128)]

Label = Annotated[str, StringConstraints(min_length=1, max_length=128, strip_whitespace=True)]
ShortText = Annotated[str, StringConstraints(max_length=1024)]
LongText = Annotated[str, StringConstraints(max_length=100_000)]
TopK = Annotated[int, Field(ge=1, le=20)]

#: the owner value of global (admin-created) agents and skills.
GLOBAL_OWNER = "__global__"
