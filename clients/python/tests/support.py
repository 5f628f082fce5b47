"""What the tests share: the live Recall they run against, and waiting for
the workers, which store turns a moment after the API accepts them."""

import os
import time
import uuid
from typing import Any, Callable, TypeVar

from recall_client import Recall, Retry

T = TypeVar("T")


def live() -> Recall:
    """A client of the Recall the Go test started (clients/clients_test.go)."""
    url = os.environ.get("RECALL_URL")
    tenant = os.environ.get("RECALL_TENANT")
    if not url or not tenant:
        raise RuntimeError("RECALL_URL and RECALL_TENANT are not set: run these tests through `go test ./clients/`")
    return Recall(url, tenant, os.environ.get("RECALL_API_KEY"), retry=Retry(attempts=3, initial=0.05))


def unique(prefix: str) -> str:
    return prefix + "-" + uuid.uuid4().hex[:12]


def eventually(fn: Callable[[], T], timeout: float = 30.0, what: str = "condition") -> T:
    """fn's first truthy result, trying every 50 ms; its last error or a
    timeout fails the test."""
    deadline = time.monotonic() + timeout
    last: Any = None
    while True:
        try:
            v = fn()
            if v:
                return v
            last = v
        except Exception as e:  # noqa: BLE001 - the last one is reported
            last = e
        if time.monotonic() > deadline:
            raise AssertionError(f"{what} not met within {timeout}s; last: {last!r}")
        time.sleep(0.05)
