#!/usr/bin/env python3
"""Answers that arrive in pieces, served by aiohttp (it does HTTP; this only writes handlers).

GET /late-body?ms=M        the head at once, then after M ms a 5-byte body ("later").
GET /events?n=N&gap_ms=G   text/event-stream: N events, G ms apart, then the end: each a
                           comment, an id and "data: {"k": K}" (CRLF line ends); with done=1
                           a last "data: [DONE]"; with bytewise=1 every byte written alone.
GET /lines?n=N&gap_ms=G    application/x-ndjson: N lines {"k": K}, G ms apart.
GET /arrive                "ok", noting when the request arrived (the monotonic clock).
POST /v1/chat/completions, /v1/completions
                           an OpenAI-compatible streamed answer to the JSON request (a
                           request that is not JSON, or lacks the prompt, is a 400, counted
                           bad_json): a role-only delta, an empty one, then max_tokens deltas
                           "tok" (first_ms before the first, gap_ms apart), a finish chunk,
                           the usage chunk (prompt_tokens = the prompt's bytes // 4) unless
                           usage=0, and [DONE].

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
    counts = {"requests": 0, "arrivals": [], "bad_json": 0, "prompt_tokens": 0}

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

    async def completions(request):
        counts["requests"] += 1
        chat = request.path.endswith("/chat/completions")
        try:
            body = json.loads(await request.read())
            prompt = body["messages"][0]["content"] if chat else body["prompt"]
            tokens = int(body["max_tokens"])
        except (ValueError, KeyError, IndexError, TypeError):
            counts["bad_json"] += 1
            return web.Response(status=400, text="bad request")
        prompt_tokens = len(prompt.encode()) // 4
        counts["prompt_tokens"] += prompt_tokens
        response = web.StreamResponse(headers={"Content-Type": "text/event-stream"})
        await response.prepare(request)

        async def send(choice):
            chunk = {"id": "cmpl-1", "object": "chat.completion.chunk" if chat else
                     "text_completion", "model": body["model"], "choices": [choice]}
            await response.write(f"data: {json.dumps(chunk)}\n\n".encode())

        def delta(content):
            if chat:
                return {"index": 0, "delta": content, "finish_reason": None}
            return {"index": 0, "text": content.get("content", ""), "finish_reason": None}

        await send(delta({"role": "assistant"}))
        await send(delta({"content": ""}))
        await asyncio.sleep(int(request.query.get("first_ms", "0")) / 1000)
        gap = int(request.query.get("gap_ms", "2")) / 1000
        for k in range(tokens):
            if k > 0:
                await asyncio.sleep(gap)
            await send(delta({"content": "tok"}))
        await send({"index": 0, "delta": {}, "finish_reason": "length"})
        if request.query.get("usage") != "0":
            usage = {"prompt_tokens": prompt_tokens, "completion_tokens": tokens,
                     "total_tokens": prompt_tokens + tokens}
            await response.write(
                f"data: {json.dumps({'choices': [], 'usage': usage})}\n\n".encode())
        await response.write(b"data: [DONE]\n\n")
        await response.write_eof()
        return response

    app = web.Application()
    app.add_routes([web.get("/late-body", late_body), web.get("/events", events), web.get("/lines", lines),
                    web.get("/arrive", arrive), web.post("/v1/chat/completions", completions),
                    web.post("/v1/completions", completions)])

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
