"""A Python client for Recall, memory for chat assistants.

Standard library only. ``Recall(url, tenant, api_key)`` has one method per
route of the HTTP API; answers are the API's JSON objects, typed in
:mod:`recall_client.types`; error answers raise :mod:`recall_client.errors`.
"""

from .client import MAX_GET_QUERY_BYTES, Duration, Recall, Retry, new_id
from .errors import (
    APIError,
    AuthenticationError,
    ConflictError,
    ConnectionFailedError,
    InvalidRequestError,
    NotFoundError,
    PermissionDeniedError,
    RecallError,
    ServerError,
    TooLargeError,
    UnavailableError,
)

__all__ = [
    "MAX_GET_QUERY_BYTES",
    "Duration",
    "Recall",
    "Retry",
    "new_id",
    "APIError",
    "AuthenticationError",
    "ConflictError",
    "ConnectionFailedError",
    "InvalidRequestError",
    "NotFoundError",
    "PermissionDeniedError",
    "RecallError",
    "ServerError",
    "TooLargeError",
    "UnavailableError",
]
