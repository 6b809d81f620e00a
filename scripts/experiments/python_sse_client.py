#!/usr/bin/python3
"""The Python streaming client LLM benchmarks use, re-implemented faithfully: aiohttp, S tasks
each sending GET requests to URL one after another for D seconds, reading each response's
server-sent events the way vLLM's `bench serve` does (`async for` over the body's lines; a
line stripped, `data: ` removed, and unless it is `[DONE]` a time.perf_counter() stamp and a
json.loads). Prints one JSON line: {"client": "python-aiohttp-sse", "requests", "events",
"seconds"}.

Usage: python_sse_client.py URL -c S -d SECONDS
"""

import argparse
import asyncio
import json
import time

import aiohttp


async def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("url")
    parser.add_argument("-c", type=int, default=1)
    parser.add_argument("-d", type=float, default=5)
    args = parser.parse_args()
    totals = {"requests": 0, "events": 0}
    deadline = time.perf_counter() + args.d

    async def user(session):
        while time.perf_counter() < deadline:
            async with session.get(args.url) as response:
                async for chunk_bytes in response.content:
                    chunk_bytes = chunk_bytes.strip()
                    if not chunk_bytes:
                        continue
                    chunk = chunk_bytes.decode("utf-8").removeprefix("data: ")
                    if chunk != "[DONE]":
                        timestamp = time.perf_counter()  # What vLLM's bench stamps.
                        json.loads(chunk)
                        del timestamp
                        totals["events"] += 1
            totals["requests"] += 1

    started = time.perf_counter()
    async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=args.c)) as session:
        await asyncio.gather(*(user(session) for _ in range(args.c)))
    print(json.dumps({"client": "python-aiohttp-sse", **totals,
                      "seconds": time.perf_counter() - started}))


asyncio.run(main())
