#!/usr/bin/python3
"""The Python load clients uringload's users ran before, re-implemented faithfully.

Three approaches, each sending R GET requests with at most S in flight:
  gather     aiohttp, one task per request, all R created up front and awaited with
             asyncio.gather; S bounds the connection pool (TCPConnector(limit=S)).
  semaphore  aiohttp, one task per request (all R created up front), each holding an
             asyncio.Semaphore(S) while it runs; unlimited connection pool.
  threads    a ThreadPoolExecutor of S threads, each with its own requests.Session
             (keep-alive), mapped over the R requests.
Prints one JSON line: {"client", "requests", "concurrency", "ok", "errors": {cause: count},
"seconds", "latency_seconds": {"mean", "p50", "p99"}}. Every request ends in exactly one of ok
(status 200) or a counted error. The latency is what such a script measures, as users wrote
it: time.perf_counter around each ok request's call (after the semaphore; in gather it holds
the wait for one of the pool's S connections too); null when no request was ok.

Usage: python_client.py gather|semaphore|threads URL -n R -c S [--timeout SECONDS]
"""

import argparse
import asyncio
import collections
import concurrent.futures
import json
import sys
import threading
import time


def count(results):
    """ok and {cause: count} from a list of (200 / other status / exception name, seconds)."""
    errors = collections.Counter(str(r) for r, _ in results if r != 200)
    return len(results) - sum(errors.values()), dict(errors)


def latency(results):
    """{mean, p50, p99} of the ok requests' seconds (nearest rank), or None."""
    seconds = sorted(t for r, t in results if r == 200)
    if not seconds:
        return None
    rank = lambda q: seconds[min(len(seconds) - 1, max(0, round(q * len(seconds)) - 1))]  # noqa: E731
    return {"mean": sum(seconds) / len(seconds), "p50": rank(0.5), "p99": rank(0.99)}


async def aiohttp_run(mode, url, requests, concurrency, timeout):
    import aiohttp  # Debian's python3-aiohttp.

    limit = concurrency if mode == "gather" else 0
    connector = aiohttp.TCPConnector(limit=limit)
    client_timeout = aiohttp.ClientTimeout(total=timeout)
    semaphore = asyncio.Semaphore(concurrency)
    async with aiohttp.ClientSession(connector=connector, timeout=client_timeout) as session:

        async def fetch():
            started = time.perf_counter()
            try:
                async with session.get(url) as response:
                    await response.read()
                    return response.status, time.perf_counter() - started
            except Exception as error:  # Counted by cause, like uringload's error table.
                return type(error).__name__, time.perf_counter() - started

        async def fetch_with_semaphore():
            async with semaphore:
                return await fetch()

        one = fetch if mode == "gather" else fetch_with_semaphore
        tasks = [asyncio.ensure_future(one()) for _ in range(requests)]
        return await asyncio.gather(*tasks)


def threads_run(url, requests, concurrency, timeout):
    import requests as http  # Debian's python3-requests.

    local = threading.local()

    def fetch(_):
        started = time.perf_counter()
        try:
            if not hasattr(local, "session"):
                local.session = http.Session()
            response = local.session.get(url, timeout=timeout)
            return response.status_code, time.perf_counter() - started
        except Exception as error:
            return type(error).__name__, time.perf_counter() - started

    with concurrent.futures.ThreadPoolExecutor(max_workers=concurrency) as pool:
        return list(pool.map(fetch, range(requests)))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("client", choices=["gather", "semaphore", "threads"])
    parser.add_argument("url")
    parser.add_argument("-n", type=int, required=True, help="requests")
    parser.add_argument("-c", type=int, required=True, help="requests in flight at most")
    parser.add_argument("--timeout", type=float, default=60.0, help="per request, seconds")
    args = parser.parse_args()
    if args.n < 1 or args.c < 1 or args.timeout <= 0:
        print("python_client: -n and -c must be >= 1 and --timeout > 0", file=sys.stderr)
        return 2
    started = time.monotonic()
    if args.client == "threads":
        results = threads_run(args.url, args.n, args.c, args.timeout)
    else:
        results = asyncio.run(aiohttp_run(args.client, args.url, args.n, args.c, args.timeout))
    seconds = time.monotonic() - started
    ok, errors = count(results)
    print(json.dumps({"client": args.client, "requests": args.n, "concurrency": args.c,
                      "ok": ok, "errors": errors, "seconds": round(seconds, 3),
                      "latency_seconds": latency(results)}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
