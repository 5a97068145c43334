#!/usr/bin/env python3
"""A Matrix client no one on the chatdir team wrote the server side of: Python's standard
library speaking the client-server API, one request (or a short walk) per command, every answer
printed as one line of JSON.

The tests use it as the other members of a room (bob sends, reads, types, redacts) and to set
up a throwaway Synapse (register users, wait until it answers). It shares no code with chatdir,
so a mistake in chatdir's Matrix client cannot hide the same mistake here.

    matrix-peer.py wait --server URL [--pid PID] [--timeout SECONDS]
    matrix-peer.py register --server URL USER PASSWORD [--device ID]
    matrix-peer.py login --server URL USER PASSWORD --device ID   (another device's token)
    MATRIX_TOKEN=… matrix-peer.py --server URL COMMAND ARGUMENTS…

The access token comes from $MATRIX_TOKEN (never argv, where `ps` shows it). Commands:

    whoami
    create-room [--name NAME] [--invite USER]… [--encrypted] [--alias LOCALPART] [--creation-content JSON]
    joined-rooms
    join ROOM                       (a room ID or an alias)
    invite ROOM USER
    send ROOM TEXT [--txn ID] [--msgtype TYPE] [--cmid ID] [--content JSON]
                                    (--content: the whole content as given; TEXT is then unused)
    send-many ROOM COUNT [--prefix TEXT]
    edit ROOM EVENT TEXT
    redact ROOM EVENT [--reason TEXT]
    receipt ROOM EVENT
    react ROOM EVENT KEY            (an m.reaction annotating EVENT with KEY)
    typing ROOM on|off [--timeout MS]
    encrypt ROOM                    (sends m.room.encryption: the room becomes end-to-end encrypted)
    messages ROOM [--limit N]       (every m.room.message event, oldest first, from /messages)
    sync [--since TOKEN] [--timeout MS]
    account-data ROOM TYPE [JSON]   (reads it, or writes JSON)

Exit status: 0 on success; 1 when the server refused (its status and body on stderr); 2 for a
usage error.
"""

import argparse
import json
import os
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
import uuid

API = "/_matrix/client/v3"


class Refused(Exception):
    pass


class Client:
    def __init__(self, server, token=None):
        self.server = server.rstrip("/")
        self.token = token

    def request(self, method, path, body=None, query=None, timeout=60):
        url = self.server + path
        if query:
            url += "?" + urllib.parse.urlencode(query)
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(url, data=data, method=method)
        request.add_header("Content-Type", "application/json")
        if self.token:
            request.add_header("Authorization", "Bearer " + self.token)
        try:
            with urllib.request.urlopen(request, timeout=timeout) as answer:
                return json.loads(answer.read() or b"{}")
        except urllib.error.HTTPError as error:
            raise Refused("%s %s: %d %s" % (method, path, error.code, error.read().decode(errors="replace")))

    def room(self, room, *parts):
        return API + "/rooms/" + "/".join(urllib.parse.quote(p, safe="") for p in (room,) + parts)


def listens(pid, port):
    """Whether process `pid` holds the socket listening on TCP `port` (from /proc: a homeserver
    of another test process may have taken the port first, and would answer /versions too)."""
    inodes = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            with open(table) as rows:
                next(rows, None)
                for row in rows:
                    fields = row.split()
                    if len(fields) > 9 and fields[3] == "0A" and int(fields[1].rsplit(":", 1)[1], 16) == port:
                        inodes.add(fields[9])
        except OSError:
            pass
    try:
        descriptors = os.listdir("/proc/%d/fd" % pid)
    except OSError:
        return False
    for descriptor in descriptors:
        try:
            target = os.readlink("/proc/%d/fd/%s" % (pid, descriptor))
        except OSError:
            continue
        if target.startswith("socket:[") and target[8:-1] in inodes:
            return True
    return False


def wait(arguments):
    """Polls /versions until the server answers, the process `--pid` ends, or the time is up.
    With `--pid`, the answer counts only once that process listens on the port."""
    deadline = time.monotonic() + arguments.timeout
    url = arguments.server.rstrip("/") + "/_matrix/client/versions"
    port = urllib.parse.urlsplit(arguments.server).port
    while True:
        try:
            with urllib.request.urlopen(url, timeout=5) as answer:
                answer.read()
                if not arguments.pid or port is None or listens(arguments.pid, port):
                    print(json.dumps({"ready": True}))
                    return 0
        except (urllib.error.URLError, ConnectionError, OSError):
            pass
        if arguments.pid and not os.path.exists("/proc/%d" % arguments.pid):
            print("the homeserver (pid %d) ended before it answered" % arguments.pid, file=sys.stderr)
            return 1
        if time.monotonic() > deadline:
            print("%s did not answer within %d s" % (url, arguments.timeout), file=sys.stderr)
            return 1
        time.sleep(0.05)


def register(arguments):
    client = Client(arguments.server)
    body = {
        "username": arguments.user,
        "password": arguments.password,
        "auth": {"type": "m.login.dummy"},
        "device_id": arguments.device,
        "initial_device_display_name": "matrix-peer",
    }
    answer = client.request("POST", API + "/register", body)
    return {k: answer[k] for k in ("user_id", "access_token", "device_id")}


def login(arguments):
    client = Client(arguments.server)
    body = {
        "type": "m.login.password",
        "identifier": {"type": "m.id.user", "user": arguments.user},
        "password": arguments.password,
        "device_id": arguments.device,
    }
    answer = client.request("POST", API + "/login", body)
    return {k: answer[k] for k in ("user_id", "access_token", "device_id")}


def run(client, arguments):
    command = arguments.command
    if command == "whoami":
        return client.request("GET", API + "/account/whoami")
    if command == "create-room":
        body = {"preset": "private_chat", "invite": arguments.invite or []}
        if arguments.name:
            body["name"] = arguments.name
        if arguments.alias:
            body["room_alias_name"] = arguments.alias
        if arguments.creation_content is not None:
            body["creation_content"] = json.loads(arguments.creation_content)
        if arguments.encrypted:
            body["initial_state"] = [
                {"type": "m.room.encryption", "state_key": "", "content": {"algorithm": "m.megolm.v1.aes-sha2"}}
            ]
        return client.request("POST", API + "/createRoom", body)
    if command == "joined-rooms":
        return client.request("GET", API + "/joined_rooms")
    if command == "devices":
        return client.request("GET", API + "/devices")
    if command == "join":
        return client.request("POST", API + "/join/" + urllib.parse.quote(arguments.room, safe=""), {})
    if command == "invite":
        return client.request("POST", client.room(arguments.room, "invite"), {"user_id": arguments.user})
    if command == "send":
        content = {"msgtype": arguments.msgtype, "body": arguments.text}
        if arguments.cmid:
            content["org.chatdir.cmid"] = arguments.cmid
        if arguments.content is not None:
            content = json.loads(arguments.content)
        txn = arguments.txn or uuid.uuid4().hex
        return client.request("PUT", client.room(arguments.room, "send", "m.room.message", txn), content)
    if command == "send-many":
        events = []
        for number in range(1, arguments.count + 1):
            content = {"msgtype": "m.text", "body": "%s %d" % (arguments.prefix, number)}
            path = client.room(arguments.room, "send", "m.room.message", uuid.uuid4().hex)
            events.append(client.request("PUT", path, content)["event_id"])
        return {"event_ids": events}
    if command == "edit":
        content = {
            "msgtype": "m.text",
            "body": "* " + arguments.text,
            "m.new_content": {"msgtype": "m.text", "body": arguments.text},
            "m.relates_to": {"rel_type": "m.replace", "event_id": arguments.event},
        }
        path = client.room(arguments.room, "send", "m.room.message", uuid.uuid4().hex)
        return client.request("PUT", path, content)
    if command == "redact":
        body = {"reason": arguments.reason} if arguments.reason else {}
        return client.request("PUT", client.room(arguments.room, "redact", arguments.event, uuid.uuid4().hex), body)
    if command == "receipt":
        return client.request("POST", client.room(arguments.room, "receipt", "m.read", arguments.event), {})
    if command == "react":
        content = {"m.relates_to": {"rel_type": "m.annotation", "event_id": arguments.event, "key": arguments.key}}
        path = client.room(arguments.room, "send", "m.reaction", uuid.uuid4().hex)
        return client.request("PUT", path, content)
    if command == "typing":
        me = client.request("GET", API + "/account/whoami")["user_id"]
        body = {"typing": arguments.state == "on"}
        if arguments.state == "on":
            body["timeout"] = arguments.timeout
        return client.request("PUT", client.room(arguments.room, "typing", me), body)
    if command == "encrypt":
        content = {"algorithm": "m.megolm.v1.aes-sha2"}
        return client.request("PUT", client.room(arguments.room, "state", "m.room.encryption", ""), content)
    if command == "messages":
        found, token = [], None
        while True:
            query = {"dir": "b", "limit": str(arguments.limit)}
            if token:
                query["from"] = token
            page = client.request("GET", client.room(arguments.room, "messages"), query=query)
            found.extend(e for e in page.get("chunk", []) if e.get("type") == "m.room.message")
            token = page.get("end")
            if not token or not page.get("chunk"):
                break
        found.reverse()
        return {"events": found}
    if command == "sync":
        query = {"timeout": str(arguments.timeout)}
        if arguments.since:
            query["since"] = arguments.since
        return client.request("GET", API + "/sync", query=query, timeout=arguments.timeout / 1000 + 30)
    if command == "account-data":
        me = client.request("GET", API + "/account/whoami")["user_id"]
        path = API + "/user/%s/rooms/%s/account_data/%s" % tuple(
            urllib.parse.quote(p, safe="") for p in (me, arguments.room, arguments.type)
        )
        if arguments.json is None:
            return client.request("GET", path)
        return client.request("PUT", path, json.loads(arguments.json))
    raise AssertionError(command)


def parser():
    top = argparse.ArgumentParser(description="A standard-library Matrix client for tests.")
    top.add_argument("--server", required=True, help="the homeserver's base URL, e.g. http://127.0.0.1:8008")
    commands = top.add_subparsers(dest="command", required=True)
    w = commands.add_parser("wait")
    w.add_argument("--pid", type=int)
    w.add_argument("--timeout", type=int, default=120)
    r = commands.add_parser("register")
    r.add_argument("user")
    r.add_argument("password")
    r.add_argument("--device", default="PEER")
    o = commands.add_parser("login")
    o.add_argument("user")
    o.add_argument("password")
    o.add_argument("--device", required=True)
    commands.add_parser("whoami")
    c = commands.add_parser("create-room")
    c.add_argument("--name")
    c.add_argument("--invite", action="append")
    c.add_argument("--encrypted", action="store_true")
    c.add_argument("--alias")
    c.add_argument("--creation-content")
    commands.add_parser("joined-rooms")
    commands.add_parser("devices")
    j = commands.add_parser("join")
    j.add_argument("room")
    i = commands.add_parser("invite")
    i.add_argument("room")
    i.add_argument("user")
    s = commands.add_parser("send")
    s.add_argument("room")
    s.add_argument("text")
    s.add_argument("--txn")
    s.add_argument("--msgtype", default="m.text")
    s.add_argument("--cmid")
    s.add_argument("--content")
    m = commands.add_parser("send-many")
    m.add_argument("room")
    m.add_argument("count", type=int)
    m.add_argument("--prefix", default="message")
    e = commands.add_parser("edit")
    e.add_argument("room")
    e.add_argument("event")
    e.add_argument("text")
    d = commands.add_parser("redact")
    d.add_argument("room")
    d.add_argument("event")
    d.add_argument("--reason")
    p = commands.add_parser("receipt")
    p.add_argument("room")
    p.add_argument("event")
    a = commands.add_parser("react")
    a.add_argument("room")
    a.add_argument("event")
    a.add_argument("key")
    t = commands.add_parser("typing")
    t.add_argument("room")
    t.add_argument("state", choices=["on", "off"])
    t.add_argument("--timeout", type=int, default=30000)
    n = commands.add_parser("encrypt")
    n.add_argument("room")
    g = commands.add_parser("messages")
    g.add_argument("room")
    g.add_argument("--limit", type=int, default=1000)
    y = commands.add_parser("sync")
    y.add_argument("--since")
    y.add_argument("--timeout", type=int, default=0)
    a = commands.add_parser("account-data")
    a.add_argument("room")
    a.add_argument("type")
    a.add_argument("json", nargs="?")
    return top


def main():
    arguments = parser().parse_args()
    try:
        if arguments.command == "wait":
            return wait(arguments)
        if arguments.command in ("register", "login"):
            print(json.dumps((register if arguments.command == "register" else login)(arguments)))
            return 0
        token = os.environ.get("MATRIX_TOKEN")
        if not token:
            print("matrix-peer.py: set MATRIX_TOKEN to the user's access token", file=sys.stderr)
            return 2
        print(json.dumps(run(Client(arguments.server, token), arguments)))
        return 0
    except Refused as refusal:
        print("matrix-peer.py: %s" % refusal, file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
