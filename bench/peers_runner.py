#!/usr/bin/env python3
"""chatdir's own peer runner: the benchmark workloads on SQLite and on a Maildir-style store.

chatdir-bench runs this as a subprocess with the sizes and the mode of its own run and reads
the JSON it prints on stdout (progress goes to stderr). Python standard library only.

    python3 bench/peers_runner.py --workdir .build/bench-cache/peers --sizes 10000,100000 [--quick]

Definitions (the same as chatdir-bench's; see BENCHMARKS.md, "The workloads"):
  open    newest 50 of conversation c1 holding N messages, warm, median over 200 runs (50 quick), us
  append  one message made durable after the N stored ones, 500 times (100 quick), p50 and p99 us,
          after an untimed pass of the same appends (removed again)
  ingest  100,000 messages (20,000 quick) in pages of 500, one durable commit per page, messages/s
  outbox  one durable pending-message write, 1,000 times (200 quick), median us
  scan    count the messages of c1 whose text contains "pizza", warm, median of 5, ms
  git     commit the store after each of 100 pages (20 quick) of 100 messages, git gc --aggressive,
          bytes of the files under .git
SQLite: WAL journal, synchronous=FULL, one transaction per durable write, primary key
(conversation, sequence). Maildir-style: each message written to tmp/, fsynced, renamed into
the conversation's folder, then the folder fsynced.

The stores for open/append/scan are filled once per size and kept under --workdir (the fill is
not timed, so it is done in bulk with one sync at the end); append removes what it added.
"""
import argparse
import json
import os
import random
import shutil
import sqlite3
import statistics
import subprocess
import sys
import time
import uuid

VOCABULARY = ("on my way see you soon where are we meeting tonight dinner at eight sounds good "
              "running late sorry traffic again coffee tomorrow morning call me when you land "
              "the train is delayed happy birthday thanks everyone lunch pizza ok great").split()
SENDERS = ["alice", "bob", "carol", "dave", "erin"]
FILL_FORMAT = 1  # bump when the fill changes, so cached peer stores are made again
FULL_COUNTS = {"open_runs": 200, "append_count": 500, "ingest_total": 100_000, "outbox_count": 1000, "git_pages": 100}
QUICK_COUNTS = {"open_runs": 50, "append_count": 100, "ingest_total": 20_000, "outbox_count": 200, "git_pages": 20}
COUNT_NAMES = sorted(FULL_COUNTS)
SCAN_RUNS = 5  # after one untimed warm-up: a scan right after the fill would time its write-back


def generate(count, first=1, rng=None):
    """The benchmark's messages (BENCHMARKS.md, "The messages"): five senders in turn, 4–16 random
    words, server-style sentAt, upper-case UUID client IDs, sequences from `first`."""
    rng = rng or random.Random(42)
    for sequence in range(first, first + count):
        message_id = str(uuid.UUID(int=rng.getrandbits(128))).upper()
        words = rng.randint(4, 16)
        yield {
            "clientMessageId": message_id,
            "senderId": SENDERS[sequence % len(SENDERS)],
            "sentAt": time.strftime("%Y-%m-%dT%H:%M:%S.000Z", time.gmtime(1_700_000_000 + sequence)),
            "sequence": sequence,
            "text": " ".join(rng.choice(VOCABULARY) for _ in range(words)),
        }


def pages(messages, size):
    page = []
    for message in messages:
        page.append(message)
        if len(page) == size:
            yield page
            page = []
    if page:
        yield page


def sync_directory(path):
    fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def elapsed(action):
    start = time.perf_counter()
    action()
    return time.perf_counter() - start


def log(*parts):
    print("peers_runner:", *parts, file=sys.stderr, flush=True)


class SQLitePeer:
    name = "sqlite"

    def __init__(self, root):
        os.makedirs(root, exist_ok=True)
        self.root = root
        self.db = sqlite3.connect(os.path.join(root, "chat.db"), isolation_level=None)
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.execute("PRAGMA synchronous=FULL")
        self.db.execute("CREATE TABLE IF NOT EXISTS messages (conversation TEXT, sequence INTEGER, "
                        "clientMessageId TEXT UNIQUE, senderId TEXT, sentAt TEXT, text TEXT, "
                        "PRIMARY KEY (conversation, sequence))")
        self.db.execute("CREATE TABLE IF NOT EXISTS outbox (clientMessageId TEXT PRIMARY KEY, "
                        "conversation TEXT, text TEXT, createdAt TEXT, state TEXT)")

    @staticmethod
    def row(conversation, m):
        return (conversation, m["sequence"], m["clientMessageId"], m["senderId"], m["sentAt"], m["text"])

    def save(self, conversation, messages):
        """One durable commit for the page."""
        self.db.execute("BEGIN")
        self.db.executemany("INSERT OR REPLACE INTO messages VALUES (?,?,?,?,?,?)",
                            [self.row(conversation, m) for m in messages])
        self.db.execute("COMMIT")

    def bulk_fill(self, conversation, count):
        self.db.execute("BEGIN")
        for page in pages(generate(count), 10_000):
            self.db.executemany("INSERT OR REPLACE INTO messages VALUES (?,?,?,?,?,?)",
                                [self.row(conversation, m) for m in page])
        self.db.execute("COMMIT")
        self.db.execute("PRAGMA wal_checkpoint(TRUNCATE)")

    def newest(self, conversation, limit=50):
        rows = self.db.execute("SELECT sequence, clientMessageId, senderId, sentAt, text FROM messages "
                               "WHERE conversation=? ORDER BY sequence DESC LIMIT ?", (conversation, limit)).fetchall()
        rows.reverse()
        return rows

    def count_containing(self, conversation, word):
        return self.db.execute("SELECT count(*) FROM messages WHERE conversation=? AND text LIKE ?",
                               (conversation, "%" + word + "%")).fetchone()[0]

    def queue(self, conversation, text):
        self.db.execute("BEGIN")
        self.db.execute("INSERT INTO outbox VALUES (?,?,?,?,?)",
                        (str(uuid.uuid4()).upper(), conversation, text, "2026-11-29T10:00:00.000Z", "pending"))
        self.db.execute("COMMIT")

    def drop_after(self, conversation, sequence, truncate=True):
        self.db.execute("DELETE FROM messages WHERE conversation=? AND sequence>?", (conversation, sequence))
        self.db.execute("PRAGMA wal_checkpoint(%s)" % ("TRUNCATE" if truncate else "PASSIVE"))

    def before_commit(self):
        # git sees only the database file: move the WAL's pages into it first.
        self.db.execute("PRAGMA wal_checkpoint(TRUNCATE)")

    def close(self):
        self.db.close()


class MaildirPeer:
    """One JSON file per message; delivered through tmp/ and a rename, like Maildir."""
    name = "maildir"

    def __init__(self, root):
        self.root = root
        os.makedirs(os.path.join(root, "tmp"), exist_ok=True)

    def folder(self, conversation):
        path = os.path.join(self.root, conversation)
        os.makedirs(path, exist_ok=True)
        return path

    @staticmethod
    def encode(m):
        return json.dumps(m, sort_keys=True, separators=(",", ":")) + "\n"

    def save(self, conversation, messages):
        """Each file durable before its rename; the folder fsynced once for the page."""
        folder = self.folder(conversation)
        for m in messages:
            staged = os.path.join(self.root, "tmp", m["clientMessageId"])
            with open(staged, "w") as handle:
                handle.write(self.encode(m))
                handle.flush()
                os.fsync(handle.fileno())
            os.rename(staged, os.path.join(folder, "%010d.json" % m["sequence"]))
        sync_directory(folder)

    def bulk_fill(self, conversation, count):
        folder = self.folder(conversation)
        for m in generate(count):
            with open(os.path.join(folder, "%010d.json" % m["sequence"]), "w") as handle:
                handle.write(self.encode(m))
        os.sync()

    def newest(self, conversation, limit=50):
        folder = self.folder(conversation)
        names = sorted(n for n in os.listdir(folder) if not n.startswith("."))[-limit:]
        found = []
        for name in names:
            with open(os.path.join(folder, name)) as handle:
                found.append(json.loads(handle.read()))
        return found

    def count_containing(self, conversation, word):
        listed = subprocess.run(["grep", "-rlF", word, self.folder(conversation)], capture_output=True, text=True)
        return len(listed.stdout.splitlines())

    def queue(self, conversation, text):
        folder = os.path.join(self.root, "outbox")
        os.makedirs(folder, exist_ok=True)
        message_id = str(uuid.uuid4()).upper()
        staged = os.path.join(self.root, "tmp", message_id)
        with open(staged, "w") as handle:
            handle.write(json.dumps({"clientMessageId": message_id, "text": text}) + "\n")
            handle.flush()
            os.fsync(handle.fileno())
        os.rename(staged, os.path.join(folder, "%020d-%s.json" % (time.time_ns(), message_id)))
        sync_directory(folder)

    def drop_after(self, conversation, sequence, truncate=True):
        folder = self.folder(conversation)
        for name in os.listdir(folder):
            if name.endswith(".json") and int(name[:10]) > sequence:
                os.unlink(os.path.join(folder, name))
        sync_directory(folder)

    def before_commit(self):
        pass

    def close(self):
        pass


def filled_store(kind, workdir, size):
    """The cached store of `size` messages for this peer, filled now if missing or incomplete."""
    root = os.path.join(workdir, "%s-%d" % (kind.name, size))
    marker = root + ".complete"
    wanted = "fill %d size %d\n" % (FILL_FORMAT, size)
    try:
        with open(marker) as handle:
            if handle.read() == wanted:
                return kind(root)
    except FileNotFoundError:
        pass
    shutil.rmtree(root, ignore_errors=True)
    log("filling %s with %d messages (once; kept in %s)" % (kind.name, size, root))
    store = kind(root)
    store.bulk_fill("c1", size)
    with open(marker, "w") as handle:
        handle.write(wanted)
    os.sync()  # write back the fill now, not under the timed workloads' fsyncs
    return store


# Rounds of open_runs opens, 20 ms apart; the lowest median counts (StoreWorkloads.openRounds:
# chatdir's open is timed the same way). One round is about 10 ms, and a whole round on this VM
# ran 40 % slower now and then, on either side, so one median decided a ratio by chance.
OPEN_ROUNDS = 5


def best_median(run, runs):
    best = None
    for number in range(OPEN_ROUNDS):
        if number:
            time.sleep(0.02)
        median = statistics.median(elapsed(run) for _ in range(runs))
        best = median if best is None else min(best, median)
    return best


def run_sizes(kind, workdir, sizes, counts, figures):
    open_runs = counts["open_runs"]
    append_count = counts["append_count"]
    for size in sizes:
        store = filled_store(kind, workdir, size)
        store.drop_after("c1", size)  # an interrupted earlier run may have left appends
        store.newest("c1")  # warm the cache
        figures["open_us_%d" % size] = round(best_median(lambda: store.newest("c1"), open_runs) * 1e6, 1)
        matches = store.count_containing("c1", "pizza")  # untimed: warms the cache
        scans = [elapsed(lambda: store.count_containing("c1", "pizza")) for _ in range(SCAN_RUNS)]
        figures["scan_ms_%d" % size] = round(statistics.median(scans) * 1e3, 1)
        figures["scan_count_%d" % size] = matches
        # An untimed pass of the same appends first, removed again: SQLite's WAL file then has
        # the size a running app's has (an app appends into a WAL its earlier commits grew;
        # appending to a just-opened, empty WAL grows the file on every commit and doubles the
        # cost of its fsync). chatdir-bench does the same pass.
        for m in generate(append_count, first=size + 1, rng=random.Random(7)):
            store.save("c1", [m])
        store.drop_after("c1", size, truncate=False)
        times = sorted(elapsed(lambda: store.save("c1", [m]))
                       for m in generate(append_count, first=size + 1, rng=random.Random(7)))
        figures["append_p50_us_%d" % size] = round(times[len(times) // 2] * 1e6, 1)
        figures["append_p99_us_%d" % size] = round(times[int(len(times) * 0.99) - 1] * 1e6, 1)
        store.drop_after("c1", size)
        store.close()


# Where discard() moves what a workload is done with (--trash; the bench empties it after the
# run). On the bench's VM (ext4 without a journal) a new file skips every inode freed in the
# last 30-60 s, so deleting 100k Maildir files slowed every file made after them.
TRASH = None


def discard(path):
    if TRASH and os.path.exists(path):
        os.rename(path, os.path.join(TRASH, "%d-%s" % (time.time_ns(), os.path.basename(path))))
    else:
        shutil.rmtree(path, ignore_errors=True)


def run_ingest_and_outbox(kind, workdir, counts, figures):
    root = os.path.join(workdir, kind.name + "-ingest")
    discard(root)
    store = kind(root)
    total = counts["ingest_total"]

    def ingest():
        for page in pages(generate(total), 500):
            store.save("c1", page)
    figures["ingest_msgs_per_s"] = round(total / elapsed(ingest))
    sends = [elapsed(lambda: store.queue("c1", "on my way")) for _ in range(counts["outbox_count"])]
    figures["outbox_us_median"] = round(statistics.median(sends) * 1e6, 1)
    store.close()
    discard(root)


def run_git(kind, workdir, counts, figures):
    root = os.path.join(workdir, kind.name + "-git")
    discard(root)
    store = kind(root)
    # gc.auto=0: no background auto-gc after a commit, which would make the final
    # `git gc --aggressive` fail with "gc is already running" (it did now and then without this).
    git = ["git", "-C", root, "-c", "user.name=bench", "-c", "user.email=bench@localhost", "-c", "gc.auto=0"]
    subprocess.run(git + ["init", "-q"], check=True)
    count = counts["git_pages"]
    source = generate(count * 100)
    for number in range(count):
        store.save("c1", [next(source) for _ in range(100)])
        store.before_commit()
        subprocess.run(git + ["add", "-A"], check=True)
        subprocess.run(git + ["commit", "-qm", "page %d" % number], check=True)
    subprocess.run(git + ["gc", "-q", "--aggressive"], check=True)
    total = 0
    for folder, _, names in os.walk(os.path.join(root, ".git")):
        total += sum(os.path.getsize(os.path.join(folder, name)) for name in names)
    figures["git_bytes_after_%d_pages" % count] = total
    store.close()
    discard(root)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--workdir", required=True, help="filled stores are kept here between runs")
    parser.add_argument("--sizes", default="10000,100000")
    parser.add_argument("--maildir-max", type=int, default=100_000, help="largest size the Maildir peer is filled to")
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--only", choices=["sqlite", "maildir"])
    parser.add_argument("--trash", help="move finished workloads' files here instead of deleting them")
    for name in COUNT_NAMES:
        parser.add_argument("--" + name.replace("_", "-"), type=int, help="override (for tiny smoke runs)")
    args = parser.parse_args()
    global TRASH
    TRASH = args.trash
    counts = dict(QUICK_COUNTS if args.quick else FULL_COUNTS)
    for name in COUNT_NAMES:
        if getattr(args, name) is not None:
            counts[name] = getattr(args, name)
    sizes = [int(part) for part in args.sizes.split(",") if part]
    os.makedirs(args.workdir, exist_ok=True)
    result = {"meta": {"sqlite_version": sqlite3.sqlite_version, "python": sys.version.split()[0],
                       "sizes": sizes, "maildir_max": args.maildir_max, "quick": args.quick, "counts": counts}}
    for kind in (SQLitePeer, MaildirPeer):
        if args.only and args.only != kind.name:
            continue
        figures = {}
        kind_sizes = [s for s in sizes if kind is SQLitePeer or s <= args.maildir_max]
        # Ingest and outbox first, as chatdir-bench does: they make new files, which the
        # appends' rewrites would slow there (see discard).
        run_ingest_and_outbox(kind, args.workdir, counts, figures)
        run_sizes(kind, args.workdir, kind_sizes, counts, figures)
        run_git(kind, args.workdir, counts, figures)
        result[kind.name] = figures
        log(kind.name, json.dumps(figures, sort_keys=True))
    print(json.dumps(result, indent=1, sort_keys=True))


if __name__ == "__main__":
    main()
