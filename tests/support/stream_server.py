#!/usr/bin/env python3
"""Answers that arrive in pieces, served by aiohttp (it does HTTP; this only writes handlers).

GET /late-body?ms=M        the head at once, then after M ms a 5-byte body ("later").
GET /events?n=N&gap_ms=G   text/event-stream: N events, G ms apart, then the end: each a
                           comment, an id and "data: {"k": K}" (CRLF line ends); with done=1
                           a last "data: [DONE]"; with bytewise=1 every byte written alone.
GET /lines?n=N&gap_ms=G    application/x-ndjson: N lines {"k": K}, G ms apart.
GET /arrive                "ok", noting when the request arrived (the monotonic clock).

Listens on 127.0.0.1:--port; a port someone else holds is an error. On SIGTERM it writes
{"requests": R, "arrivals": [seconds, ...]} (the requests it answered, and when each /arrive
came) as JSON to --counts.
"""

import argparse
import asyncio
import json
import signal
import sys
import time

from aiohttp import web


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--counts", required=True)
    args = parser.parse_args()
    counts = {"requests": 0, "arrivals": []}

    async def late_body(request):
        counts["requests"] += 1
        response = web.StreamResponse(headers={"Content-Length": "5"})
        await response.prepare(request)  # The head goes out now.
        await asyncio.sleep(int(request.query.get("ms", "100")) / 1000)
        await response.write(b"later")
        await response.write_eof()
        return response

    async def events(request):
        counts["requests"] += 1
        response = web.StreamResponse(headers={"Content-Type": "text/event-stream"})
        await response.prepare(request)
        gap = int(request.query.get("gap_ms", "10")) / 1000
        bytewise = request.query.get("bytewise") == "1"
        pieces = [f': tick\r\nid: {k}\r\ndata: {{"k": {k}}}\r\n\r\n'
                  for k in range(int(request.query.get("n", "3")))]
        if request.query.get("done") == "1":
            pieces.append("data: [DONE]\n\n")
        for piece in pieces:
            for chunk in (piece if bytewise else [piece]):
                await response.write(chunk.encode())
                if bytewise:
                    await asyncio.sleep(0.0005)
            await asyncio.sleep(gap)
        await response.write_eof()
        return response

    async def lines(request):
        counts["requests"] += 1
        response = web.StreamResponse(headers={"Content-Type": "application/x-ndjson"})
        await response.prepare(request)
        gap = int(request.query.get("gap_ms", "10")) / 1000
        for k in range(int(request.query.get("n", "3"))):
            await response.write(f'{{"k": {k}}}\n'.encode())
            await asyncio.sleep(gap)
        await response.write_eof()
        return response

    async def arrive(request):
        counts["requests"] += 1
        counts["arrivals"].append(time.monotonic())
        return web.Response(text="ok")

    app = web.Application()
    app.add_routes([web.get("/late-body", late_body), web.get("/events", events), web.get("/lines", lines),
                    web.get("/arrive", arrive)])

    async def serve():
        runner = web.AppRunner(app, access_log=None)
        await runner.setup()
        # No SO_REUSEADDR/SO_REUSEPORT sharing: a port someone else holds fails the bind.
        site = web.TCPSite(runner, "127.0.0.1", args.port, reuse_port=False)
        try:
            await site.start()
        except OSError as e:
            print(f"stream_server: port {args.port}: {e}", file=sys.stderr)
            sys.exit(1)
        stop = asyncio.Event()
        asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, stop.set)
        await stop.wait()
        await runner.cleanup()
        with open(args.counts, "w") as f:
            json.dump(counts, f)

    asyncio.run(serve())


if __name__ == "__main__":
    main()
