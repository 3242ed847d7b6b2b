"""What a write transaction held across a pause costs other labs on SQLite.

Run the lab on an SQLite file first, e.g.
    cargo run -p launcher -- --addr 127.0.0.1:8191 --database-url sqlite:///tmp/measure.db
then: python3 docs/sqlite_writer_hold.py /tmp/measure.db http://127.0.0.1:8191
It prints how long another lab's order takes (1) with nothing going on,
(2) while one learner's 2 s transactional request is in flight (the lab never
holds the writer across the pause), and (3) while a write transaction on the
same file is held open for 0.5 s and 2 s (what holding it across the pause
would do to every lab).
"""

import sqlite3
import sys
import threading
import time
import urllib.error
import urllib.request
import uuid

DB, BASE = sys.argv[1], sys.argv[2]


def post(lab, delay_ms=0):
    request = urllib.request.Request(
        f"{BASE}/api/transactional/orders",
        data=b'{"item":"coffee","amount_cents":450}',
        headers={
            "Content-Type": "application/json",
            "Idempotency-Key": str(uuid.uuid4()),
            "Lab-Id": lab,
            "Lab-Delay-Ms": str(delay_ms),
        },
        method="POST",
    )
    started = time.perf_counter()
    try:
        urllib.request.urlopen(request).read()
        status = 201
    except urllib.error.HTTPError as error:
        status = error.code
    return status, (time.perf_counter() - started) * 1000


quiet = sorted(post("other")[1] for _ in range(20))
print(f"another lab's order, nothing else going on: median {quiet[10]:.1f} ms")

slow = threading.Thread(target=post, args=("slow-learner", 2000))
slow.start()
time.sleep(0.2)
during = [post("other")[1] for _ in range(5)]
slow.join()
print(f"... while a learner's 2 s transactional request runs: max {max(during):.1f} ms")

for hold in (0.5, 2.0):
    holder = sqlite3.connect(DB, isolation_level=None, timeout=10, check_same_thread=False)
    holder.execute("BEGIN IMMEDIATE")
    threading.Timer(hold, lambda: holder.execute("COMMIT")).start()
    time.sleep(0.05)
    status, ms = post("other")
    print(f"... while a write transaction is held {hold} s: {status} in {ms:.0f} ms")
    time.sleep(hold)
