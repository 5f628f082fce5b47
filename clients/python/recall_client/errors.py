"""Errors the client raises, one class per kind of answer.

Every answer that is not a success becomes an :class:`APIError` subclass
carrying the API's error body: ``code``, ``message`` and ``fields`` (each
``{"field", "message"}``, naming what to fix). A server that could not be
reached after the retries is a :class:`ConnectionFailedError`.
"""

from typing import Any, Dict, List, Optional, cast

from .types import AcceptedTurn, FieldError


class RecallError(Exception):
    """The base of every error the client raises."""


class ConnectionFailedError(RecallError):
    """Recall could not be reached (refused, reset, timed out) on any attempt."""

    def __init__(self, message: str, attempts: int) -> None:
        super().__init__(message)
        self.attempts = attempts


class APIError(RecallError):
    """Recall answered with an error status."""

    def __init__(self, status: int, code: str, message: str, fields: List[FieldError], body: Any) -> None:
        detail = "; ".join(f["field"] + ": " + f["message"] for f in fields)
        super().__init__(f"{status} {code}: {message}" + (f" ({detail})" if detail else ""))
        self.status = status
        self.code = code
        self.message = message
        self.fields = fields
        self.body = body

    def field(self, name: str) -> Optional[str]:
        """The message about field ``name`` ("role", "[1].role", "n"), or None."""
        for f in self.fields:
            if f["field"] == name:
                return f["message"]
        return None


class InvalidRequestError(APIError):
    """400 (or 415): the request is wrong; ``fields`` says where."""


class AuthenticationError(APIError):
    """401: no key, or a key Recall does not know."""


class PermissionDeniedError(APIError):
    """403: the key belongs to another tenant."""


class NotFoundError(APIError):
    """404: no such session or route; for a selection also ``no_list`` and ``out_of_range``."""


class ConflictError(APIError):
    """409: nothing is wrong with the request, but the state does not allow it yet (``no_profile``)."""


class TooLargeError(APIError):
    """413: the body or batch is over the server's limit."""


class ServerError(APIError):
    """500 and other server failures that are not worth retrying."""


class UnavailableError(APIError):
    """503 on every attempt: a dependency of Recall is away.

    For POST /v1/turns, ``accepted`` and ``failed`` say which turns of the
    last attempt were and were not stored; resending the same turns (same
    ids) is safe.
    """

    def __init__(self, status: int, code: str, message: str, fields: List[FieldError], body: Any) -> None:
        super().__init__(status, code, message, fields, body)
        self.accepted: List[AcceptedTurn] = []
        self.failed: List[str] = []
        if isinstance(body, dict):
            b = cast(Dict[str, Any], body)
            self.accepted = b.get("accepted") or []
            self.failed = b.get("failed") or []


_BY_STATUS: Dict[int, type] = {
    400: InvalidRequestError,
    401: AuthenticationError,
    403: PermissionDeniedError,
    404: NotFoundError,
    409: ConflictError,
    413: TooLargeError,
    415: InvalidRequestError,
    503: UnavailableError,
}


def error_from(status: int, body: Any) -> APIError:
    """The typed error for an error answer with its decoded body (None when not JSON)."""
    detail: Dict[str, Any] = {}
    if isinstance(body, dict):
        e = cast(Dict[str, Any], body).get("error")
        if isinstance(e, dict):
            detail = cast(Dict[str, Any], e)
    code = str(detail.get("code") or "http_" + str(status))
    message = str(detail.get("message") or "HTTP " + str(status))
    fields: List[FieldError] = []
    for f in cast(List[Any], detail.get("fields") or []):
        if isinstance(f, dict):
            fd = cast(Dict[str, Any], f)
            fields.append({"field": str(fd.get("field", "")), "message": str(fd.get("message", ""))})
    cls = _BY_STATUS.get(status, ServerError if status >= 500 else APIError)
    err: APIError = cls(status, code, message, fields, body)
    return err
