#!/usr/bin/env python3
"""The Matrix part of chatdir-bench (`--only matrix`, BENCHMARKS.md "Matrix"): a Synapse on
loopback, chatdir's release binary and the minimal clients of bench/matrix_pager.py (and,
given --nio-python, the matrix-nio client of bench/matrix_nio_pager.py for the big room), timed
in the same run. Prints one JSON object: {"chatdir": {...}, "pager": {...}, "nio": {...},
"meta": {...}}.

    matrix_runner.py --workdir DIR --synapse-python PATH --chatdir PATH [--nio-python PATH]
                     [--runs 3] [--live 100]

The homeserver and what it holds are made once under DIR/synapse (its SQLite database, the
accounts' tokens in accounts.json, `seeded.complete` written last) and reused by later runs:
seeding takes about ten minutes (BENCHMARKS.md, "Matrix"), a run about six. Accounts, one per
workload so that no measurement moves another's anchor:
  alice  one room of 10,000 messages from bob
  carol  200 rooms of 50 messages each from frank
  dave   a room where erin sends the live messages
Each room's messages come from one sender in turn, eight rooms at a time.

Timed: `chatdir sync` of a fresh store (the process, posix_spawn to wait) by turns with
`matrix_pager.py page` (the process too) and, for the big room, `matrix_nio_pager.py`, `runs`
times each, medians; live: erin's PUT sent →
the segment file holding the event renamed into dave's store (inotify), against the same PUT →
`matrix_pager.py longpoll`'s /sync answer decoded, in alternating blocks.
"""

import argparse
import ctypes
import http.client
import json
import os
import random
import select
import shutil
import signal
import socket
import statistics
import struct
import subprocess
import sys
import threading
import time
import urllib.parse
import uuid

HERE = os.path.dirname(os.path.abspath(__file__))
PAGER = os.path.join(HERE, "matrix_pager.py")
NIO_PAGER = os.path.join(HERE, "matrix_nio_pager.py")
API = "/_matrix/client/v3"
SEED_PARAMS = "rooms=1x10000,200x50;one sender a room;live;words=v1"
WORDS = (
    "on my way|dinner at eight|pizza|see you soon|running late|sounds good|call me|where are you|"
    "thanks|ok|lunch tomorrow|the train is delayed|happy birthday|what time|meeting moved|"
    "can you pick up milk|love it|haha|good morning|good night|the kids are asleep|movie tonight|"
    "parking is full|bring an umbrella|just landed|boarding now|coffee|tea|weekend plans|"
    "the store is closed|got it|no worries|send me the photos|at the gym|heading home|"
    "traffic|almost there|door code|wifi password|tickets booked|see the news"
).split("|")


def log(text):
    sys.stderr.write("matrix_runner: %s\n" % text)
    sys.stderr.flush()


class Client:
    """One keep-alive connection to the homeserver, for seeding and the live sender."""

    def __init__(self, port, token=None):
        self.port = port
        self.token = token
        self.connection = None

    def request(self, method, path, body=None, query=None):
        if query:
            path += "?" + urllib.parse.urlencode(query)
        headers = {"Content-Type": "application/json"}
        if self.token:
            headers["Authorization"] = "Bearer " + self.token
        data = None if body is None else json.dumps(body).encode()
        for attempt in range(3):
            if self.connection is None:
                self.connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=120)
            try:
                self.connection.request(method, path, body=data, headers=headers)
                answer = self.connection.getresponse()
                text = answer.read()
            except (http.client.HTTPException, OSError):
                self.connection.close()
                self.connection = None
                if attempt == 2:
                    raise
                continue
            if answer.status != 200:
                raise RuntimeError("%s %s: %d %s" % (method, path, answer.status, text[:300]))
            return json.loads(text or b"{}")

    def room(self, room, *parts):
        return API + "/rooms/" + "/".join(urllib.parse.quote(p, safe="") for p in (room,) + parts)

    def send(self, room, text):
        path = self.room(room, "send", "m.room.message", uuid.uuid4().hex)
        return self.request("PUT", path, {"msgtype": "m.text", "body": text})["event_id"]


# MARK: - The homeserver


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def configuration(directory, port):
    """The test harness's configuration (Tests/ChatTestSupport/Synapse.swift): loopback only, no
    presence, open registration, no rate limits."""
    unlimited = "{per_second: 9999, burst_count: 9999}"
    return f"""server_name: localhost
pid_file: {directory}/homeserver.pid
listeners:
  - port: {port}
    bind_addresses: ['127.0.0.1']
    type: http
    tls: false
    x_forwarded: false
    resources: [{{names: [client], compress: false}}]
database: {{name: sqlite3, args: {{database: {directory}/homeserver.db}}}}
media_store_path: {directory}/media
signing_key_path: {directory}/signing.key
trusted_key_servers: []
suppress_key_server_warning: true
report_stats: false
registration_shared_secret: chatdir-bench
macaroon_secret_key: chatdir-bench-macaroon
form_secret: chatdir-bench-form
enable_registration: true
enable_registration_without_verification: true
presence: {{enabled: false}}
rc_message: {unlimited}
rc_registration: {unlimited}
rc_login: {{address: {unlimited}, account: {unlimited}, failed_attempts: {unlimited}}}
rc_joins: {{local: {unlimited}, remote: {unlimited}}}
rc_joins_per_room: {unlimited}
rc_invites: {{per_room: {unlimited}, per_user: {unlimited}, per_issuer: {unlimited}}}
rc_room_creation: {unlimited}
rc_3pid_validation: {unlimited}
rc_presence: {{per_user: {unlimited}}}
"""


class Homeserver:
    def __init__(self, python, directory):
        self.directory = directory
        self.port = free_port()
        config = os.path.join(directory, "homeserver.yaml")
        with open(config, "w") as file:
            file.write(configuration(directory, self.port))
        key = os.path.join(directory, "signing.key")
        if not os.path.exists(key):
            import base64

            seed = base64.b64encode(os.urandom(32)).decode().rstrip("=")
            with open(key, "w") as file:
                file.write("ed25519 a_bench %s\n" % seed)
        self.log = open(os.path.join(directory, "homeserver.log"), "ab")
        self.process = subprocess.Popen(
            [python, "-m", "synapse.app.homeserver", "-c", config],
            stdin=subprocess.DEVNULL, stdout=self.log, stderr=self.log)
        deadline = time.monotonic() + 180
        while True:
            if self.process.poll() is not None:
                raise RuntimeError("Synapse ended with status %d; see %s/homeserver.log" % (self.process.returncode, directory))
            try:
                Client(self.port).request("GET", "/_matrix/client/versions")
                break
            except (OSError, RuntimeError, http.client.HTTPException):
                if time.monotonic() > deadline:
                    raise RuntimeError("Synapse did not answer within 180 s")
                time.sleep(0.2)

    @property
    def url(self):
        return "http://127.0.0.1:%d" % self.port

    def stop(self):
        self.process.kill()
        self.process.wait()
        self.log.close()


def register(server, name):
    answer = Client(server.port).request(
        "POST", API + "/register",
        {"username": name, "password": "pw-" + name, "auth": {"type": "m.login.dummy"}, "initial_device_display_name": "bench"})
    return answer["access_token"]


def sentence(rng):
    return " ".join(rng.choice(WORDS) for _ in range(rng.randint(4, 16)))


def in_parallel(jobs, work, threads=8):
    """Runs `work(job)` for every job from `threads` threads at once; the first failure is raised."""
    lock = threading.Lock()
    queue = list(reversed(jobs))
    failures = []

    def loop():
        while True:
            with lock:
                if not queue or failures:
                    return
                job = queue.pop()
            try:
                work(job)
            except Exception as error:  # reported once, below
                with lock:
                    failures.append(error)
                return

    running = [threading.Thread(target=loop) for _ in range(threads)]
    for thread in running:
        thread.start()
    for thread in running:
        thread.join()
    if failures:
        raise failures[0]


# Each room's messages come from one sender, one after the other (rooms in parallel): two sends
# into one room at once fork its event graph (both on the same prev_events). A room seeded by 8
# senders at once held 10,009 events at 1,370 depths, which no chat makes; Synapse took 1.3 s of
# database time a /messages page in it, and chatdir lost messages paging it (BENCHMARKS.md).


def seed(server, accounts):
    rng = random.Random(42)
    for name in ("alice", "bob", "carol", "frank", "dave", "erin"):
        accounts[name] = register(server, name)
    bob, erin = (Client(server.port, accounts[n]) for n in ("bob", "erin"))
    started = time.monotonic()
    room = bob.request("POST", API + "/createRoom", {"preset": "private_chat", "name": "Ten thousand", "invite": ["@alice:localhost"]})["room_id"]
    Client(server.port, accounts["alice"]).request("POST", API + "/join/" + urllib.parse.quote(room, safe=""), {})
    accounts["big_room"] = room
    rooms = []

    def make(index):
        frank = Client(server.port, accounts["frank"])
        made = frank.request("POST", API + "/createRoom", {"preset": "private_chat", "name": "Room %d" % index, "invite": ["@carol:localhost"]})["room_id"]
        Client(server.port, accounts["carol"]).request("POST", API + "/join/" + urllib.parse.quote(made, safe=""), {})
        rooms.append(made)

    in_parallel(list(range(200)), make)
    log("made 201 rooms in %.0f s" % (time.monotonic() - started))
    started = time.monotonic()
    # The big room's 10,000 from one sender while frank fills the small rooms beside it.
    everything = [(room, 10_000)] + [(r, 50) for r in sorted(rooms)]
    tokens = {room: accounts["bob"]}
    texts = {r: [sentence(rng) for _ in range(count)] for r, count in everything}

    def work(target):
        client = Client(server.port, tokens.get(target, accounts["frank"]))
        for text in texts[target]:
            client.send(target, text)

    in_parallel([r for r, _ in everything], work)
    log("seeded 10,000 messages into one room and 50 into each of 200, one sender a room, in %.0f s" % (time.monotonic() - started))
    live = erin.request("POST", API + "/createRoom", {"preset": "private_chat", "name": "Live", "invite": ["@dave:localhost"]})["room_id"]
    Client(server.port, accounts["dave"]).request("POST", API + "/join/" + urllib.parse.quote(live, safe=""), {})
    erin.send(live, "hello")
    accounts["live_room"] = live


# MARK: - Timing


def spawn_time(arguments, environment):
    """Wall time of one process, seconds, and its stdout."""
    started = time.monotonic()
    done = subprocess.run(arguments, env=environment, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    elapsed = time.monotonic() - started
    if done.returncode != 0:
        raise RuntimeError("%s: exit %d: %s" % (" ".join(arguments), done.returncode, done.stderr.decode(errors="replace")[-2000:]))
    return elapsed, done.stdout.decode()


def fresh_store(chatdir, path, user, server, environment):
    shutil.rmtree(path, ignore_errors=True)
    subprocess.run([chatdir, "init", "--store", path, "--user", user, "--server", server.url],
                   env=environment, check=True, stdout=subprocess.DEVNULL)


def request_counts(server, since):
    """The homeserver's requests logged since byte `since` of its log, by endpoint: how many,
    and the seconds Synapse took over them (its "Processed request: TOTALsec" figure)."""
    counts = {}
    with open(os.path.join(server.directory, "homeserver.log"), "rb") as file:
        file.seek(since)
        for line in file:
            if b"Processed request" not in line:
                continue
            words = line.decode(errors="replace").split()
            seconds = 0.0
            for word in words:
                if word.endswith("sec") and "sec/" in word:
                    seconds = float(word.split("sec/")[0])
                    break
            for index, word in enumerate(words):
                word = word.lstrip('"')
                if word in ("GET", "PUT", "POST") and index + 1 < len(words):
                    path = words[index + 1].split("?")[0]
                    parts = path.split("/")
                    key = word + " " + (parts[-1] if "rooms" not in parts else "rooms/…/" + parts[parts.index("rooms") + 2])
                    count, total = counts.get(key, (0, 0.0))
                    counts[key] = (count + 1, round(total + seconds, 3))
                    break
    return counts


def log_size(server):
    server.log.flush()
    return os.path.getsize(os.path.join(server.directory, "homeserver.log"))


def first_sync(args, server, user, token, name, runs, nio=False):
    """`chatdir sync` of a fresh store by turns with the pager (and the nio client when `nio`);
    medians of `runs`."""
    environment = dict(os.environ, CHATDIR_TOKEN=token, MATRIX_TOKEN=token)
    store = os.path.join(args.workdir, "store-" + name)
    chatdir_times, pager_times, nio_times = [], [], []
    found = {}
    sides = ("chatdir", "pager", "nio") if nio else ("chatdir", "pager")
    for run in range(runs):
        for side in (sides if run % 2 == 0 else tuple(reversed(sides))):
            if side == "chatdir":
                fresh_store(args.chatdir, store, user, server, environment)
                before = log_size(server)
                # A pass that runs out of its 30 s budget exits 75 ("run `chatdir sync` again
                # later"), keeping what it stored; the figure is every pass until one ends well,
                # as a person re-running it would see.
                elapsed, passes = 0.0, 0
                while True:
                    passes += 1
                    started = time.monotonic()
                    done = subprocess.run([args.chatdir, "sync", "--store", store], env=environment,
                                          stdout=subprocess.PIPE, stderr=subprocess.PIPE)
                    elapsed += time.monotonic() - started
                    if done.returncode == 0 or done.returncode != 75 or passes == 5:
                        break
                    found["chatdir_budget_message"] = done.stderr.decode(errors="replace").strip()[-400:]
                if done.returncode != 0:
                    raise RuntimeError("chatdir sync: exit %d: %s" % (done.returncode, done.stderr.decode(errors="replace")[-2000:]))
                out = done.stdout.decode()
                found["chatdir_passes"] = passes
                chatdir_times.append(elapsed)
                found["chatdir_output"] = out.strip()
                time.sleep(0.5)
                found["chatdir_requests"] = request_counts(server, before)
            elif side == "nio":
                before = log_size(server)
                out_file = os.path.join(args.workdir, "nio-" + name + ".jsonl")
                elapsed, out = spawn_time(
                    [args.nio_python, NIO_PAGER, "--server", server.url, "--out", out_file, "--limit", "500"],
                    environment)
                os.unlink(out_file)
                nio_times.append(elapsed)
                found["nio"] = json.loads(out)
                time.sleep(0.5)
                found["nio_requests"] = request_counts(server, before)
            else:
                before = log_size(server)
                elapsed, out = spawn_time([args.python, PAGER, "--server", server.url, "page", "--limit", "500"], environment)
                pager_times.append(elapsed)
                found["pager"] = json.loads(out)
                time.sleep(0.5)
                found["pager_requests"] = request_counts(server, before)
    messages = 0
    for root, _, files in os.walk(os.path.join(store, "conversations")):
        if root.endswith("/messages"):
            for file in files:
                if file[0].isdigit():
                    with open(os.path.join(root, file), "rb") as segment:
                        messages += sum(1 for line in segment if b'"eventId"' in line)
    found["chatdir_messages_on_disk"] = messages
    log("%s: chatdir sync %s s, pager %s s%s; %s; pager %s" % (
        name, ", ".join("%.2f" % t for t in chatdir_times), ", ".join("%.2f" % t for t in pager_times),
        ", nio %s s" % ", ".join("%.2f" % t for t in nio_times) if nio_times else "",
        found.get("chatdir_output"), found["pager"]))
    found["chatdir_s"] = [round(t, 3) for t in chatdir_times]
    found["pager_s"] = [round(t, 3) for t in pager_times]
    if nio_times:
        found["nio_s"] = [round(t, 3) for t in nio_times]
    medians = [statistics.median(times) if times else None for times in (chatdir_times, pager_times, nio_times)]
    return medians[0], medians[1], medians[2], found


# MARK: - Live


class Inotify:
    """Segment files renamed or written into a `messages/` directory, with when they were seen."""

    IN_CLOSE_WRITE = 0x08
    IN_MOVED_TO = 0x80

    def __init__(self, directory):
        libc = ctypes.CDLL("libc.so.6", use_errno=True)
        self.fd = libc.inotify_init1(os.O_CLOEXEC)
        if self.fd < 0 or libc.inotify_add_watch(self.fd, directory.encode(), self.IN_CLOSE_WRITE | self.IN_MOVED_TO) < 0:
            raise OSError(ctypes.get_errno(), "inotify " + directory)
        self.directory = directory

    def wait_for(self, needle, timeout):
        """The CLOCK_MONOTONIC time a segment holding `needle` was seen, else None."""
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([self.fd], [], [], left)[0]:
                return None
            now = time.monotonic_ns()
            data = os.read(self.fd, 65536)
            offset = 0
            while offset < len(data):
                _, _, _, length = struct.unpack_from("iIII", data, offset)
                name = data[offset + 16 : offset + 16 + length].rstrip(b"\0").decode()
                offset += 16 + length
                if not name[:1].isdigit():
                    continue
                try:
                    with open(os.path.join(self.directory, name), "rb") as file:
                        if needle in file.read():
                            return now
                except FileNotFoundError:
                    continue


def percentile(values, fraction):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


def live(args, server, accounts, count, blocks=2, warm_up=10):
    """By turns in `blocks` blocks of each: the long-poll client alone, then chatdir alone."""
    environment = dict(os.environ, CHATDIR_TOKEN=accounts["dave"], MATRIX_TOKEN=accounts["dave"])
    store = os.path.join(args.workdir, "store-live")
    fresh_store(args.chatdir, store, "@dave:localhost", server, environment)
    spawn_time([args.chatdir, "sync", "--store", store], environment)
    conversations = os.path.join(store, "conversations")
    folder = [n for n in os.listdir(conversations) if not n.startswith(".")]
    if len(folder) != 1:
        raise RuntimeError("dave's store holds %s, expected the one live room" % folder)
    messages_directory = os.path.join(conversations, folder[0], "messages")
    erin = Client(server.port, accounts["erin"])
    room = accounts["live_room"]
    figures = {"pager": [], "chatdir": []}
    per_block = count // blocks
    for block in range(blocks):
        # The long-poll client.
        poller = subprocess.Popen([args.python, PAGER, "--server", server.url, "longpoll"], env=environment,
                                  stdout=subprocess.PIPE, text=True, bufsize=1)
        if poller.stdout.readline().strip() != "ready":
            raise RuntimeError("the long-poll client did not start")
        for index in range(warm_up + per_block):
            text = "poll %d %d %s" % (block, index, uuid.uuid4().hex)
            sent = time.monotonic_ns()
            erin.send(room, text)
            while True:
                ready, _, _ = select.select([poller.stdout], [], [], 10)
                if not ready:
                    raise RuntimeError("the long-poll client did not see %r within 10 s" % text)
                line = poller.stdout.readline()
                stamp, _, body = line.rstrip("\n").partition(" ")
                if body == text:
                    break
            if index >= warm_up:
                figures["pager"].append((int(stamp) - sent) / 1e6)
        poller.kill()
        poller.wait()
        # chatdir sync --live.
        worker = subprocess.Popen([args.chatdir, "sync", "--live", "--store", store], env=environment,
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        watcher = Inotify(messages_directory)
        try:
            for index in range(warm_up + per_block):
                text = "live %d %d %s" % (block, index, uuid.uuid4().hex)
                sent = time.monotonic_ns()
                event = erin.send(room, text)
                seen = watcher.wait_for(event.encode(), 30 if index == 0 else 10)
                if seen is None:
                    raise RuntimeError("chatdir sync --live did not store %s within 10 s" % event)
                if index >= warm_up:
                    figures["chatdir"].append((seen - sent) / 1e6)
        finally:
            os.close(watcher.fd)
            worker.send_signal(signal.SIGTERM)
            try:
                worker.wait(timeout=10)
            except subprocess.TimeoutExpired:
                worker.kill()
                worker.wait()
    log("live: long-poll p50 %.2f ms, chatdir p50 %.2f ms" % (statistics.median(figures["pager"]), statistics.median(figures["chatdir"])))
    return figures


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--workdir", required=True)
    parser.add_argument("--synapse-python", required=True)
    parser.add_argument("--chatdir", required=True)
    parser.add_argument("--python", default=sys.executable, help="the Python the minimal clients run with")
    parser.add_argument("--nio-python", help="a Python with matrix-nio (scripts/install-matrix-nio.sh)")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--live", type=int, default=100)
    args = parser.parse_args()
    args.workdir = os.path.abspath(args.workdir)
    args.chatdir = os.path.abspath(args.chatdir)
    directory = os.path.join(args.workdir, "synapse")
    complete = os.path.join(directory, "seeded.complete")
    accounts_file = os.path.join(directory, "accounts.json")
    fresh = True
    if os.path.exists(complete):
        with open(complete) as file:
            fresh = file.read() != SEED_PARAMS
    if fresh:
        shutil.rmtree(directory, ignore_errors=True)
        os.makedirs(directory)
    server = Homeserver(args.synapse_python, directory)
    try:
        meta = {}
        if fresh:
            accounts = {}
            started = time.monotonic()
            seed(server, accounts)
            meta["seed_s"] = round(time.monotonic() - started, 1)
            with open(accounts_file, "w") as file:
                json.dump(accounts, file)
            with open(complete, "w") as file:
                file.write(SEED_PARAMS)
        with open(accounts_file) as file:
            accounts = json.load(file)
        chatdir, pager, nio = {}, {}, {}
        for user, name, key in (("alice", "room-10k", "room_10k"), ("carol", "rooms-200", "rooms_200")):
            c, p, n, found = first_sync(args, server, "@%s:localhost" % user, accounts[user], name, args.runs,
                                        nio=bool(args.nio_python) and key == "room_10k")
            if c is not None:
                chatdir[key + "_s"] = c
            pager[key + "_s"] = p
            if n is not None:
                nio[key + "_s"] = n
            meta[key] = found
        if args.live > 0:
            figures = live(args, server, accounts, args.live)
            for side, values in figures.items():
                table = chatdir if side == "chatdir" else pager
                table["live_p50_ms"] = statistics.median(values)
                table["live_p90_ms"] = percentile(values, 0.9)
                table["live_count"] = len(values)
    finally:
        server.stop()
    try:
        version = subprocess.run([args.synapse_python, "-c", "import synapse; print(synapse.__version__)"],
                                 stdout=subprocess.PIPE, text=True).stdout.strip()
    except OSError:
        version = "?"
    meta["synapse"] = version
    meta["python"] = sys.version.split()[0]
    print(json.dumps({"chatdir": chatdir, "pager": pager, "nio": nio, "meta": meta}, indent=1, sort_keys=True))


if __name__ == "__main__":
    main()
