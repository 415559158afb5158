"""mneme's Python client: :class:`Client` (sync), :class:`AsyncClient`, the models of the API's OpenAPI
document (:mod:`mneme_client.models`), local development tokens (:func:`local_token`) and the ``mneme`` CLI."""

from mneme_client.aio import AsyncClient
from mneme_client.client import Client
from mneme_client.errors import ApiError, ClientError
from mneme_client.sse import TextDelta
from mneme_client.token import local_token

__all__ = ["ApiError", "AsyncClient", "Client", "ClientError", "TextDelta", "local_token"]
__version__ = "0.1.0"
