"""The client against a live Recall: every operation, with what the workers made of the turns."""

import os
import unittest
from datetime import datetime, timedelta, timezone

from recall_client import (
    AuthenticationError,
    ConflictError,
    InvalidRequestError,
    NotFoundError,
    Recall,
)

from .support import eventually, live, unique

FILMS = [
    {"ref": "/film/sol-7Q2X", "title": "Solaris", "attrs": {"year": 1972}},
    {"ref": "/film/stk-4M8B", "title": "Stalker", "attrs": {"year": 1979}},
    {"ref": "/film/arr-9K1C", "title": "Arrival", "attrs": {"year": 2016}},
]


class LiveTest(unittest.TestCase):
    def setUp(self) -> None:
        self.recall = live()
        self.user = unique("user")
        # An id with a slash, a space and Han characters: every path escapes it.
        self.session = unique("sess/映画 night")

    def turn(self, role: str, content: str, **kw):
        return dict(user_id=self.user, session_id=self.session, role=role, content=content, **kw)

    def stored(self, n: int) -> None:
        eventually(lambda: self.recall.session(self.session)["message_count"] >= n, what=f"{n} messages stored")

    def test_turn_shows_in_context_and_messages(self) -> None:
        acc = self.recall.add_turn(self.turn("user", "Which films did Tarkovsky make in the seventies?"))
        self.assertTrue(acc["id"], "the client gave the turn an id")
        self.assertGreater(acc["sequence"], 0)
        self.stored(1)

        page = self.recall.messages(self.session)
        self.assertEqual([m["id"] for m in page["messages"]], [acc["id"]])
        self.assertEqual(page["messages"][0]["content"], "Which films did Tarkovsky make in the seventies?")
        self.assertEqual(page["messages"][0]["session_id"], self.session)

        ctx = self.recall.context(self.user, self.session)
        self.assertEqual([m["id"] for m in ctx["window"]["messages"]], [acc["id"]])
        self.assertIn("User: Which films did Tarkovsky make in the seventies?", ctx["prompt"])

        sess = self.recall.session(self.session, recent=5)
        self.assertEqual(sess["message_count"], 1)
        self.assertEqual(sess["user_id"], self.user)
        self.assertIsNone(sess["summary"])

    def test_batch_and_pagination(self) -> None:
        start = datetime.now(timezone.utc) - timedelta(minutes=10)
        turns = [self.turn("user" if i % 2 == 0 else "assistant", f"message {i}", occurred_at=start + timedelta(seconds=i)) for i in range(5)]
        res = self.recall.add_turns(turns)
        ids = [a["id"] for a in res["accepted"]]
        self.assertEqual(len(set(ids)), 5)
        self.stored(5)

        first = self.recall.messages(self.session, limit=2)
        self.assertEqual(len(first["messages"]), 2)
        self.assertIn("next_cursor", first)
        second = self.recall.messages(self.session, limit=2, cursor=first["next_cursor"])
        self.assertEqual([m["content"] for m in second["messages"]], ["message 2", "message 3"])
        everything = list(self.recall.iter_messages(self.session, page_size=2))
        self.assertEqual([m["id"] for m in everything], ids, "event-time order, every page")
        self.assertEqual([m["content"] for m in everything], [f"message {i}" for i in range(5)])

        # Resending the same turns (same ids) stores nothing twice.
        again = self.recall.add_turns([dict(x, id=i) for x, i in zip(turns, ids)])
        self.assertTrue(all(a.get("duplicate") for a in again["accepted"]))
        self.assertEqual(self.recall.session(self.session)["message_count"], 5)

    def test_selection_returns_the_presented_ref(self) -> None:
        self.recall.add_turns([
            self.turn("user", "Recommend slow science fiction"),
            self.turn("assistant", "Three to start with:",
                      tool_calls=[{"id": "call_1", "name": "search_films", "arguments": {"q": "slow sci-fi"}, "result": {"total": 3}, "status": "ok", "duration_ms": 12}],
                      items=FILMS),
        ])
        self.stored(2)
        sel = self.recall.selection(self.session, 3)
        self.assertEqual(sel["item"], FILMS[2], "the item exactly as sent")
        self.assertEqual(sel["n"], 3)
        self.assertEqual(sel["list"]["count"], 3)

        ctx = self.recall.context(self.user, self.session)
        self.assertEqual([(e["n"], e["ref"]) for e in ctx["list"]["items"]], [(1, "/film/sol-7Q2X"), (2, "/film/stk-4M8B"), (3, "/film/arr-9K1C")])
        self.assertIn('3. "Arrival" — ref: /film/arr-9K1C', ctx["prompt"])
        # As of a moment before the session, nothing of it yet.
        before = self.recall.context(self.user, self.session, at=datetime(2020, 1, 1, tzinfo=timezone.utc))
        self.assertIsNone(before["list"])
        self.assertEqual(before["window"]["messages"], [])

        msgs = self.recall.messages(self.session)["messages"]
        self.assertEqual(msgs[1]["tool_calls"][0]["arguments"], {"q": "slow sci-fi"})
        self.assertEqual(msgs[1]["items"], FILMS)

        with self.assertRaises(NotFoundError) as cm:
            self.recall.selection(self.session, 4)
        self.assertEqual(cm.exception.code, "out_of_range")
        self.assertEqual(cm.exception.field("n"), "want 1 to 3")

        # The seen worker records what was shown: unseen answers the rest.
        un = eventually(lambda: (lambda u: u if u["unseen"] == ["/film/new-1"] else None)(
            self.recall.unseen(self.user, ["/film/arr-9K1C", "/film/new-1", "/film/sol-7Q2X"])), what="items recorded as seen")
        self.assertEqual(un["marked"], 0)
        seen = self.recall.seen(self.user)
        self.assertEqual(sorted(i["ref"] for i in seen["items"]), sorted(f["ref"] for f in FILMS))
        marked = self.recall.unseen(self.user, ["/film/new-1"], mark_notified=True)
        self.assertEqual((marked["unseen"], marked["marked"]), (["/film/new-1"], 1))
        self.assertEqual(self.recall.unseen(self.user, ["/film/new-1", "/film/new-2"])["unseen"], ["/film/new-2"])

    def test_wait_searchable_and_turn_status(self) -> None:
        res = self.recall.add_turns([self.turn("user", "My neighbour keeps bees on the roof of the old observatory")], wait="searchable", timeout=10)
        acc = res["accepted"][0]
        self.assertTrue(res["wait"]["reached"], res["wait"])
        self.assertEqual(res["wait"]["for"], "searchable")
        # Searchable as soon as the answer came: no polling.
        hits = self.recall.search(self.user, "bees observatory")["hits"]
        self.assertTrue(hits)
        self.assertEqual(hits[0]["source_id"], acc["id"])

        st = self.recall.turn_status(acc["id"])
        self.assertTrue(st["stored"] and st["searchable"], st)
        self.assertEqual((st["sequence"], st["session_id"], st["user_id"]), (acc["sequence"], self.session, self.user))
        self.assertEqual(st["workers"]["ingest"], {"done": True})
        self.assertEqual(st["workers"]["indexer"], {"done": True})
        self.assertEqual(self.recall.turn_status(acc["id"], seq=acc["sequence"])["id"], acc["id"])

        with self.assertRaises(NotFoundError):
            self.recall.turn_status(unique("never"))
        with self.assertRaises(InvalidRequestError) as cm:
            self.recall.add_turns([self.turn("user", "x")], wait="soon")
        self.assertIsNotNone(cm.exception.field("wait"), cm.exception.fields)
        with self.assertRaises(InvalidRequestError) as cm:
            self.recall.add_turns([self.turn("user", "x")], wait="stored", timeout="11s")
        self.assertIsNotNone(cm.exception.field("timeout"), cm.exception.fields)

    def test_bad_requests_name_the_field(self) -> None:
        with self.assertRaises(InvalidRequestError) as cm:
            self.recall.add_turn(self.turn("bot", "hello"))
        err = cm.exception
        self.assertEqual((err.status, err.code), (400, "invalid_request"))
        self.assertIsNotNone(err.field("role"), err.fields)

        with self.assertRaises(InvalidRequestError) as cm:
            self.recall.add_turns([self.turn("user", "fine"), self.turn("bot", "not fine")])
        self.assertIsNotNone(cm.exception.field("[1].role"), cm.exception.fields)
        self.assertIsNone(cm.exception.field("[0].role"))

        with self.assertRaises(InvalidRequestError) as cm:
            self.recall.context(self.user, self.session, lang="fr")
        self.assertEqual(cm.exception.field("lang"), "one of en, zh, auto")

        with self.assertRaises(InvalidRequestError) as cm:
            self.recall.context(self.user, self.session, at="2020-01-01")
        self.assertIsNotNone(cm.exception.field("at"), cm.exception.fields)

        with self.assertRaises(InvalidRequestError) as cm:
            self.recall.selection(self.session, 0)
        self.assertIsNotNone(cm.exception.field("n"))

        with self.assertRaises(NotFoundError) as cm:
            self.recall.session(unique("never"))
        self.assertEqual(cm.exception.code, "not_found")

        if os.environ.get("RECALL_API_KEY"):
            with self.assertRaises(AuthenticationError):
                Recall(self.recall.url, self.recall.tenant, "not-a-key-of-this-server").session(self.session)

    def test_dot_ids(self) -> None:
        # "." and ".." cannot be a segment of a URL path: refused as ids,
        # in a turn and in a path, naming the field.
        for dots in (".", ".."):
            with self.assertRaises(InvalidRequestError) as cm:
                self.recall.add_turn({"user_id": dots, "session_id": dots, "role": "user", "content": "dots"})
            self.assertIn("cannot be an id", cm.exception.field("user_id") or "", cm.exception.fields)
            self.assertIsNotNone(cm.exception.field("session_id"), cm.exception.fields)
            with self.assertRaises(InvalidRequestError) as cm:
                self.recall.messages(dots)
            self.assertIn("cannot be an id", cm.exception.field("session_id") or "", cm.exception.fields)
            with self.assertRaises(InvalidRequestError) as cm:
                self.recall.forget_user(dots)
            self.assertIsNotNone(cm.exception.field("user_id"), cm.exception.fields)

    def test_odd_ids_reach_every_route(self) -> None:
        # Every id a turn may have is one escaped path segment: "/" and
        # "%2F" too, which a router takes for a slash unless escaped.
        for oid in ("/", "a/b", "%2F", "..x", "x..", "a b", "?", "#", "名字"):
            with self.subTest(id=oid):
                acc = self.recall.add_turns(
                    [{"id": oid, "user_id": oid, "session_id": oid, "role": "assistant", "content": "hello " + oid,
                      "items": [{"ref": "/a", "title": "A"}]}],
                    wait="searchable",
                )
                self.assertTrue(acc["wait"]["reached"], acc)
                self.assertEqual(self.recall.turn_status(oid)["session_id"], oid)
                self.assertEqual(self.recall.session(oid)["user_id"], oid)
                self.assertEqual(self.recall.messages(oid)["messages"][0]["session_id"], oid)
                self.assertEqual(self.recall.selection(oid, 1)["item"]["ref"], "/a")
                self.assertEqual(self.recall.context(oid, oid)["window"]["messages"][0]["id"], oid)
                self.assertTrue(self.recall.search(oid, "hello")["hits"])
                # The seen registry is the seen worker's, which the wait does not wait for.
                eventually(lambda: self.recall.unseen(oid, ["/a", "/z"])["unseen"] == ["/z"], what=f"{oid}: /a seen")
                self.assertEqual(self.recall.seen(oid)["user_id"], oid)
                self.assertEqual(self.recall.attributes(oid)["user_id"], oid)
                self.assertEqual(self.recall.edit_attributes(oid, [{"key": "name", "op": "put", "value": "Ada"}])["user_id"], oid)
                self.assertEqual(self.recall.refresh_interests(oid)["user_id"], oid)
                self.assertIn(self.recall.summarize(oid)["status"], ("queued", "current"))
                self.recall.delete_session(oid)
                with self.assertRaises(NotFoundError):
                    self.recall.session(oid)
                self.assertEqual(self.recall.forget_user(oid)["user_id"], oid)

    def test_unknown_turn_fields_are_refused(self) -> None:
        with self.assertRaises(InvalidRequestError) as cm:
            self.recall.add_turns([self.turn("user", "fine"), self.turn("assistant", "here", itmes=[{"ref": "/a"}])])  # type: ignore[call-arg]
        self.assertIn("metadata", cm.exception.field("[1].itmes") or "", cm.exception.fields)

    def test_long_query_context_and_search(self) -> None:
        self.recall.add_turns([
            self.turn("user", "My grandmother grew quinces in Andalusia"),
            self.turn("assistant", "Quinces make a fine membrillo."),
        ])
        self.stored(2)
        def both_indexed():
            # The indexer may store one of the turns a batch before the other.
            hits = self.recall.search(self.user, "quinces")["hits"]
            return hits if sum(h["kind"] == "message" for h in hits) == 2 else None

        found = eventually(both_indexed, what="both turns indexed")
        self.assertIn("quinces", found[0]["text"].lower())
        res = self.recall.search(self.user, "quinces", k=1, role=["user"], kind="message")
        self.assertEqual(len(res["hits"]), 1)
        self.assertEqual(res["hits"][0]["role"], "user")
        res = self.recall.search(self.user, "grandmother", k=1, neighbors=2)
        self.assertEqual(res["hits"][0]["next"]["content"], "Quinces make a fine membrillo.")
        self.assertNotIn("later", res["hits"][0])

        # A query too long for a URL goes in a POST body and is still searched.
        long_query = "quinces " + "and more words " * 200
        ctx = self.recall.context(self.user, unique("other-session"), query=long_query, max_recalled=5)
        self.assertEqual(ctx["recalled"]["query"], long_query)
        self.assertTrue(any("quince" in h["text"].lower() for h in ctx["recalled"]["hits"]), ctx["recalled"])
        self.assertTrue(self.recall.search(self.user, long_query)["hits"])

    def test_durations_take_seconds(self) -> None:
        # The API answers the window's ttl as a Go duration: what it read.
        for ttl, want in ((5400, "1h30m0s"), (2.5, "2.5s"), (timedelta(hours=2), "2h0m0s"), ("45m", "45m0s")):
            self.assertEqual(self.recall.context(self.user, self.session, ttl=ttl)["ttl"], want, ttl)
        self.add_and_summarize(wait=20)
        # Nothing new since: current, however the wait is written.
        for wait in (5, 0.5, timedelta(seconds=1), "1s"):
            self.assertEqual(self.recall.summarize(self.session, wait=wait)["status"], "current", wait)
        for bad, err in ((-1, ValueError), (True, TypeError), (float("inf"), ValueError)):
            with self.assertRaises(err) as cm:
                self.recall.summarize(self.session, wait=bad)
            self.assertTrue(str(cm.exception).startswith("wait: "), cm.exception)
        with self.assertRaises(InvalidRequestError) as cm:
            self.recall.summarize(self.session, wait=31)
        self.assertIsNotNone(cm.exception.field("wait"), cm.exception)

    def add_and_summarize(self, **kw) -> None:
        self.recall.add_turns([
            self.turn("user", "I am reading 《三体》 again and love hard science fiction"),
            self.turn("assistant", "Then try Greg Egan next."),
        ])
        self.stored(2)
        res = self.recall.summarize(self.session, **kw)
        self.assertEqual(res["status"], "summarized", res)
        self.assertTrue(res["summary"]["summary"])

    def test_summary_interests_and_forgetting(self) -> None:
        self.add_and_summarize(wait="20s")
        self.assertEqual(self.recall.summarize(self.session)["status"], "current")

        facts = eventually(lambda: self.recall.interests(self.user)["facts"], what="a fact extracted")
        self.assertIn("三体", [f["value"] for f in facts])
        refresh = self.recall.refresh_interests(self.user)
        self.assertEqual(refresh["user_id"], self.user)
        # The former names still answer, warning that they are deprecated.
        with self.assertWarns(DeprecationWarning):
            old = self.recall.profile(self.user, limit=1)
        self.assertEqual(old["user_id"], self.user)
        self.assertEqual(len(old["facts"]), 1)
        with self.assertWarns(DeprecationWarning):
            self.assertEqual(self.recall.refresh_profile(self.user)["user_id"], self.user)
        with self.assertRaises(ConflictError) as cm:
            self.recall.recommendations(unique("no-profile-user"))
        self.assertEqual(cm.exception.code, "no_profile")

        self.recall.delete_session(self.session)
        with self.assertRaises(NotFoundError):
            self.recall.session(self.session)
        report = self.recall.forget_user(self.user)
        self.assertEqual(report["user_id"], self.user)
        self.assertIn("facts", report["rows"])
        with self.assertRaises(NotFoundError):
            self.recall.interests(self.user)

    def test_attributes_set_explicitly_reach_every_context(self) -> None:
        acc = self.recall.edit_attributes(
            self.user,
            [
                {"key": "location", "op": "put", "value": "Paris"},
                {"key": "allergies", "op": "put", "value": "peanuts"},
            ],
            occurred_at=datetime(2026, 11, 1, tzinfo=timezone.utc),
        )
        self.assertEqual(len(acc["accepted"]), 2)
        self.recall.edit_attributes(self.user, [{"key": "location", "op": "put", "value": "Berlin"}])
        # Each edit is stored on its own: Berlin and peanuts may be current
        # before Paris, made earlier, is stored as superseded.
        attrs = eventually(
            lambda: (
                lambda a: a
                if [v["value"] for v in a["current"]] == ["Berlin", "peanuts"] and len(a["history"]) == 3
                else None
            )(self.recall.attributes(self.user, history=True)),
            what="the edits stored",
        )
        self.assertEqual(
            sorted((v["value"], v["status"]) for v in attrs["history"]),
            [("Berlin", "current"), ("Paris", "superseded"), ("peanuts", "current")],
        )
        ctx = self.recall.context(self.user, unique("new-session"), query="any dessert ideas for the weekend?")
        self.assertEqual([e["key"] for e in ctx["attributes"]["about"]], ["location", "allergies"])
        # The part's old name carries the same, for one release.
        self.assertEqual(ctx["profile"], ctx["attributes"])
        self.assertEqual(ctx["budget"]["parts"]["profile"], ctx["budget"]["parts"]["attributes"])
        self.assertIn("allergic to: peanuts", ctx["prompt"])
        self.assertNotIn("Paris", ctx["prompt"])
        with self.assertRaises(InvalidRequestError) as cm:
            self.recall.edit_attributes(self.user, [{"key": "shoe_size", "op": "put", "value": "42"}])
        self.assertIsNotNone(cm.exception.field("edits[0].key"))


if __name__ == "__main__":
    unittest.main()
