#!/usr/bin/env python3
"""A toy self-editing agent loop streaming one snapshot per turn to a running relay.

    npm start                                   # or: node bin/context-health.mjs serve
    python3 examples/python_harness.py --turns 30 --interval 0.5

then open the URL ``serve`` printed and pick the session. Needs only the standard
library and clients/python/context_health_client.py (copy that file next to your own
harness).
"""

import argparse
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "clients", "python"))
from context_health_client import RelayClient, scored  # noqa: E402


def relevance(text, turn):
    """Stand-in for the model call that scores a span against the current goal."""
    h = turn
    for ch in text:
        h = (h * 31 + ord(ch)) & 0xFFFFFFFF
    return round(0.2 + 0.8 * ((h % 1000) / 1000.0), 3)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--url", default="http://127.0.0.1:8787")
    ap.add_argument("--session", default="py-example-" + time.strftime("%Y%m%d%H%M%S"))
    ap.add_argument("--turns", type=int, default=30)
    ap.add_argument("--interval", type=float, default=0.5, help="seconds between turns")
    ap.add_argument("--token", default=None, help="if the relay has one (or env CONTEXT_HEALTH_TOKEN)")
    args = ap.parse_args()

    client = RelayClient(args.url, token=args.token)
    run = client.session(args.session, title="Python example: a toy self-editing agent")

    budget = 12
    goal = "Goal: keep the answer under 200 words. Ünïcödé is hashed as UTF-8."
    # a pinned canary: the constraint the agent must never lose (collapse detection)
    buffer = [dict(span_id="goal", text=goal, pinned=True, role="system", **scored(goal, 0.95))]
    next_id = 1
    for turn in range(1, args.turns + 1):
        # 1. the agent observes something new, scored (and hashed) when it is added
        text = "Observation %d: tool output about step %d." % (turn, turn)
        buffer.append(dict(span_id="m%d" % next_id, text=text, role="tool", **scored(text, relevance(text, turn))))
        next_id += 1

        # 2. every fifth turn a model call rewrites the oldest unpinned span; its score is
        #    recomputed on the new text, so the hash moves with it
        modified = []
        if turn % 5 == 0:
            target = next((s for s in buffer if not s.get("pinned")), None)
            if target is not None:
                summary = "Summary of %s: %s..." % (target["span_id"], target["text"][:24])
                target.update(text=summary, rewrite_count=0, **scored(summary, relevance(summary, turn)))
                modified.append(target["span_id"])

        # 3. prune the lowest-scored unpinned spans over budget
        pruned = []
        while len(buffer) > budget:
            victim = min((s for s in buffer if not s.get("pinned")), key=lambda s: s["score"])
            pruned.append(victim["span_id"])
            buffer.remove(victim)

        ack = run.snapshot(
            buffer,
            rewrite={"spans_modified": len(modified), "scores_invalidated": len(modified), "modified_span_ids": modified, "invalidated_span_ids": modified},
            pruned=pruned,
        )
        print("turn %d: %d spans, stored as seq %d%s" % (turn, len(buffer), ack.seq, " (already stored)" if ack.duplicate else ""))
        if turn < args.turns:
            time.sleep(args.interval)
    client.close()
    print("done: session %r at %s" % (args.session, args.url))


if __name__ == "__main__":
    main()
