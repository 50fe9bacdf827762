#!/usr/bin/python3
"""A Python asyncio + aiohttp streaming chat client: the runner HTTP ceiling's reference point.

It does what a typical Python serving benchmark does per request (vLLM's benchmark_serving, the
methodology's multi-round client): POST a chat body, read the SSE stream line by line, decode each
`data:` event as JSON, stamp the first token and each later one. USERS closed-loop users, each
sending its next request when the previous one ended, for SECONDS.

  aiohttp_sse_client.py URL USERS SECONDS BODY_FILE
Prints one line: `requests=N failed=F seconds=S requests_per_s=R`.
"""
import asyncio
import json
import sys
import time

import aiohttp


async def one_user(session, url, body, user, deadline, counts):
    headers = {"Content-Type": "application/json", "x-user-id": f"py-{user}"}
    while time.monotonic() < deadline:
        start = time.monotonic()
        first_token = None
        token_times = []
        done = False
        try:
            async with session.post(url, data=body, headers=headers) as response:
                if response.status != 200:
                    counts["failed"] += 1
                    continue
                async for raw in response.content:
                    line = raw.strip()
                    if not line.startswith(b"data:"):
                        continue
                    data = line[5:].strip()
                    if data == b"[DONE]":
                        done = True
                        break
                    event = json.loads(data)
                    now = time.monotonic()
                    choices = event.get("choices") or []
                    if choices and choices[0].get("delta", {}).get("content"):
                        if first_token is None:
                            first_token = now - start
                        token_times.append(now)
        except aiohttp.ClientError:
            counts["failed"] += 1
            continue
        if done:
            counts["requests"] += 1
        else:
            counts["failed"] += 1


async def main():
    url, users, seconds, body_file = sys.argv[1], int(sys.argv[2]), float(sys.argv[3]), sys.argv[4]
    with open(body_file, "rb") as f:
        body = f.read()
    counts = {"requests": 0, "failed": 0}
    connector = aiohttp.TCPConnector(limit=users)
    async with aiohttp.ClientSession(connector=connector) as session:
        begin = time.monotonic()
        deadline = begin + seconds
        await asyncio.gather(
            *(one_user(session, url, body, u, deadline, counts) for u in range(users)))
        elapsed = time.monotonic() - begin
    print(f"requests={counts['requests']} failed={counts['failed']} seconds={elapsed:.2f} "
          f"requests_per_s={counts['requests'] / elapsed:.0f}")


if __name__ == "__main__":
    asyncio.run(main())
