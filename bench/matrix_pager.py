#!/usr/bin/env python3
"""The minimal Matrix clients chatdir's Matrix sync is measured against (BENCHMARKS.md, "Matrix").

Python's standard library only, one keep-alive connection, and no more than the protocol asks:
each answer is read and decoded with `json.loads`, nothing is stored or numbered.

    matrix_pager.py --server URL page [--limit 500] [--history 10000]
        One /sync (timeline limit 1, no state) for the joined rooms and each room's prev_batch,
        made unlike any earlier one as chatdir's is (a first sync: Synapse gives a request it saw
        in the last two minutes its kept answer, which no new client meets), then every room paged back with /messages (dir=b, the `limit` given, the filter chatdir
        uses: m.room.message only) until its start or `history` messages. Prints
        {"rooms": R, "messages": M, "requests": Q}.
    matrix_pager.py --server URL longpoll
        One /sync for a token, prints "ready", then long-polls /sync (timeout 30 s) and prints
        "NANOSECONDS BODY" for each m.room.message that arrives, NANOSECONDS the CLOCK_MONOTONIC
        time (time.monotonic_ns, the same clock in every process) its answer was decoded.

The access token comes from $MATRIX_TOKEN.
"""

import argparse
import http.client
import json
import os
import sys
import time
import urllib.parse
import uuid

API = "/_matrix/client/v3"
MESSAGES_FILTER = '{"types":["m.room.message"]}'
SYNC_FILTER = json.dumps(
    {
        "account_data": {"not_types": ["*"]},
        "presence": {"not_types": ["*"]},
        "room": {
            "account_data": {"not_types": ["*"]},
            "ephemeral": {"not_types": ["*"]},
            "state": {"not_types": ["*"]},
            "timeline": {"limit": 1},
        },
    },
    separators=(",", ":"),
)


class Connection:
    def __init__(self, server, token):
        url = urllib.parse.urlsplit(server)
        self.connection = http.client.HTTPConnection(url.hostname, url.port or 80, timeout=90)
        self.headers = {"Authorization": "Bearer " + token}
        self.requests = 0

    def get(self, path, query):
        self.requests += 1
        self.connection.request("GET", path + "?" + urllib.parse.urlencode(query), headers=self.headers)
        answer = self.connection.getresponse()
        body = answer.read()
        if answer.status != 200:
            sys.exit("GET %s: %d %s" % (path, answer.status, body[:300]))
        return json.loads(body)


def first_sync_filter():
    """SYNC_FILTER excluding an event type no one sends: the answer is the same, the request new."""
    nonce = "org.chatdir.bench.uncached." + uuid.uuid4().hex
    return SYNC_FILTER.replace('"timeline":{', '"timeline":{"not_types":["' + nonce + '"],', 1)


def page(connection, limit, history):
    synced = connection.get(API + "/sync", {"filter": first_sync_filter()})
    rooms = synced.get("rooms", {}).get("join", {})
    total = 0
    for room, value in rooms.items():
        token = value["timeline"].get("prev_batch")
        # The newest event came with /sync; the pages go back from before it.
        count = sum(1 for e in value["timeline"]["events"] if e.get("type") == "m.room.message")
        path = API + "/rooms/" + urllib.parse.quote(room, safe="") + "/messages"
        while token and count < history:
            query = {"dir": "b", "limit": str(min(limit, history - count)), "from": token, "filter": MESSAGES_FILTER}
            answer = connection.get(path, query)
            chunk = answer.get("chunk", [])
            count += sum(1 for e in chunk if e.get("type") == "m.room.message")
            token = answer.get("end")
            if not chunk:
                break
        total += count
    return {"rooms": len(rooms), "messages": total, "requests": connection.requests}


def longpoll(connection):
    since = connection.get(API + "/sync", {"filter": SYNC_FILTER})["next_batch"]
    print("ready", flush=True)
    while True:
        answer = connection.get(API + "/sync", {"filter": SYNC_FILTER, "since": since, "timeout": "30000"})
        now = time.monotonic_ns()
        since = answer["next_batch"]
        for room in answer.get("rooms", {}).get("join", {}).values():
            for event in room.get("timeline", {}).get("events", []):
                if event.get("type") == "m.room.message":
                    print(now, event.get("content", {}).get("body", ""), flush=True)


def main():
    top = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    top.add_argument("--server", required=True)
    commands = top.add_subparsers(dest="command", required=True)
    p = commands.add_parser("page")
    p.add_argument("--limit", type=int, default=500)
    p.add_argument("--history", type=int, default=10_000)
    commands.add_parser("longpoll")
    arguments = top.parse_args()
    connection = Connection(arguments.server, os.environ["MATRIX_TOKEN"])
    if arguments.command == "page":
        print(json.dumps(page(connection, arguments.limit, arguments.history)))
    else:
        longpoll(connection)


if __name__ == "__main__":
    main()
