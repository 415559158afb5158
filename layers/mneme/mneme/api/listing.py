"""The query parameters of a list route (agents, tasks, skills, chats): a page at a time, below Lambda's 6 MB.

Without ``limit`` a page holds as many items as one response carries (all of them, for any list that fits);
the answer's ``cursor`` is null on the last page, else passed back for the next one.
"""

from __future__ import annotations

from typing import Annotated

from aws_lambda_powertools.event_handler.openapi.params import Query

from mneme.spec_limits import PAGE_LIMIT_MAX

PageLimit = Annotated[
    int | None, Query(ge=1, le=PAGE_LIMIT_MAX, description="at most this many items (default: all one response holds)")
]
RevisionLimit = Annotated[int, Query(ge=1, le=100, description="at most this many revisions (default 20)")]
PageCursor = Annotated[str | None, Query(min_length=1, max_length=4096, description="the cursor of the previous page")]
