#!/usr/bin/env python3
"""A matrix-nio client doing a first sync's work the way a Python Matrix tool would, the peer
of chatdir's first sync of one big room (BENCHMARKS.md, "Matrix"). Needs matrix-nio
(scripts/install-matrix-nio.sh).

    matrix_nio_pager.py --server URL --out FILE [--limit 500] [--history 10000]

One /sync (timeline limit 1, no state, made unlike any earlier one as matrix_pager.py's is),
then every joined room paged back with `room_messages` (dir=b, the `limit` given, the filter
chatdir uses: m.room.message only) until its start or `history` messages; each message's event
is written to FILE as one JSON line, and the file is flushed to disk (fsync) at the end. Prints
{"rooms": R, "messages": M, "requests": Q}. The access token comes from $MATRIX_TOKEN.
"""

import argparse
import asyncio
import json
import os
import sys

from nio import AsyncClient, MessageDirection, RoomMessagesError, SyncError

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from matrix_pager import first_sync_filter  # noqa: E402

MESSAGE_FILTER = {"types": ["m.room.message"]}


async def page(server, token, out, limit, history):
    client = AsyncClient(server)
    client.access_token = token
    requests = 0
    total = 0
    try:
        synced = await client.sync(timeout=0, sync_filter=json.loads(first_sync_filter()))
        requests += 1
        if isinstance(synced, SyncError):
            raise RuntimeError("sync: %s" % synced.message)
        with open(out, "w", encoding="utf-8") as file:
            for room_id, room in synced.rooms.join.items():
                count = 0
                for event in room.timeline.events:
                    if event.source.get("type") == "m.room.message":
                        file.write(json.dumps(event.source) + "\n")
                        count += 1
                token_from = room.timeline.prev_batch
                while token_from and count < history:
                    answer = await client.room_messages(
                        room_id, start=token_from, direction=MessageDirection.back,
                        limit=min(limit, history - count), message_filter=MESSAGE_FILTER)
                    requests += 1
                    if isinstance(answer, RoomMessagesError):
                        raise RuntimeError("room_messages %s: %s" % (room_id, answer.message))
                    for event in answer.chunk:
                        if event.source.get("type") == "m.room.message":
                            file.write(json.dumps(event.source) + "\n")
                            count += 1
                    token_from = answer.end
                    if not answer.chunk:
                        break
                total += count
            file.flush()
            os.fsync(file.fileno())
        return {"rooms": len(synced.rooms.join), "messages": total, "requests": requests}
    finally:
        await client.close()


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--server", required=True)
    parser.add_argument("--out", required=True)
    parser.add_argument("--limit", type=int, default=500)
    parser.add_argument("--history", type=int, default=10_000)
    arguments = parser.parse_args()
    result = asyncio.run(page(arguments.server, os.environ["MATRIX_TOKEN"], arguments.out, arguments.limit,
                              arguments.history))
    print(json.dumps(result))


if __name__ == "__main__":
    main()
