"""The Recall client: one method per route of the HTTP API."""

import http.client
import json
import math
import random
import re
import socket
import time
import urllib.error
import urllib.parse
import urllib.request
import uuid
import warnings
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from typing import Any, Callable, Dict, Iterator, Mapping, Optional, Sequence, Tuple, Union, cast

from . import types as t
from .errors import ConnectionFailedError, UnavailableError, error_from

__all__ = ["Duration", "Recall", "Retry", "new_id"]

Duration = Union[int, float, timedelta, str]
"""A length of time as the client takes it: a number of seconds (``5``,
``0.5``), a ``timedelta``, or a Go duration as the API reads it (``"10s"``,
``"1m30s"``), sent as it is."""

# A query longer than this goes in a POST body instead of the URL (URLs over a
# few KiB are refused by some proxies); the API takes up to 64 KiB either way.
MAX_GET_QUERY_BYTES = 1024

_VERSION = "0.1.0"


@dataclass(frozen=True)
class Retry:
    """How a request is retried when Recall answers 503 or cannot be reached.

    Every request the client sends is safe to repeat: turns keep their ids
    (Recall drops repeats), an unseen request that marks keeps its
    notification id, the rest read or are idempotent; but for registering a
    webhook, which is retried only when it cannot have been done (a 503, a
    refused connection). The wait before
    attempt n+1 is ``initial * 2**(n-1)`` with jitter, at least what the
    server's Retry-After asks, and never more than ``max_delay``.
    """

    attempts: int = 4
    initial: float = 0.2
    max_delay: float = 2.0

    def delay(self, attempt: int, retry_after: Optional[float]) -> float:
        """Seconds to wait after failed attempt ``attempt`` (1-based)."""
        d = self.initial * (2 ** (attempt - 1))
        d = d * (0.5 + random.random() / 2)
        if retry_after is not None:
            d = max(d, retry_after)
        return min(d, self.max_delay)


def new_id() -> str:
    """A fresh event id (a random UUID)."""
    return str(uuid.uuid4())


def _rfc3339(d: datetime) -> str:
    if d.tzinfo is None:
        raise ValueError("occurred_at: a datetime without a time zone is ambiguous; give it tzinfo")
    return d.astimezone(timezone.utc).isoformat(timespec="microseconds").replace("+00:00", "Z")


def _seg(v: str) -> str:
    """One path segment: any id (slashes, spaces, non-ASCII) escaped. The ids
    "." and ".." are escaped too: as they are, the server would clean them out
    of the path."""
    if not isinstance(v, str) or v == "":
        raise ValueError("ids in a path must be non-empty strings")
    if v in (".", ".."):
        return v.replace(".", "%2E")
    return urllib.parse.quote(v, safe="")


def _params(**kw: Any) -> Dict[str, Any]:
    """The parameters that were given (not None)."""
    return {k: v for k, v in kw.items() if v is not None}


def _param(v: Any) -> Any:
    """A parameter as the API reads it: lists comma-separated, times in RFC 3339,
    the rest as they are (a POST body keeps numbers and booleans JSON)."""
    if isinstance(v, (list, tuple)):
        return ",".join(str(x) for x in cast(Sequence[Any], v))
    if isinstance(v, datetime):
        return _rfc3339(v)
    return v


def _query_string(params: Mapping[str, Any]) -> str:
    def text(v: Any) -> str:
        v = _param(v)
        if isinstance(v, bool):
            return "true" if v else "false"
        return str(v)

    return urllib.parse.urlencode({k: text(v) for k, v in params.items()})


class Recall:
    """A client for one tenant of a Recall API.

    >>> recall = Recall("http://127.0.0.1:8080", tenant="acme", api_key="...")
    >>> recall.add_turn({"user_id": "u-42", "session_id": "s-1", "role": "user", "content": "hi"})

    Methods return the API's JSON answers (typed by :mod:`recall_client.types`)
    and raise :mod:`recall_client.errors` for error answers. Instances are
    safe to share between threads: each request opens its own connection.
    """

    def __init__(
        self,
        url: str,
        tenant: str,
        api_key: Optional[str] = None,
        *,
        timeout: float = 10.0,
        retry: Retry = Retry(),
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        if not tenant:
            raise ValueError("tenant: required (sent as X-Tenant-ID)")
        if retry.attempts < 1:
            raise ValueError("retry.attempts: at least 1")
        self.url = url.rstrip("/")
        self.tenant = tenant
        self.api_key = api_key
        self.timeout = timeout
        self.retry = retry
        self._sleep = sleep

    # --- turns ---

    def add_turn(self, turn: t.TurnInput) -> t.AcceptedTurn:
        """Store one turn (POST /v1/turns with one object).

        ``id`` (a new UUID) and ``occurred_at`` (now) are filled in when
        missing, once, so every retry sends the same turn.
        """
        body = self._complete(turn, datetime.now(timezone.utc))
        res = cast(t.TurnsAccepted, self._request("POST", "/v1/turns", body=body))
        return res["accepted"][0]

    def add_turns(
        self,
        turns: Sequence[t.TurnInput],
        *,
        wait: Optional[str] = None,
        timeout: Optional[Duration] = None,
    ) -> t.TurnsAccepted:
        """Store a batch of turns in one request (at most the server's
        API_MAX_BATCH, 500). Invalid turns reject the whole batch with every
        field error (``[i].field``); ``accepted`` lists the ids in order.
        Turns without ``occurred_at`` get now plus their index in microseconds,
        so that they keep the batch's order in the session.

        ``wait`` ("stored" or "searchable") answers once every accepted turn
        is stored, or stored and searchable, or when ``timeout`` passes
        (seconds, a ``timedelta`` or a Go duration; the server's
        API_TURN_WAIT, 2 s, when absent; at most API_TURN_WAIT_MAX, 10 s):
        the answer's ``wait`` says which (``reached``). Each attempt's
        timeout is the client's plus the wait's."""
        if not turns:
            raise ValueError("turns: at least one")
        q: Dict[str, Any] = {}
        request_timeout = self.timeout
        if wait is not None:
            q["wait"] = wait
            # Without a timeout the server waits API_TURN_WAIT, which is at
            # most API_TURN_WAIT_MAX (10 s unless configured).
            request_timeout += 10.0
        if timeout is not None:
            q["timeout"], seconds = _duration("timeout", timeout)
            # An unreadable duration is refused by the API at once.
            request_timeout = self.timeout + (seconds or 0.0)
        now = datetime.now(timezone.utc)
        body = [self._complete(x, now + timedelta(microseconds=i)) for i, x in enumerate(turns)]
        return cast(t.TurnsAccepted, self._request("POST", "/v1/turns", query=q, body=body, timeout=request_timeout))

    def turn_status(self, turn_id: str, *, seq: Optional[int] = None) -> t.TurnStatus:
        """Where one turn stands: ``stored``, each turn-stream worker's
        progress (``workers``), ``searchable``, ``summarized``. A turn not
        stored yet is found only with ``seq``, the ``sequence`` its add
        answered; without it, and for another tenant's turn, NotFoundError."""
        return cast(t.TurnStatus, self._request("GET", "/v1/turns/" + _seg(turn_id), query=_params(seq=seq)))

    @staticmethod
    def _complete(turn: t.TurnInput, now: datetime) -> Dict[str, Any]:
        """The turn to send: a copy with its id and time filled in."""
        out: Dict[str, Any] = dict(turn)
        if not out.get("id"):
            out["id"] = new_id()
        at = out.get("occurred_at")
        if at is None or at == "":
            out["occurred_at"] = _rfc3339(now)
        elif isinstance(at, datetime):
            out["occurred_at"] = _rfc3339(at)
        out.setdefault("content", "")
        return out

    # --- context and search ---

    def context(
        self,
        user_id: str,
        session_id: str,
        *,
        query: Optional[str] = None,
        max_messages: Optional[int] = None,
        max_chars: Optional[int] = None,
        ttl: Optional[Duration] = None,
        max_facts: Optional[int] = None,
        max_summaries: Optional[int] = None,
        max_recalled: Optional[int] = None,
        budget: Optional[int] = None,
        lang: Optional[str] = None,
        at: Optional[Union[str, datetime]] = None,
    ) -> t.Context:
        """The assembled context for the next prompt; put ``["prompt"]`` in the
        system prompt. ``query`` is the user's current message: the user's
        history is searched for it. ``ttl``, the oldest message the window
        keeps, is seconds, a ``timedelta`` or a Go duration ("30m", "24h").
        ``at`` (RFC 3339 with its offset, or an aware ``datetime``) asks for the
        context as it would have been assembled then: nothing from then on is
        in it. A long query is sent in a POST body."""
        p = _params(
            user_id=user_id, session_id=session_id, query=query, max_messages=max_messages, max_chars=max_chars,
            ttl=None if ttl is None else _duration("ttl", ttl)[0], max_facts=max_facts, max_summaries=max_summaries, max_recalled=max_recalled,
            budget=budget, lang=lang, at=at,
        )
        return cast(t.Context, self._get_or_post("/v1/context", p, query or ""))

    def search(
        self,
        user_id: str,
        q: str,
        *,
        k: Optional[int] = None,
        session_id: Optional[str] = None,
        agent_id: Optional[str] = None,
        role: Optional[Union[str, Sequence[str]]] = None,
        kind: Optional[Union[str, Sequence[str]]] = None,
        since: Optional[Union[str, datetime]] = None,
        until: Optional[Union[str, datetime]] = None,
        neighbors: Optional[Union[bool, int]] = None,
        max_per_session: Optional[int] = None,
        at: Optional[Union[str, datetime]] = None,
    ) -> t.SearchResult:
        """The raw hits of a search of one user's history (``role``: user,
        assistant; ``kind``: message, summary, fact; lists or comma-separated;
        ``neighbors``: True for the turn on each side of a hit, or 0 to 3 turns;
        ``at``: the history as it stood then, nothing from then on read)."""
        p = _params(
            q=q, k=k, session_id=session_id, agent_id=agent_id, role=role, kind=kind, since=since, until=until,
            neighbors=neighbors, max_per_session=max_per_session, at=at,
        )
        return cast(t.SearchResult, self._get_or_post("/v1/users/" + _seg(user_id) + "/search", p, q))

    def _get_or_post(self, path: str, params: Dict[str, Any], text: str) -> Any:
        if len(text.encode("utf-8")) > MAX_GET_QUERY_BYTES:
            return self._request("POST", path, body={k: _param(v) for k, v in params.items()})
        return self._request("GET", path, query=params)

    # --- sessions ---

    def session(self, session_id: str, *, recent: Optional[int] = None) -> t.Session:
        """A session's aggregates, its newest ``recent`` messages (1-200, default 10) and summary."""
        return cast(t.Session, self._request("GET", "/v1/sessions/" + _seg(session_id), query=_params(recent=recent)))

    def messages(self, session_id: str, *, limit: Optional[int] = None, cursor: Optional[str] = None) -> t.MessagesPage:
        """One page of a session's messages in event-time order (``limit`` 1-500,
        default 50); pass the page's ``next_cursor`` for the next one."""
        q = _params(limit=limit, cursor=cursor)
        return cast(t.MessagesPage, self._request("GET", "/v1/sessions/" + _seg(session_id) + "/messages", query=q))

    def iter_messages(self, session_id: str, *, page_size: int = 100) -> Iterator[t.Message]:
        """Every message of a session, oldest first, a page at a time."""
        cursor: Optional[str] = None
        while True:
            page = self.messages(session_id, limit=page_size, cursor=cursor)
            yield from page["messages"]
            cursor = page.get("next_cursor")
            if not cursor:
                return

    def selection(self, session_id: str, n: int) -> t.Selection:
        """Item ``n`` (1-based, as shown) of the session's current list, exactly
        as it was sent: what the user means by answering "3". Raises
        NotFoundError with code ``no_list`` or ``out_of_range`` (field ``n``)."""
        if isinstance(n, bool) or not isinstance(n, int):
            raise TypeError("n: want an int")
        return cast(t.Selection, self._request("GET", f"/v1/sessions/{_seg(session_id)}/selection/{n}"))

    def summarize(self, session_id: str, *, wait: Optional[Duration] = None) -> t.SummarizeResult:
        """Ask for the session's summary now; ``wait`` (seconds, a ``timedelta``
        or a Go duration such as "10s"; up to 30 s) waits for it. Each attempt's
        timeout is the client's plus the wait."""
        timeout = self.timeout
        q: Dict[str, Any] = {}
        if wait is not None:
            q["wait"], seconds = _duration("wait", wait)
            # An unreadable duration is refused by the API at once.
            timeout += seconds or 0.0
        return cast(
            t.SummarizeResult,
            self._request("POST", "/v1/sessions/" + _seg(session_id) + "/summarize", query=q, body={}, timeout=timeout),
        )

    def delete_session(self, session_id: str) -> None:
        """Remove a session, its messages and its turns in the stream. A retry
        that finds it gone (the first attempt's answer was lost) succeeds."""
        self._request("DELETE", "/v1/sessions/" + _seg(session_id), on_retry_404_ok=True)

    # --- users ---

    def forget_user(self, user_id: str) -> t.ForgetReport:
        """Delete everything stored about a user, in every table and stream. Idempotent."""
        return cast(t.ForgetReport, self._request("DELETE", "/v1/users/" + _seg(user_id)))

    def unseen(
        self, user_id: str, refs: Sequence[str], *, mark_notified: bool = False, notification_id: Optional[str] = None
    ) -> t.Unseen:
        """Which of ``refs`` the user was never shown nor notified of, in the
        order given. With ``mark_notified`` they are recorded as notified,
        under ``notification_id`` (generated when missing, and kept across
        retries, so a retry gets the same answer)."""
        body: Dict[str, Any] = {"refs": list(refs), "mark_notified": mark_notified}
        if mark_notified and not notification_id:
            notification_id = new_id()
        if notification_id:
            body["notification_id"] = notification_id
        return cast(t.Unseen, self._request("POST", "/v1/users/" + _seg(user_id) + "/items/unseen", body=body))

    def seen(self, user_id: str, *, limit: Optional[int] = None) -> t.Seen:
        """The items the user has been shown, most recently shown first (``limit`` 1-1000)."""
        return cast(t.Seen, self._request("GET", "/v1/users/" + _seg(user_id) + "/items/seen", query=_params(limit=limit)))

    def interests(self, user_id: str, *, limit: Optional[int] = None, vector: Optional[bool] = None) -> t.Interests:
        """The user's interest facts by current weight and the interest vector's
        metadata (its components with ``vector=True``). NotFoundError when
        Recall holds neither."""
        q = _params(limit=limit, vector=vector)
        return cast(t.Interests, self._request("GET", "/v1/users/" + _seg(user_id) + "/interests", query=q))

    def profile(self, user_id: str, *, limit: Optional[int] = None, vector: Optional[bool] = None) -> t.Interests:
        """Deprecated: use :meth:`interests`."""
        warnings.warn("Recall.profile is deprecated; use Recall.interests", DeprecationWarning, stacklevel=2)
        return self.interests(user_id, limit=limit, vector=vector)

    def attributes(self, user_id: str, *, history: Optional[bool] = None) -> t.Attributes:
        """Who the user is and what they asked for: the current values of their
        attributes' keys, and with ``history=True`` every earlier one."""
        q = _params(history=history)
        return cast(t.Attributes, self._request("GET", "/v1/users/" + _seg(user_id) + "/attributes", query=q))

    def edit_attributes(
        self, user_id: str, edits: Sequence[t.AttributeEdit], *, id: Optional[str] = None, occurred_at: Optional[Any] = None
    ) -> t.AttributesAccepted:
        """Set and remove values of the user's attributes explicitly. Every edit is
        checked first (InvalidRequestError naming ``edits[i].key``, nothing
        stored); ``id`` is generated when missing and kept across retries, so a
        retry stores nothing twice."""
        body: Dict[str, Any] = {"id": id or new_id(), "edits": [dict(e) for e in edits]}
        if occurred_at is not None:
            body["occurred_at"] = occurred_at.isoformat() if hasattr(occurred_at, "isoformat") else occurred_at
        return cast(t.AttributesAccepted, self._request("PATCH", "/v1/users/" + _seg(user_id) + "/attributes", body=body))

    def refresh_interests(self, user_id: str) -> t.InterestsRefresh:
        """Queue a recompute of the user's interest vector as of now (debounced per user)."""
        return cast(t.InterestsRefresh, self._request("POST", "/v1/users/" + _seg(user_id) + "/interests/refresh", body={}))

    def refresh_profile(self, user_id: str) -> t.InterestsRefresh:
        """Deprecated: use :meth:`refresh_interests`."""
        warnings.warn("Recall.refresh_profile is deprecated; use Recall.refresh_interests", DeprecationWarning, stacklevel=2)
        return self.refresh_interests(user_id)

    def recommendations(self, user_id: str, *, k: Optional[int] = None) -> t.Recommendations:
        """Catalog items nearest the user's interests (``k`` 1-100). ConflictError
        (code ``no_profile``) while the user has no interest vector."""
        path = "/v1/users/" + _seg(user_id) + "/recommendations"
        return cast(t.Recommendations, self._request("GET", path, query=_params(k=k)))

    # --- webhooks (docs/webhooks.md) ---

    def create_webhook(self, webhook: t.WebhookCreate) -> t.Webhook:
        """Register an endpoint for the tenant's change feed: every change whose
        type it wants (``types``: a type, a prefix such as ``attribute.*``, or
        ``*``) is POSTed to ``url``, signed with its ``secret`` (made by the
        server when left out). The answer is the only one that holds the
        secret. Unless the server has WEBHOOK_ALLOW_PRIVATE=true, a URL on a
        loopback, private or link-local address is refused
        (InvalidRequestError, field ``url``).

        Not safe to repeat: a second request would register a second
        endpoint. So it is retried only when nothing can have been registered
        (a 503, a refused connection); a connection that broke or timed out
        after the request was sent raises ConnectionFailedError at once.
        """
        return cast(t.Webhook, self._request("POST", "/v1/webhooks", body=dict(webhook), once_sent=True))

    def webhooks(self) -> t.Webhooks:
        """The tenant's endpoints, oldest first, without their secrets."""
        return cast(t.Webhooks, self._request("GET", "/v1/webhooks"))

    def delete_webhook(self, webhook_id: str) -> None:
        """Remove an endpoint and its deliveries: nothing more is sent to it.
        NotFoundError when there is no such endpoint; a retry that finds it
        gone (the first attempt's answer was lost) succeeds."""
        self._request("DELETE", "/v1/webhooks/" + _seg(webhook_id), on_retry_404_ok=True)

    def webhook_deliveries(
        self, webhook_id: str, *, status: Optional[str] = None, limit: Optional[int] = None
    ) -> t.WebhookDeliveries:
        """An endpoint's newest deliveries (``status``: pending, delivered or
        failed; ``limit`` 1-200, default 50) and how many it has of each
        status."""
        q = _params(status=status, limit=limit)
        return cast(t.WebhookDeliveries, self._request("GET", "/v1/webhooks/" + _seg(webhook_id) + "/deliveries", query=q))

    def redrive_webhook_delivery(self, webhook_id: str, change_id: str) -> t.WebhookDelivery:
        """Make a failed delivery pending again, due now, with as many attempts
        as a new one. NotFoundError when the endpoint has no delivery of the
        change; ConflictError (code ``not_failed``) when it is pending or
        delivered."""
        path = "/v1/webhooks/" + _seg(webhook_id) + "/deliveries/" + _seg(change_id) + "/redrive"
        return cast(t.WebhookDelivery, self._request("POST", path))

    # --- transport ---

    def _request(
        self,
        method: str,
        path: str,
        *,
        query: Optional[Mapping[str, Any]] = None,
        body: Any = None,
        timeout: Optional[float] = None,
        on_retry_404_ok: bool = False,
        once_sent: bool = False,
    ) -> Any:
        url = self.url + path
        if query:
            url += "?" + _query_string(query)
        data = None
        headers = {"X-Tenant-ID": self.tenant, "Accept": "application/json", "User-Agent": "recall-client-python/" + _VERSION}
        if self.api_key:
            headers["Authorization"] = "Bearer " + self.api_key
        if body is not None:
            # Encoded once: every attempt sends the same bytes, ids included.
            data = json.dumps(body, ensure_ascii=False, allow_nan=False, separators=(",", ":")).encode("utf-8")
            headers["Content-Type"] = "application/json"
        attempts = self.retry.attempts
        for attempt in range(1, attempts + 1):
            req = urllib.request.Request(url, data=data, headers=headers, method=method)
            try:
                status, raw, retry_after = _send(req, timeout or self.timeout)
            except _Unreachable as e:
                if once_sent and not e.refused:
                    # The request may have been carried out, its answer lost.
                    raise ConnectionFailedError(f"{method} {path}: {e} (not retried: it may have been carried out)", attempt) from e.cause
                if attempt == attempts:
                    raise ConnectionFailedError(f"{method} {path}: {e} (after {attempts} attempts)", attempts) from e.cause
                self._sleep(self.retry.delay(attempt, None))
                continue
            if 200 <= status < 300:
                return _decode(raw) if raw else None
            if status == 404 and attempt > 1 and on_retry_404_ok:
                return None
            err = error_from(status, _decode(raw))
            if isinstance(err, UnavailableError) and attempt < attempts:
                self._sleep(self.retry.delay(attempt, retry_after))
                continue
            raise err
        raise AssertionError("unreachable")  # pragma: no cover


class _Unreachable(Exception):
    """A network failure of one attempt: nothing was answered."""

    def __init__(self, reason: str, cause: BaseException) -> None:
        super().__init__(reason)
        self.cause = cause
        # Refused: the request was never received, so nothing was done.
        self.refused = isinstance(cause, ConnectionRefusedError) or isinstance(
            getattr(cause, "reason", None), ConnectionRefusedError
        )


def _send(req: urllib.request.Request, timeout: float) -> Tuple[int, bytes, Optional[float]]:
    """One attempt: the status, the body and the Retry-After seconds, error
    statuses included; network failures raise _Unreachable."""
    try:
        with urllib.request.urlopen(req, timeout=timeout) as resp:
            return resp.status, resp.read(), None
    except urllib.error.HTTPError as e:
        with e:
            raw = e.read()
        return e.code, raw, _retry_after(e.headers.get("Retry-After") if e.headers else None)
    except urllib.error.URLError as e:
        raise _Unreachable(str(e.reason), e) from e
    except (ConnectionError, TimeoutError, socket.timeout, http.client.HTTPException) as e:
        raise _Unreachable(type(e).__name__ + ": " + str(e), e) from e


def _retry_after(v: Optional[str]) -> Optional[float]:
    """Retry-After in seconds (the API sends whole seconds), None when absent or a date."""
    try:
        return max(0.0, float(v)) if v else None
    except ValueError:
        return None


def _decode(raw: bytes) -> Any:
    try:
        return json.loads(raw.decode("utf-8"))
    except ValueError:
        return None


def _duration(name: str, v: Duration) -> Tuple[str, Optional[float]]:
    """Parameter ``name``, a :data:`Duration`, as the API reads it (a Go
    duration) and in seconds (None when the string is not a Go duration: the
    API answers that it is not)."""
    if isinstance(v, timedelta):
        v = v.total_seconds()
    if isinstance(v, str):
        return v, _seconds(v)
    # bool is an int, but True is no length of time.
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        raise TypeError(f'{name}: want seconds (a number), a timedelta or a duration such as "10s", not {type(v).__name__}')
    if not math.isfinite(v) or v < 0:
        raise ValueError(f"{name}: want a number of seconds from 0, not {v}")
    # Microseconds at most, in decimal: Go reads "2.5s", not "2.5e-05s".
    return ("%f" % v).rstrip("0").rstrip(".") + "s", float(v)


_GO_DURATION = re.compile(r"(\d+\.?\d*|\.\d+)(ns|us|µs|μs|ms|s|m|h)")
_GO_UNITS = {"ns": 1e-9, "us": 1e-6, "µs": 1e-6, "μs": 1e-6, "ms": 1e-3, "s": 1.0, "m": 60.0, "h": 3600.0}


def _seconds(d: str) -> Optional[float]:
    """Seconds of a Go duration ("500ms", "10s", "1m30s"), None when it is not one."""
    body = d[1:] if d[:1] in "+-" else d
    if body == "0":
        return 0.0
    parts = _GO_DURATION.findall(body)
    if not body or "".join(n + u for n, u in parts) != body:
        return None
    total = sum(float(n) * _GO_UNITS[u] for n, u in parts)
    return -total if d.startswith("-") else total
