"""The seed's Python over a transcript, for bench/check.ts: per snapshot, json.loads, the seed's
prune() and check_turn_integrity() (000_reference.py, loaded from the path given, never copied),
and mean/median/pstdev of the scores, as docs/perf-log/notebook.md describes it. Prints one JSON line:
{"snapshots": n, "seconds": s} (the loop alone; the bench times the whole process too).
usage: python3 bench/seedPython.py <000_reference.py> <transcript.jsonl>"""
import importlib.util
import json
import statistics
import sys
import time

spec = importlib.util.spec_from_file_location("reference", sys.argv[1])
ref = importlib.util.module_from_spec(spec)
spec.loader.exec_module(ref)

t0 = time.perf_counter()
n = 0
with open(sys.argv[2], encoding="utf-8") as f:
    for line in f:
        if not line.strip():
            continue
        m = json.loads(line)
        if m.get("type") != "snapshot":
            continue
        n += 1
        spans = [
            ref.ScoredSpan(
                span_id=s["span_id"],
                text=s["text"],
                score=float("nan") if s["score"] is None else s["score"],
                text_sha256=s["text_sha256"] or "",
                rewrite_count=s.get("rewrite_count", 0),
                derived_from=s.get("derived_from", []),
            )
            for s in m["spans"]
        ]
        try:
            ref.prune(spans, keep_top_k=max(1, len(spans) // 2))
        except ref.StaleScoreError:
            pass
        rw = m.get("rewrite") or {}
        try:
            ref.check_turn_integrity(rw.get("spans_modified", 0), rw.get("scores_invalidated", 0))
        except ref.StaleScoreError:
            pass
        scores = [s.score for s in spans if s.score == s.score]
        if scores:
            statistics.mean(scores)
            statistics.median(scores)
            statistics.pstdev(scores)
print(json.dumps({"snapshots": n, "seconds": time.perf_counter() - t0}))
