#!/usr/bin/env python3
"""A small shop for flow tests and the flow example (docs/flows.md).

POST /login {"user": U, "pass": "pw-U"} answers 200 {"token": T, "user": U} and sets the
cookie session=S (Path=/, Max-Age=--cookie-max-age). GET /cart with "Authorization: Bearer T"
and the cookie answers 200 {"user": U, "items": [{"id": I}]} (no items for users named
"empty*"). POST /order {"item": I} with the cookie answers 201 {"order": I} and the order's
absolute URL as its Location; GET /orders/I with the cookie answers 200 {"order": I}. A session ends
--session-seconds after its login; its cookie says Max-Age=--cookie-max-age. Anything else is refused (401, 400 or 404) and
counted as such: on SIGTERM the counts are written as JSON to --counts.

Listens on 127.0.0.1:--port (0: a free one), printed on stdout as "port N"; a port someone
else holds is an error. With --api-port the same shop also answers there (a second origin of
one site: its sessions are shared); site_requests and api_requests count what each port got.
"""

import argparse
import http.server
import json
import signal
import sys
import threading
import time


class Shop:
    def __init__(self, max_age, session_seconds):
        self.max_age = max_age
        self.session_seconds = session_seconds
        self.lock = threading.Lock()
        self.sessions = {}  # session -> (user, token, item, expiry)
        self.next = 0
        self.counts = {k: 0 for k in ("login_ok", "login_bad", "cart_ok", "cart_bad",
                                      "order_ok", "order_bad", "view_ok", "view_bad", "other",
                                      "site_requests", "api_requests")}

    def count(self, what):
        with self.lock:
            self.counts[what] += 1

    def login(self, user):
        with self.lock:
            self.next += 1
            session = "s%d" % self.next
            token = "t-%d-%s" % (self.next, "x" * (self.next % 3))
            item = "" if user.startswith("empty") else "item-%d" % self.next
            self.sessions[session] = (user, token, item,
                                      time.monotonic() + self.session_seconds)
            return session, token

    def session(self, cookie_header):
        for part in (cookie_header or "").split(";"):
            name, _, value = part.strip().partition("=")
            if name == "session":
                with self.lock:
                    found = self.sessions.get(value)
                if found and found[3] > time.monotonic():
                    return found
        return None


def make_handler(shop, listener):
    class Handler(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        disable_nagle_algorithm = True  # Headers and body are two writes.

        def log_message(self, *args):
            pass

        def answer(self, status, body, headers=()):
            shop.count(listener + "_requests")
            data = json.dumps(body).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            for name, value in headers:
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(data)

        def body(self):
            length = int(self.headers.get("Content-Length") or 0)
            try:
                return json.loads(self.rfile.read(length) or b"{}")
            except ValueError:
                return {}

        def route(self):
            return self.path.split("?")[0]

        def do_POST(self):
            body = self.body()
            if self.route() == "/login":
                user = body.get("user", "")
                if user and body.get("pass") == "pw-" + user:
                    shop.count("login_ok")
                    session, token = shop.login(user)
                    cookie = "session=%s; Path=/; Max-Age=%d; HttpOnly" % (session, shop.max_age)
                    self.answer(200, {"token": token, "user": user}, [("Set-Cookie", cookie)])
                else:
                    shop.count("login_bad")
                    self.answer(401, {"error": "bad credentials"})
            elif self.route() == "/order":
                found = shop.session(self.headers.get("Cookie"))
                if found and found[2] and body.get("item") == found[2]:
                    shop.count("order_ok")
                    location = "http://127.0.0.1:%d/orders/%s" % (self.server.server_port, found[2])
                    self.answer(201, {"order": found[2]}, [("Location", location)])
                else:
                    shop.count("order_bad")
                    self.answer(401 if not found else 400, {"error": "no such order"})
            else:
                shop.count("other")
                self.answer(404, {"error": "not found"})

        def do_GET(self):
            if self.route() == "/cart":
                found = shop.session(self.headers.get("Cookie"))
                if found and self.headers.get("Authorization") == "Bearer " + found[1]:
                    shop.count("cart_ok")
                    items = [{"id": found[2]}] if found[2] else []
                    self.answer(200, {"user": found[0], "items": items})
                else:
                    shop.count("cart_bad")
                    self.answer(401, {"error": "log in first"})
            elif self.route().startswith("/orders/"):
                found = shop.session(self.headers.get("Cookie"))
                if found and found[2] and self.route() == "/orders/" + found[2]:
                    shop.count("view_ok")
                    self.answer(200, {"order": found[2]})
                else:
                    shop.count("view_bad")
                    self.answer(401 if not found else 404, {"error": "no such order"})
            else:
                shop.count("other")
                self.answer(404, {"error": "not found"})

    return Handler


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, default=8080)
    parser.add_argument("--cookie-max-age", type=int, default=3600)
    parser.add_argument("--session-seconds", type=int, default=3600)
    parser.add_argument("--counts", default="")
    parser.add_argument("--api-port", type=int, default=-1)
    args = parser.parse_args()
    shop = Shop(args.cookie_max_age, args.session_seconds)

    class Server(http.server.ThreadingHTTPServer):
        allow_reuse_address = False  # Never share a port someone else holds.
        daemon_threads = True
        request_queue_size = 1024  # Every virtual user connects at once.

    server = Server(("127.0.0.1", args.port), make_handler(shop, "site"))
    if args.api_port >= 0:
        api = Server(("127.0.0.1", args.api_port), make_handler(shop, "api"))
        threading.Thread(target=api.serve_forever, daemon=True).start()

    def stop(signum, frame):
        if args.counts:
            with shop.lock, open(args.counts, "w") as out:
                json.dump(shop.counts, out)
        sys.stdout.flush()
        import os
        os._exit(0)

    signal.signal(signal.SIGTERM, stop)
    print("port %d" % server.server_address[1], flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
