"""Retries against a small local server that fails on purpose: a 503, a
dropped connection. Every attempt must carry the same ids."""

import json
import socket
import threading
import unittest
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Dict, List, Tuple

from recall_client import ConflictError, ConnectionFailedError, InvalidRequestError, Recall, Retry, UnavailableError

# What the fake answers, by attempt: (status, body) or None to drop the connection.
Script = List[Any]


class FakeRecall:
    """An HTTP server that answers scripted replies and records each request."""

    def __init__(self, script: Script) -> None:
        self.script = list(script)
        self.requests: List[Dict[str, Any]] = []
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def handle_one(self) -> None:
                n = int(self.headers.get("Content-Length") or 0)
                body = json.loads(self.rfile.read(n)) if n else None
                fake.requests.append({"method": self.command, "path": self.path, "headers": self.headers, "body": body})
                step = fake.script.pop(0) if fake.script else (500, {"error": {"code": "internal", "message": "script ran out"}})
                if step is None:
                    self.close_connection = True
                    self.connection.close()  # no answer at all
                    return
                status, out = step(body) if callable(step) else step
                raw = json.dumps(out).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(raw)))
                if status == 503:
                    self.send_header("Retry-After", "0")
                self.end_headers()
                self.wfile.write(raw)

            do_GET = do_POST = do_DELETE = handle_one

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.server.serve_forever, args=(0.02,), daemon=True).start()
        self.url = "http://127.0.0.1:%d" % self.server.server_address[1]

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def accept_all(body: Any) -> Tuple[int, Any]:
    turns = body if isinstance(body, list) else [body]
    return 202, {"accepted": [{"id": x["id"], "sequence": i + 1} for i, x in enumerate(turns)]}


UNAVAILABLE = (503, {"error": {"code": "unavailable", "message": "some turns were not stored; resend them (ids are deduplicated)"},
                     "accepted": [], "failed": ["x"]})


class RetryTest(unittest.TestCase):
    def fake(self, *script: Any) -> Tuple[FakeRecall, Recall, List[float]]:
        f = FakeRecall(list(script))
        self.addCleanup(f.close)
        waits: List[float] = []
        client = Recall(f.url, "acme", "key-0123456789abcdef", retry=Retry(attempts=3, initial=0.01, max_delay=0.05), sleep=waits.append)
        return f, client, waits

    def test_503_then_202_resends_the_same_ids(self) -> None:
        f, client, waits = self.fake(UNAVAILABLE, accept_all)
        res = client.add_turns([
            {"user_id": "u", "session_id": "s", "role": "user", "content": "one"},
            {"user_id": "u", "session_id": "s", "role": "assistant", "content": "two"},
        ])
        self.assertEqual(len(f.requests), 2)
        first, second = (r["body"] for r in f.requests)
        ids = [x["id"] for x in first]
        self.assertEqual(len(set(ids)), 2, "the client generated an id per turn")
        self.assertTrue(all(ids))
        self.assertEqual(first, second, "the retry sent the same turns: same ids, same times")
        self.assertEqual([a["id"] for a in res["accepted"]], ids)
        self.assertEqual(len(waits), 1)
        self.assertLessEqual(waits[0], 0.05, "the backoff is bounded")
        h = f.requests[1]["headers"]
        self.assertEqual(h["X-Tenant-ID"], "acme")
        self.assertEqual(h["Authorization"], "Bearer key-0123456789abcdef")

    def test_dropped_connection_is_retried_with_the_same_id(self) -> None:
        f, client, _ = self.fake(None, accept_all)
        acc = client.add_turn({"user_id": "u", "session_id": "s", "role": "user", "content": "hello", "id": "mine-1"})
        self.assertEqual(acc["id"], "mine-1")
        self.assertEqual([r["body"]["id"] for r in f.requests], ["mine-1", "mine-1"])

    def test_gives_up_after_the_attempts(self) -> None:
        f, client, waits = self.fake(UNAVAILABLE, UNAVAILABLE, UNAVAILABLE, accept_all)
        with self.assertRaises(UnavailableError) as cm:
            client.add_turn({"user_id": "u", "session_id": "s", "role": "user", "content": "hello"})
        self.assertEqual(len(f.requests), 3)
        self.assertEqual(len({r["body"]["id"] for r in f.requests}), 1)
        self.assertEqual(cm.exception.failed, ["x"])
        self.assertEqual(cm.exception.status, 503)
        self.assertEqual(len(waits), 2)
        self.assertTrue(all(w <= 0.05 for w in waits))

        f, client, _ = self.fake(None, None, None)
        with self.assertRaises(ConnectionFailedError) as cm2:
            client.session("s")
        self.assertEqual(cm2.exception.attempts, 3)

    def test_other_errors_are_not_retried(self) -> None:
        f, client, _ = self.fake((400, {"error": {"code": "invalid_request", "message": "bad", "fields": [{"field": "role", "message": "unknown"}]}}))
        with self.assertRaises(InvalidRequestError) as cm:
            client.add_turn({"user_id": "u", "session_id": "s", "role": "bot", "content": "x"})
        self.assertEqual(len(f.requests), 1)
        self.assertEqual(cm.exception.fields, [{"field": "role", "message": "unknown"}])
        self.assertEqual(cm.exception.field("role"), "unknown")

    def test_marking_unseen_keeps_its_notification_id(self) -> None:
        f, client, _ = self.fake(UNAVAILABLE, (200, {"user_id": "u", "unseen": ["/a"], "marked": 1}))
        client.unseen("u", ["/a"], mark_notified=True)
        ids = [r["body"]["notification_id"] for r in f.requests]
        self.assertEqual(len(ids), 2)
        self.assertTrue(ids[0])
        self.assertEqual(ids[0], ids[1])

    def test_delete_retried_after_a_lost_answer(self) -> None:
        # The first delete went through but its answer was lost; the retry finds nothing.
        f, client, _ = self.fake(None, (404, {"error": {"code": "not_found", "message": "no such session"}}))
        client.delete_session("s")
        self.assertEqual([r["method"] for r in f.requests], ["DELETE", "DELETE"])

    def test_registering_a_webhook_is_not_repeated_once_sent(self) -> None:
        # A connection broken after the request was sent: the endpoint may
        # be registered already, and a second request would register another.
        f, client, _ = self.fake(None, (201, {"id": "wh_2", "url": "https://x.test/", "types": ["*"], "created_at": "", "secret": "s"}))
        with self.assertRaises(ConnectionFailedError) as cm:
            client.create_webhook({"url": "https://x.test/", "types": ["*"]})
        self.assertEqual(len(f.requests), 1)
        self.assertEqual(cm.exception.attempts, 1)

        # A 503 registered nothing: it is retried.
        wh = {"id": "wh_1", "url": "https://x.test/", "types": ["*"], "created_at": "2026-04-01T09:00:00Z", "secret": "whsec_1"}
        f, client, _ = self.fake(UNAVAILABLE, (201, wh))
        self.assertEqual(client.create_webhook({"url": "https://x.test/", "types": ["*"]}), wh)
        self.assertEqual([r["body"] for r in f.requests], [{"url": "https://x.test/", "types": ["*"]}] * 2)

    def test_registering_a_webhook_is_retried_when_refused(self) -> None:
        # Nothing listens on the port: every attempt is refused, none received.
        s = socket.socket()
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
        s.close()
        waits: List[float] = []
        client = Recall("http://127.0.0.1:%d" % port, "acme", retry=Retry(attempts=3, initial=0.01, max_delay=0.05), sleep=waits.append)
        with self.assertRaises(ConnectionFailedError) as cm:
            client.create_webhook({"url": "https://x.test/", "types": ["*"]})
        self.assertEqual(cm.exception.attempts, 3)
        self.assertEqual(len(waits), 2)

    def test_webhook_routes_escape_their_ids(self) -> None:
        f, client, _ = self.fake(
            (200, {"webhook_id": "wh_1", "counts": {"pending": 0, "delivered": 0, "failed": 0}, "deliveries": []}),
            (409, {"error": {"code": "not_failed", "message": "delivered, not failed"}}),
            None,
            (404, {"error": {"code": "not_found", "message": "no webhook wh/1"}}),
        )
        client.webhook_deliveries("wh/1", status="failed", limit=5)
        with self.assertRaises(ConflictError) as cm:
            client.redrive_webhook_delivery("wh/1", "chg-1")
        self.assertEqual(cm.exception.code, "not_failed")
        # The first delete went through but its answer was lost; the retry finds nothing.
        client.delete_webhook("wh/1")
        self.assertEqual(
            [(r["method"], r["path"], r["body"]) for r in f.requests],
            [
                ("GET", "/v1/webhooks/wh%2F1/deliveries?status=failed&limit=5", None),
                ("POST", "/v1/webhooks/wh%2F1/deliveries/chg-1/redrive", None),
                ("DELETE", "/v1/webhooks/wh%2F1", None),
                ("DELETE", "/v1/webhooks/wh%2F1", None),
            ],
        )


class ParsesAsPython39Test(unittest.TestCase):
    """The package claims Python >= 3.9: its syntax must be 3.9's."""

    def test_grammar(self) -> None:
        import ast
        import pathlib

        import recall_client

        for p in pathlib.Path(recall_client.__file__).parent.glob("*.py"):
            ast.parse(p.read_text(encoding="utf-8"), filename=str(p), feature_version=(3, 9))


if __name__ == "__main__":
    unittest.main()
