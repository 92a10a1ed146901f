"""Streams a JSONL transcript into a relay with the Python client, one message per call.

    python3 test/relay/stream_file.py URL FILE

Prints one JSON line: {"sent": n, "duplicates": d, "retries": r, "seqs": [...]}.
"""

import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "clients", "python"))
from context_health_client import RelayClient  # noqa: E402


def main():
    url, path = sys.argv[1], sys.argv[2]
    client = RelayClient(url, initial_backoff=0.02, max_backoff=0.2, give_up_after=60)
    sent = duplicates = 0
    seqs = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            if not line.strip():
                continue
            message = json.loads(line)
            ack = client.send(message)
            sent += 1
            duplicates += 1 if ack.duplicate else 0
            seqs.append(ack.seq)
    client.close()
    print(json.dumps({"sent": sent, "duplicates": duplicates, "retries": client.retries, "seqs": seqs}))


if __name__ == "__main__":
    main()
