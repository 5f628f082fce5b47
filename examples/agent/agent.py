#!/usr/bin/env python3
"""A minimal chat agent with Recall as its memory.

It keeps no history of its own: before every model call it asks Recall for
the context (recent turns, the list last shown, what the user's history
holds about the message) and puts it in the system prompt; after every turn
it stores what happened (the user's message; the assistant's reply with its
tool calls, their results and the numbered list it showed). When the user
answers with a number ("3"), Recall's selection route gives the real item
of the list shown, and the model is handed its title and ref, so it never
has to reconstruct (or invent) a URL.

One tool, search_films, searches the small catalog in films.json.

Configuration, from the environment:
  OPENAI_BASE_URL  an OpenAI-compatible API root [https://api.openai.com/v1]
  OPENAI_API_KEY   its key (may be empty for local servers)
  MODEL            the chat model [gpt-4o-mini]
  RECALL_URL       Recall's API [http://127.0.0.1:8080]
  RECALL_TENANT    the tenant [demo]
  RECALL_API_KEY   the tenant's key, when Recall runs with API_KEYS
  RECALL_USER_ID   the user [demo-user]
  RECALL_SESSION_ID the session [a new one each run; printed at start]

Run (standard library only; the client from clients/python):
  PYTHONPATH=clients/python python3 examples/agent/agent.py
"""

import json
import os
import re
import sys
import time
import urllib.request
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Dict, List, Mapping, Optional, TextIO, Tuple

from recall_client import NotFoundError, Recall, RecallError
from recall_client.types import Item, Selection, ToolCall, TurnInput

CATALOG_PATH = Path(__file__).with_name("films.json")

# How many model calls one user turn may take (tool calls, then the answer).
MAX_MODEL_CALLS = 4

INSTRUCTIONS = (
    "You are a film assistant. To find films, call search_films. The app shows the user "
    "the films it returns as a numbered list, so do not list them again: introduce them in a sentence. "
    "Never invent a film's ref or URL; quote refs exactly as given."
)

SEARCH_FILMS = {
    "type": "function",
    "function": {
        "name": "search_films",
        "description": "Search the film catalog by title, genre or director. Returns films with their ref.",
        "parameters": {
            "type": "object",
            "properties": {
                "query": {"type": "string", "description": "words to match, such as 'science fiction' or 'Tarkovsky'"},
                "limit": {"type": "integer", "minimum": 1, "maximum": 10},
            },
            "required": ["query"],
        },
    },
}

# A bare number, as a user answers a numbered list: "3", "3.", "#3".
NUMBER = re.compile(r"^\s*#?(\d{1,3})\.?\s*$")


@dataclass(frozen=True)
class Config:
    """The agent's settings; the defaults live here and nowhere else."""

    openai_base_url: str = "https://api.openai.com/v1"
    openai_api_key: str = ""
    model: str = "gpt-4o-mini"
    recall_url: str = "http://127.0.0.1:8080"
    recall_tenant: str = "demo"
    recall_api_key: str = ""
    user_id: str = "demo-user"
    session_id: str = ""

    @classmethod
    def from_env(cls, env: Mapping[str, str]) -> "Config":
        d = cls()
        return cls(
            openai_base_url=env.get("OPENAI_BASE_URL") or d.openai_base_url,
            openai_api_key=env.get("OPENAI_API_KEY") or d.openai_api_key,
            model=env.get("MODEL") or d.model,
            recall_url=env.get("RECALL_URL") or d.recall_url,
            recall_tenant=env.get("RECALL_TENANT") or d.recall_tenant,
            recall_api_key=env.get("RECALL_API_KEY") or d.recall_api_key,
            user_id=env.get("RECALL_USER_ID") or d.user_id,
            session_id=env.get("RECALL_SESSION_ID") or "chat-" + uuid.uuid4().hex[:12],
        )


class Model:
    """An OpenAI-compatible chat completions endpoint."""

    def __init__(self, base_url: str, api_key: str, model: str, timeout: float = 60.0) -> None:
        self.url = base_url.rstrip("/") + "/chat/completions"
        self.api_key = api_key
        self.model = model
        self.timeout = timeout

    def chat(self, messages: List[Dict[str, Any]], tools: List[Dict[str, Any]]) -> Dict[str, Any]:
        """The assistant message the model answers."""
        body = json.dumps({"model": self.model, "messages": messages, "tools": tools}).encode("utf-8")
        headers = {"Content-Type": "application/json"}
        if self.api_key:
            headers["Authorization"] = "Bearer " + self.api_key
        req = urllib.request.Request(self.url, data=body, headers=headers, method="POST")
        with urllib.request.urlopen(req, timeout=self.timeout) as resp:
            answer = json.load(resp)
        return answer["choices"][0]["message"]


def search_films(catalog: List[Dict[str, Any]], query: str, limit: int = 5) -> List[Item]:
    """Films whose title, genres or director hold the query's words, best match
    first (catalog order among equals), as items of a list to show."""
    words = [w for w in re.findall(r"\w+", query.lower()) if len(w) > 1]
    scored = []
    for i, film in enumerate(catalog):
        text = " ".join([film["title"], film["director"], *film["genres"]]).lower()
        score = sum(1 for w in words if w in text)
        if score:
            scored.append((-score, i, film))
    scored.sort(key=lambda s: (s[0], s[1]))
    return [
        {"ref": f["ref"], "title": f["title"], "attrs": {"year": f["year"], "director": f["director"]}}
        for _, _, f in scored[: max(1, min(limit, 10))]
    ]


class Agent:
    """One user's chat in one session, remembered by Recall."""

    def __init__(self, cfg: Config, recall: Recall, model: Model, catalog: List[Dict[str, Any]]) -> None:
        self.cfg = cfg
        self.recall = recall
        self.model = model
        self.catalog = catalog

    def handle(self, text: str) -> str:
        """Answer one user message; returns what the user is shown."""
        note, selection = self.resolve(text)
        # What to search the user's history for: the item picked, or the message.
        query = selection["item"].get("title", text) if selection else text
        ctx = self.recall.context(self.cfg.user_id, self.cfg.session_id, query=query)
        user_turn: TurnInput = {"user_id": self.cfg.user_id, "session_id": self.cfg.session_id, "role": "user", "content": text}
        if selection:
            user_turn["metadata"] = {"selection": {"n": selection["n"], "ref": selection["item"]["ref"]}}
        self.recall.add_turn(user_turn)

        system = INSTRUCTIONS + "\n\n" + ctx["prompt"] + ("\n\n" + note if note else "")
        messages: List[Dict[str, Any]] = [{"role": "system", "content": system}, {"role": "user", "content": text}]
        calls: List[ToolCall] = []
        shown: Optional[List[Item]] = None
        reply: Dict[str, Any] = {}
        for _ in range(MAX_MODEL_CALLS):
            reply = self.model.chat(messages, [SEARCH_FILMS])
            tool_calls = reply.get("tool_calls") or []
            if not tool_calls:
                break
            messages.append({"role": "assistant", "content": reply.get("content"), "tool_calls": tool_calls})
            for call in tool_calls:
                record, items = self.run_tool(call)
                calls.append(record)
                if items is not None:
                    shown = items  # the newest search is the list shown
                messages.append({"role": "tool", "tool_call_id": call["id"], "content": json.dumps(record.get("result"))})
        answer = reply.get("content") or ""

        turn: TurnInput = {"user_id": self.cfg.user_id, "session_id": self.cfg.session_id, "role": "assistant", "content": answer}
        if calls:
            turn["tool_calls"] = calls
        if shown is not None:
            turn["items"] = shown
        self.recall.add_turn(turn)
        lines = [answer] if answer else []
        lines += [f"{i}. {it.get('title', it['ref'])} ({it['ref']})" for i, it in enumerate(shown or [], 1)]
        return "\n".join(lines)

    def resolve(self, text: str) -> Tuple[str, Optional[Selection]]:
        """For a bare number, the item of the list shown and the note that hands
        it to the model; otherwise nothing."""
        m = NUMBER.match(text)
        if not m:
            return "", None
        n = int(m.group(1))
        try:
            sel = self.recall.selection(self.cfg.session_id, n)
        except NotFoundError as e:
            return (
                f"The user answered {n}, which matches no item of a list shown in this session ({e.message}). "
                "Ask which one they mean; do not guess."
            ), None
        item = sel["item"]
        return (
            f'The user picked item {n} of the list they were shown: "{item.get("title", "")}" (ref: {item["ref"]}). '
            "This is the real item: name it by this title and quote exactly this ref."
        ), sel

    def run_tool(self, call: Dict[str, Any]) -> Tuple[ToolCall, Optional[List[Item]]]:
        """Run one tool call; returns its record for Recall and the items it found."""
        fn = call.get("function") or {}
        started = time.monotonic()
        record: ToolCall = {"id": call.get("id", ""), "name": fn.get("name", "")}
        items: Optional[List[Item]] = None
        try:
            args = json.loads(fn.get("arguments") or "{}")
            record["arguments"] = args
            if record["name"] != "search_films":
                raise ValueError(f"no tool named {record['name']!r}")
            items = search_films(self.catalog, str(args.get("query", "")), int(args.get("limit", 5)))
            record["result"] = {"films": items}
            record["status"] = "ok"
        except (ValueError, TypeError) as e:
            record["result"] = {"error": str(e)}
            record["status"] = "error"
        record["duration_ms"] = int((time.monotonic() - started) * 1000)
        return record, items


def chat(agent: Agent, stdin: TextIO, stdout: TextIO, prompt: str = "") -> int:
    """The loop: a line in, an answer out, until end of input (``prompt`` is
    written to stderr before each line). The exit status is 1 when any turn
    failed."""
    failed = False
    while True:
        if prompt:
            print(prompt, end="", file=sys.stderr, flush=True)
        line = stdin.readline()
        if not line:
            return 1 if failed else 0
        text = line.strip()
        if not text:
            continue
        try:
            stdout.write("assistant> " + agent.handle(text) + "\n")
        except (RecallError, OSError, KeyError, ValueError) as e:
            failed = True
            print(f"error: {e}", file=sys.stderr)
        stdout.flush()


def main() -> int:
    cfg = Config.from_env(os.environ)
    recall = Recall(cfg.recall_url, cfg.recall_tenant, cfg.recall_api_key or None)
    model = Model(cfg.openai_base_url, cfg.openai_api_key, cfg.model)
    catalog = json.loads(CATALOG_PATH.read_text(encoding="utf-8"))
    print(f"session {cfg.session_id} of {cfg.user_id}; one message a line, Ctrl-D to end", file=sys.stderr)
    return chat(Agent(cfg, recall, model, catalog), sys.stdin, sys.stdout, "you> " if sys.stdin.isatty() else "")


if __name__ == "__main__":
    sys.exit(main())
