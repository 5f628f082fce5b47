"""Webhooks against the live Recall: an endpoint on a local receiver gets a
signed delivery of a change, which the check docs/webhooks.md shows for
Python accepts."""

import json
import pathlib
import re
import threading
import unittest
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Callable, Dict, List, Tuple

from recall_client import ConflictError, InvalidRequestError, NotFoundError

from .support import eventually, live, unique

DOC = pathlib.Path(__file__).resolve().parents[3] / "docs" / "webhooks.md"


def documented_check() -> Callable[..., bool]:
    """verify_webhook exactly as docs/webhooks.md shows it (its only Python block)."""
    blocks = re.findall(r"```python\n(.*?)```", DOC.read_text(encoding="utf-8"), re.S)
    if len(blocks) != 1:
        raise AssertionError(f"docs/webhooks.md: want one Python block, found {len(blocks)}")
    scope: Dict[str, Any] = {}
    exec(compile(blocks[0], str(DOC), "exec"), scope)  # noqa: S102 - the documented snippet
    return scope["verify_webhook"]


class Receiver:
    """A webhook endpoint on 127.0.0.1: it records each request's headers and
    raw body and answers 204."""

    def __init__(self) -> None:
        self.got: List[Tuple[Any, bytes]] = []
        self.lock = threading.Lock()
        rec = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                with rec.lock:
                    rec.got.append((self.headers, body))
                self.send_response(204)
                self.end_headers()

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.server.serve_forever, args=(0.02,), daemon=True).start()
        self.url = "http://127.0.0.1:%d/hooks/recall" % self.server.server_address[1]

    def of_user(self, user: str) -> List[Tuple[Any, bytes]]:
        """The requests whose change is about user."""
        with self.lock:
            return [(h, b) for h, b in self.got if json.loads(b).get("user_id") == user]

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


class WebhooksTest(unittest.TestCase):
    def setUp(self) -> None:
        self.recall = live()
        self.user = unique("hooked")
        self.receiver = Receiver()
        self.addCleanup(self.receiver.close)

    def test_signed_delivery_of_an_attribute_edit(self) -> None:
        wh = self.recall.create_webhook({"url": self.receiver.url, "types": ["attribute.*"]})
        self.addCleanup(self._remove, wh["id"])
        self.assertTrue(wh["id"].startswith("wh_"), wh)
        self.assertEqual((wh["url"], wh["types"]), (self.receiver.url, ["attribute.*"]))
        secret = wh["secret"]
        self.assertRegex(secret, r"^whsec_[0-9a-f]{48}$", "the server made the secret")

        listed = [w for w in self.recall.webhooks()["webhooks"] if w["id"] == wh["id"]]
        self.assertEqual(len(listed), 1)
        self.assertNotIn("secret", listed[0], "the secret is answered once, by the registration")

        self.recall.edit_attributes(self.user, [{"key": "location", "op": "put", "value": "Lisbon"}])
        headers, body = eventually(lambda: (self.receiver.of_user(self.user) or [None])[0], what="a delivery of the user's change")
        change = json.loads(body)
        self.assertEqual(change["type"], "attribute.asserted")
        self.assertEqual((change["attribute"]["key"], change["attribute"]["value"]), ("location", "Lisbon"))
        self.assertEqual(headers["Content-Type"], "application/json")
        self.assertEqual(headers["Recall-Webhook-Id"], change["id"])
        self.assertEqual(headers["Recall-Webhook-Type"], change["type"])

        verify_webhook = documented_check()
        self.assertTrue(verify_webhook(secret, headers, body), dict(headers))
        self.assertFalse(verify_webhook("whsec_" + "0" * 48, headers, body), "another secret")
        self.assertFalse(verify_webhook(secret, headers, body + b" "), "another body")
        self.assertFalse(verify_webhook(secret, headers, body, now=float(headers["Recall-Webhook-Timestamp"]) + 301), "too late")

        def delivered() -> Any:
            d = self.recall.webhook_deliveries(wh["id"], status="delivered", limit=10)
            return d if any(x["change_id"] == change["id"] for x in d["deliveries"]) else None

        d = eventually(delivered, what="the delivery recorded as delivered")
        self.assertEqual(d["webhook_id"], wh["id"])
        self.assertGreaterEqual(d["counts"]["delivered"], 1)
        mine = next(x for x in d["deliveries"] if x["change_id"] == change["id"])
        self.assertEqual((mine["type"], mine["user_id"], mine["status"]), ("attribute.asserted", self.user, "delivered"))
        self.assertGreaterEqual(mine["attempts"], 1)
        self.assertEqual(mine.get("last_status_code"), 204)
        self.assertEqual(self.recall.webhook_deliveries(wh["id"], status="failed")["deliveries"], [])

        with self.assertRaises(ConflictError) as cm:
            self.recall.redrive_webhook_delivery(wh["id"], change["id"])
        self.assertEqual(cm.exception.code, "not_failed")
        with self.assertRaises(NotFoundError):
            self.recall.redrive_webhook_delivery(wh["id"], "chg-none")

        self.recall.delete_webhook(wh["id"])
        self.assertNotIn(wh["id"], [w["id"] for w in self.recall.webhooks()["webhooks"]])
        with self.assertRaises(NotFoundError):
            self.recall.delete_webhook(wh["id"])
        with self.assertRaises(NotFoundError):
            self.recall.webhook_deliveries(wh["id"])

    def test_bad_endpoints_name_the_field(self) -> None:
        with self.assertRaises(InvalidRequestError) as cm:
            self.recall.create_webhook({"url": "ftp://hooks.example.com/recall", "types": ["*"]})
        self.assertIsNotNone(cm.exception.field("url"), cm.exception.fields)
        with self.assertRaises(InvalidRequestError) as cm:
            self.recall.create_webhook({"url": self.receiver.url, "types": []})
        self.assertIsNotNone(cm.exception.field("types"), cm.exception.fields)
        with self.assertRaises(InvalidRequestError) as cm:
            self.recall.webhook_deliveries(unique("wh"), status="lost")
        self.assertIsNotNone(cm.exception.field("status"), cm.exception.fields)

    def _remove(self, webhook_id: str) -> None:
        try:
            self.recall.delete_webhook(webhook_id)
        except NotFoundError:
            pass


if __name__ == "__main__":
    unittest.main()
