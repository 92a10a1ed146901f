"""Context Health harness client: stream an agent's context buffer to a relay.

Python 3.8+ standard library only: ``pip install context-health-client`` (or
``pip install ./clients/python`` from a clone), or copy this folder next to your harness.

    from context_health_client import RelayClient, scored

    client = RelayClient("http://127.0.0.1:8787")          # token=... if the relay has one
    run = client.session("run-42", title="my agent")        # once, before the first turn
    for turn in range(1, 100):
        spans = [dict(span_id="m1", text=t, **scored(t, 0.8))]   # hash the text you scored
        run.snapshot(spans, rewrite={"spans_modified": 0, "scores_invalidated": 0})

Each call POSTs NDJSON to /api/ingest and returns once the relay has stored the message
(docs/relay-protocol.md). If the connection drops or the relay is restarting, the same
body is sent again with exponential backoff; the relay acknowledges a message it had
already stored with ``duplicate=True`` and its original seq, so a turn is never recorded
twice. A message the relay rejects raises RelayRejected and is not retried.

Compact wire (contract §7, version 1.1; ``compact=False`` turns it off for an older
relay): ``session()`` declares ``"wire": "1.1"`` in the header, and each snapshot of such
a session leaves out every span text equal (as a string) to the text this client sent for
the same span_id in the session's previous snapshot, naming that snapshot's turn in
``base_turn``. The first new snapshot after a request had to be sent again (a dropped
connection, a restarting relay), and after a rejected snapshot, is whole.

The relay analyses each snapshot and its ack carries that turn's verdict (contract §7):
``ack.verdict`` is a dict ``{"turn", "action", "prune_safe", "recompute", "drop",
"signals"}`` (None for a header, or for a retry older than the relay remembers). Act on it
before the next prune: ``freeze`` = stop pruning, ``recompute`` = score the listed spans
again, ``drop`` = remove the listed spans. ``RelayClient(on_verdict=f)`` calls
``f(verdict, ack)`` for each one as well.
"""

import hashlib
import http.client
import json
import os
import random
import time
from datetime import datetime, timezone
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple, cast
from urllib.parse import urlsplit

__version__ = "0.1.0"

#: a wire message (contract §2): a session header or a snapshot, as a dict
Message = Dict[str, Any]
#: a turn's verdict as the relay's ack carries it (contract §7)
Verdict = Dict[str, Any]

__all__ = [
    "RelayClient",
    "Session",
    "Ack",
    "RelayRejected",
    "RelayUnavailable",
    "text_sha256",
    "scored",
    "__version__",
]


def text_sha256(text: str) -> str:
    """contract §2 text_sha256: sha256 of the span's text as UTF-8, 64 lowercase hex.

    Compute it when you compute the score, on the exact text you scored, and keep it
    with the score. Hashing at send time would hide the stale scores the dashboard finds.
    """
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def scored(text: str, score: Optional[float]) -> Dict[str, Any]:
    """A score bound to the text it was computed on: {"score": ..., "text_sha256": ...}."""
    return {"score": score, "text_sha256": text_sha256(text)}


class Ack(object):
    """The relay stored the message as ``seq`` of ``session_id``."""

    __slots__ = ("session_id", "seq", "turn", "duplicate", "verdict")

    def __init__(self, session_id: str, seq: int, turn: Optional[int], duplicate: bool, verdict: Optional[Verdict] = None) -> None:
        self.session_id = session_id
        self.seq = seq
        self.turn = turn
        self.duplicate = duplicate
        #: the turn's verdict (contract §5) as the relay's analysis gave it, or None
        self.verdict = verdict

    def __repr__(self) -> str:
        return "Ack(session_id=%r, seq=%d, turn=%r, duplicate=%r, verdict=%r)" % (self.session_id, self.seq, self.turn, self.duplicate, self.verdict)


class RelayRejected(Exception):
    """The relay refused one or more messages; ``errors`` is a list of (index, reason).

    ``accepted`` holds the Acks of the messages in the same call that were stored.
    """

    def __init__(self, errors: List[Tuple[int, str]], accepted: List["Ack"]) -> None:
        self.errors = errors
        self.accepted = accepted
        Exception.__init__(self, "; ".join("message %d: %s" % (i + 1, m) for i, m in errors))


class RelayUnavailable(Exception):
    """No answer from the relay within ``give_up_after`` seconds, or it refused the token."""


_RETRY_STATUS = (408, 429, 500, 502, 503, 504)


class RelayClient(object):
    def __init__(
        self,
        url: str = "http://127.0.0.1:8787",
        token: Optional[str] = None,
        timeout: float = 30.0,
        give_up_after: float = 300.0,
        initial_backoff: float = 0.25,
        max_backoff: float = 10.0,
        compact: bool = True,
        on_verdict: Optional[Callable[[Verdict, "Ack"], None]] = None,
    ) -> None:
        parts = urlsplit(url if "://" in url else "http://" + url)
        if parts.scheme not in ("http", "https"):
            raise ValueError("url must be http:// or https://, got %r" % url)
        self._https = parts.scheme == "https"
        self._host = parts.hostname or "127.0.0.1"
        self._port = parts.port or (443 if self._https else 80)
        self._path = parts.path.rstrip("/") + "/api/ingest"
        self._token = token if token is not None else os.environ.get("CONTEXT_HEALTH_TOKEN") or None
        self._timeout = timeout
        self._give_up_after = give_up_after
        self._initial_backoff = initial_backoff
        self._max_backoff = max_backoff
        self._conn: Optional[http.client.HTTPConnection] = None
        self._on_verdict = on_verdict
        #: how many times a request was sent again after a dropped connection
        self.retries = 0
        self._compact = compact
        # contract §7 compact wire: per declared session, (turn, {span_id: text}) last sent
        self._sent_texts: Dict[Any, Optional[Tuple[Any, Dict[str, str]]]] = {}

    # -- the messages of the wire format -------------------------------------------------

    def session(
        self,
        session_id: str,
        title: Optional[str] = None,
        config: Optional[Dict[str, Any]] = None,
        started_at: Optional[str] = None,
        first_turn: int = 1,
    ) -> "Session":
        """Send the session header (optional, before the first snapshot); returns a Session."""
        header: Message = {"type": "session", "session_id": session_id}
        if title is not None:
            header["title"] = title
        header["started_at"] = started_at or _now()
        if self._compact:
            header["wire"] = COMPACT_WIRE
        if config:
            header["config"] = config
        self.send(header)
        return Session(self, session_id, first_turn)

    def snapshot(
        self,
        session_id: str,
        turn: int,
        spans: List[Dict[str, Any]],
        rewrite: Optional[Dict[str, int]] = None,
        pruned: Optional[Sequence[str]] = None,
        ts: Optional[str] = None,
        **extra: Any,
    ) -> "Ack":
        """One snapshot: the live buffer at the end of ``turn``. Returns its Ack."""
        message: Message = {"type": "snapshot", "session_id": session_id, "turn": turn, "ts": ts or _now(), "spans": spans}
        if rewrite is not None:
            message["rewrite"] = rewrite
        if pruned:
            message["pruned"] = list(pruned)
        message.update(extra)
        return self.send(message)

    def send(self, message: Message) -> "Ack":
        """Any wire message (a dict). Returns its Ack once the relay has stored it."""
        return self.send_many([message])[0]

    def send_many(self, messages: List[Message]) -> List["Ack"]:
        """Several messages in one request, stored in order. Returns their Acks."""
        lines = [_encode(self._compacted(m)) for m in messages]
        if not lines:
            return []
        body = b"\n".join(lines) + b"\n"
        retries = self.retries
        reply = self._post(body)
        if self.retries != retries:
            # sent again: the relay may have restarted; the next new snapshots are whole
            self._forget_texts()
        acks: List[Optional[Ack]] = [None] * len(lines)
        for a in reply.get("accepted", []):
            acks[a["line"] - 1] = Ack(a["session_id"], a["seq"], a.get("turn"), a.get("duplicate", False), a.get("verdict"))
        if self._on_verdict is not None:
            for ack in acks:
                if ack is not None and ack.verdict is not None:
                    self._on_verdict(ack.verdict, ack)
        errors = [(e["line"] - 1, e["message"]) for e in reply.get("errors", [])]
        if errors:
            # a rejected snapshot is not the relay's previous one: send the next whole
            for index, _ in errors:
                sid = messages[index].get("session_id") if isinstance(messages[index], dict) else None
                if sid in self._sent_texts:
                    self._sent_texts[sid] = None
            raise RelayRejected(errors, [a for a in acks if a is not None])
        # the relay answers every line, accepted or in errors (raised above)
        return cast(List[Ack], acks)

    def _forget_texts(self) -> None:
        for sid in self._sent_texts:
            self._sent_texts[sid] = None

    def _compacted(self, message: Message) -> Message:
        """contract §7: the snapshot with texts equal to the last sent ones left out."""
        if not self._compact or not isinstance(message, dict):
            return message
        sid = message.get("session_id")
        if message.get("type") == "session":
            if message.get("wire") == COMPACT_WIRE and sid not in self._sent_texts:
                self._sent_texts[sid] = None
            return message
        if message.get("type") != "snapshot" or sid not in self._sent_texts or not isinstance(message.get("spans"), list):
            return message
        previous = self._sent_texts[sid]
        texts: Dict[str, str] = {}
        spans: List[Dict[str, Any]] = []
        omitted = 0
        for span in message["spans"]:
            if not isinstance(span, dict) or not isinstance(span.get("text"), str) or not isinstance(span.get("span_id"), str):
                self._sent_texts[sid] = None
                return message
            texts[span["span_id"]] = span["text"]
            # the strings themselves are compared, never a hash: every real rewrite is sent
            if previous is not None and previous[1].get(span["span_id"]) == span["text"]:
                spans.append({k: v for k, v in span.items() if k != "text"})
                omitted += 1
            else:
                spans.append(span)
        self._sent_texts[sid] = (message.get("turn"), texts)
        if omitted == 0:
            return message
        out = dict(message)
        out["spans"] = spans
        out["base_turn"] = previous[0] if previous is not None else None
        return out

    def close(self) -> None:
        if self._conn is not None:
            self._conn.close()
            self._conn = None

    def __enter__(self) -> "RelayClient":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- transport ------------------------------------------------------------------------

    def _post(self, body: bytes) -> Dict[str, Any]:
        headers = {"Content-Type": "application/x-ndjson", "Content-Length": str(len(body))}
        if self._token:
            headers["Authorization"] = "Bearer " + self._token
        started = time.monotonic()
        attempt = 0
        last = ""
        while True:
            try:
                conn = self._connection()
                conn.request("POST", self._path, body=body, headers=headers)
                response = conn.getresponse()
                payload = response.read()
                status = response.status
                if response.getheader("connection", "").lower() == "close":
                    self.close()
                if status in (200, 400):
                    reply: Dict[str, Any] = json.loads(payload.decode("utf-8"))
                    return reply
                if status in (401, 403, 404, 413, 415):
                    raise RelayUnavailable("the relay at %s:%d refused the request: %d %s" % (self._host, self._port, status, _reason(payload)))
                last = "HTTP %d %s" % (status, _reason(payload))
                if status not in _RETRY_STATUS:
                    raise RelayUnavailable("unexpected answer from the relay: " + last)
            except (OSError, http.client.HTTPException) as e:
                # connection refused or reset, timeout, relay restarting: the body may or
                # may not have been stored, so it is sent again; the relay dedupes it
                last = "%s: %s" % (type(e).__name__, e)
                self.close()
            waited = time.monotonic() - started
            if waited > self._give_up_after:
                raise RelayUnavailable("no answer from the relay at %s:%d for %.0f s (last: %s)" % (self._host, self._port, waited, last))
            delay = min(self._max_backoff, self._initial_backoff * (2 ** attempt)) * (0.5 + random.random() / 2)
            attempt += 1
            self.retries += 1
            time.sleep(delay)

    def _connection(self) -> http.client.HTTPConnection:
        if self._conn is None:
            cls = http.client.HTTPSConnection if self._https else http.client.HTTPConnection
            self._conn = cls(self._host, self._port, timeout=self._timeout)
        return self._conn


class Session(object):
    """One session: ``snapshot()`` once per turn, turns numbered from ``first_turn``."""

    def __init__(self, client: RelayClient, session_id: str, first_turn: int = 1) -> None:
        self.client = client
        self.session_id = session_id
        self.turn = first_turn

    def snapshot(
        self,
        spans: List[Dict[str, Any]],
        rewrite: Optional[Dict[str, int]] = None,
        pruned: Optional[Sequence[str]] = None,
        ts: Optional[str] = None,
        turn: Optional[int] = None,
        **extra: Any,
    ) -> Ack:
        if turn is None:
            turn = self.turn
        ack = self.client.snapshot(self.session_id, turn, spans, rewrite=rewrite, pruned=pruned, ts=ts, **extra)
        self.turn = turn + 1
        return ack


COMPACT_WIRE = "1.1"


def _encode(message: Message) -> bytes:
    # allow_nan=False: NaN/Infinity are not JSON; send None for an absent score.
    # ensure_ascii (the default): non-ASCII is escaped as \uXXXX, which the relay and the
    # dashboard decode about three times faster than raw UTF-8.
    return json.dumps(message, ensure_ascii=True, allow_nan=False, separators=(",", ":")).encode("ascii")


def _now() -> str:
    return datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"


def _reason(payload: bytes) -> str:
    try:
        return str(json.loads(payload.decode("utf-8")).get("error", ""))
    except Exception:
        return payload[:200].decode("utf-8", "replace")
