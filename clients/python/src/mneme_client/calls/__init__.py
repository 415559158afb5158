"""What each client method sends and how its answer is read: shared by the sync and the async client.

A :class:`Call` is one HTTP request plus the parser of its answer; the clients only execute calls, so both
speak the same API by construction. One module per group of routes; every call is importable from here.
"""

from mneme_client.calls.account import *  # noqa: F403
from mneme_client.calls.base import *  # noqa: F403
from mneme_client.calls.config import *  # noqa: F403
from mneme_client.calls.memory import *  # noqa: F403
from mneme_client.calls.runs import *  # noqa: F403
