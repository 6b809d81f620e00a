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
"seconds"}. Every request ends in exactly one of ok (status 200) or a counted error.

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
    """ok and {cause: count} from a list of 200 / other status / exception-name results."""
    errors = collections.Counter(str(r) for r in results if r != 200)
    return len(results) - sum(errors.values()), dict(errors)


async def aiohttp_run(mode, url, requests, concurrency, timeout):
    import aiohttp  # Debian's python3-aiohttp.

    limit = concurrency if mode == "gather" else 0
    connector = aiohttp.TCPConnector(limit=limit)
    client_timeout = aiohttp.ClientTimeout(total=timeout)
    semaphore = asyncio.Semaphore(concurrency)
    async with aiohttp.ClientSession(connector=connector, timeout=client_timeout) as session:

        async def fetch():
            try:
                async with session.get(url) as response:
                    await response.read()
                    return response.status
            except Exception as error:  # Counted by cause, like uringload's error table.
                return type(error).__name__

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
        try:
            if not hasattr(local, "session"):
                local.session = http.Session()
            response = local.session.get(url, timeout=timeout)
            return response.status_code
        except Exception as error:
            return type(error).__name__

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
                      "ok": ok, "errors": errors, "seconds": round(seconds, 3)}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
