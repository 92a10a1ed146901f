#!/usr/bin/env python3
"""A toy self-editing agent loop streaming one snapshot per turn to a running relay.

It acts on the verdict the relay sends back in each ack (contract §5, §7): it freezes
pruning on ``freeze``, scores the listed spans again on ``recompute``, and removes the
listed spans on ``drop``.

    npm start                                   # or: node bin/context-health.mjs serve
    python3 examples/python_harness.py --turns 60 --interval 0.5 --faults

then open the URL ``serve`` printed and pick the session. ``--faults`` injects, every 30
turns, a rewrite that keeps its old score, a span paraphrased until it is poisoned, and a
scorer that collapses for a while; the dashboard shows each fault, and the turn after it
once the loop obeyed the verdict. Needs only the standard library and
the context_health_client package (pip install ./clients/python, or copy its folder).
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
    ap.add_argument("--faults", action="store_true", help="inject a stale score, a poisoned span and a collapsing scorer every 30 turns")
    args = ap.parse_args()

    def collapsed(turn):
        # with --faults the scorer collapses on turns 18-25 of every 30: all near 0.5, the pinned goal just below
        return args.faults and 18 <= turn % 30 <= 25

    def score(span, turn):
        if not collapsed(turn):
            return 0.95 if span.get("pinned") else relevance(span["text"], turn)
        return 0.45 if span.get("pinned") else round(0.5 + (relevance(span["text"], turn) - 0.6) / 50, 4)

    client = RelayClient(args.url, token=args.token)
    run = client.session(args.session, title="Python example: a toy self-editing agent that obeys the verdict")

    budget = 12
    goal = "Goal: keep the answer under 200 words. Ünïcödé is hashed as UTF-8."
    # a pinned canary: the constraint the agent must never lose (collapse detection)
    buffer = [dict(span_id="goal", text=goal, pinned=True, role="system", **scored(goal, 0.95))]
    next_id = 1
    verdict = None  # the last turn's verdict: what to do before pruning
    frozen = False
    for turn in range(1, args.turns + 1):
        did = []
        # 0. obey the relay's verdict of the previous turn (contract §5)
        if verdict is not None:
            if verdict["drop"]:
                buffer = [s for s in buffer if s["span_id"] not in verdict["drop"]]
                did.append("dropped " + ", ".join(verdict["drop"]))
            if verdict["action"] == "recompute":
                for s in buffer:
                    if s["span_id"] in verdict["recompute"]:
                        s.update(scored(s["text"], score(s, turn)))
                did.append("rescored %d" % len(verdict["recompute"]))
            if verdict["action"] == "freeze" and not frozen:
                did.append("froze pruning")
            if verdict["action"] != "freeze" and frozen:
                did.append("pruning again")
            frozen = verdict["action"] == "freeze"
        # while collapsed, and when it recovers, the scorer rescores every span
        if collapsed(turn) or collapsed(turn - 1):
            for s in buffer:
                s.update(scored(s["text"], score(s, turn)))

        # 1. the agent observes something new, scored (and hashed) when it is added
        text = "Observation %d: tool output about step %d." % (turn, turn)
        span = dict(span_id="m%d" % next_id, text=text, role="tool", rewrite_count=0)
        span.update(scored(text, score(span, turn)))
        buffer.append(span)
        next_id += 1

        # 2. every fifth turn a model call rewrites the oldest unpinned span; its score is
        #    recomputed on the new text, so the hash moves with it. With --faults: on turn 7
        #    of 30 the rewrite keeps the old score (stale), and on turns 12-14 one span is
        #    paraphrased again and again (a paraphrase of a paraphrase is poisoned)
        modified = []
        stale = args.faults and turn % 30 == 7
        paraphrase = args.faults and 12 <= turn % 30 <= 14
        if turn % 5 == 0 or stale or paraphrase:
            unpinned = [s for s in buffer if not s.get("pinned")]
            target = next((s for s in buffer if s["span_id"] == "p"), None) if paraphrase else None
            target = target or (unpinned[0] if unpinned else None)
            if target is not None:
                summary = "Summary of %s: %s..." % (target["span_id"], target["text"][:24])
                if paraphrase:
                    target["span_id"] = "p"
                target.update(text=summary, rewrite_count=target.get("rewrite_count", 0) + (1 if paraphrase else 0))
                if not stale:
                    target.update(scored(summary, score(target, turn)))
                modified.append(target["span_id"])

        # 3. prune the lowest-scored unpinned spans over budget, unless frozen
        pruned = []
        while not frozen and len(buffer) > budget:
            victim = min((s for s in buffer if not s.get("pinned")), key=lambda s: s["score"])
            pruned.append(victim["span_id"])
            buffer.remove(victim)

        ack = run.snapshot(
            buffer,
            rewrite={"spans_modified": len(modified), "scores_invalidated": 0 if stale else len(modified), "modified_span_ids": modified},
            pruned=pruned,
        )
        verdict = ack.verdict
        heard = ""
        if verdict is not None:
            heard = " · verdict %s%s" % (verdict["action"], " (%s)" % ", ".join(verdict["signals"]) if verdict["signals"] else "")
        print(
            "turn %d: %d spans, stored as seq %d%s%s%s"
            % (turn, len(buffer), ack.seq, " (already stored)" if ack.duplicate else "", heard, " · " + "; ".join(did) if did else "")
        )
        if turn < args.turns:
            time.sleep(args.interval)
    client.close()
    print("done: session %r at %s" % (args.session, args.url))


if __name__ == "__main__":
    main()
