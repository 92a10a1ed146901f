"""Runs the seed's reference code (000_reference.py, found by differential.test.ts) over turns read as
JSON Lines on stdin: {"spans":[{span_id,text,score,text_sha256,rewrite_count,derived_from}],
"spans_modified":n,"scores_invalidated":m}. Writes one JSON line per turn:
{"prune_raises":bool,"integrity_raises":bool}. The seed is loaded, never copied."""
import importlib.util
import json
import sys

spec = importlib.util.spec_from_file_location("reference", sys.argv[1])
ref = importlib.util.module_from_spec(spec)
spec.loader.exec_module(ref)

out = []
for line in sys.stdin:
    if not line.strip():
        continue
    turn = json.loads(line)
    spans = [
        ref.ScoredSpan(
            span_id=s["span_id"],
            text=s["text"],
            score=float("nan") if s["score"] is None else s["score"],
            # contract §2: null and "" both mean "no binding"; the seed types it as str, so null is passed as ""
            text_sha256=s["text_sha256"] or "",
            rewrite_count=s.get("rewrite_count", 0),
            derived_from=s.get("derived_from", []),
        )
        for s in turn["spans"]
    ]
    try:
        ref.prune(spans, keep_top_k=max(1, len(spans) // 2))
        prune_raises = False
    except ref.StaleScoreError:
        prune_raises = True
    try:
        ref.check_turn_integrity(turn["spans_modified"], turn["scores_invalidated"])
        integrity_raises = False
    except ref.StaleScoreError:
        integrity_raises = True
    out.append(json.dumps({"prune_raises": prune_raises, "integrity_raises": integrity_raises}))
sys.stdout.write("\n".join(out) + "\n")
