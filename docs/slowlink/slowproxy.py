#!/usr/bin/env python3
"""Loopback TCP proxy with one-way latency and a bandwidth cap (server->client),
counting bytes each way. usage: slowproxy.py LISTEN_PORT TARGET_PORT LATENCY_MS KBITS COUNTFILE"""
import asyncio, sys, time
lport, tport, lat, kbits, countfile = int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3]) / 1000, float(sys.argv[4]), sys.argv[5]
counts = {"down": 0, "up": 0}
def dump():
    with open(countfile, "w") as f:
        f.write(f"down {counts['down']} up {counts['up']} t {time.time():.3f}\n")
async def pipe(r, w, key, cap):
    q = asyncio.Queue()
    async def reader():
        while True:
            d = await r.read(4096)
            await q.put((time.monotonic(), d))
            if not d:
                return
    async def writer():
        free_at = 0.0
        while True:
            t, d = await q.get()
            if not d:
                w.close(); return
            now = time.monotonic()
            await asyncio.sleep(max(0, t + lat - now))
            if cap:
                # serialisation delay at the capped rate
                now = time.monotonic()
                start = max(now, free_at)
                free_at = start + len(d) * 8 / (cap * 1000)
                await asyncio.sleep(max(0, free_at - now))
            w.write(d); await w.drain()
            counts[key] += len(d); dump()
    await asyncio.gather(reader(), writer())
async def handle(cr, cw):
    sr, sw = await asyncio.open_connection("127.0.0.1", tport)
    await asyncio.gather(pipe(cr, sw, "up", 0), pipe(sr, cw, "down", kbits), return_exceptions=True)
async def main():
    srv = await asyncio.start_server(handle, "127.0.0.1", lport)
    dump()
    async with srv:
        await srv.serve_forever()
asyncio.run(main())
