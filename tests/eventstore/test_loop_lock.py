"""``LoopSafeLock`` excludes across threads and loops, and within one loop keeps the order
its waiters came in; ``Wakeups`` wakes a waiter on another loop."""

from __future__ import annotations

import asyncio
import threading

from eventstore.loop_lock import LoopSafeLock, Wakeups


def test_one_holder_at_a_time_across_threads_and_loops() -> None:
    lock, inside, overlaps, done = LoopSafeLock(), [0], [0], [0]

    async def work() -> None:
        async def one() -> None:
            async with lock:
                inside[0] += 1
                overlaps[0] += inside[0] > 1
                await asyncio.sleep(0.0005)
                inside[0] -= 1
                done[0] += 1

        await asyncio.gather(*(one() for _ in range(25)))

    threads = [threading.Thread(target=asyncio.run, args=(work(),)) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert (done[0], overlaps[0]) == (100, 0)
    assert not lock.locked()


async def test_a_loops_waiters_take_it_in_order() -> None:
    lock, order = LoopSafeLock(), []

    async def take(n: int) -> None:
        async with lock:
            order.append(n)
            await asyncio.sleep(0)

    await asyncio.gather(*(take(n) for n in range(10)))
    assert order == list(range(10))


def test_a_wakeup_reaches_a_waiter_on_another_loop() -> None:
    wakeups, woke = Wakeups(), threading.Event()
    waiting = threading.Event()

    async def wait() -> None:
        event = wakeups.event("acme")
        waiting.set()
        await asyncio.wait_for(event.wait(), 10)
        woke.set()

    thread = threading.Thread(target=asyncio.run, args=(wait(),))
    thread.start()
    assert waiting.wait(10)
    asyncio.run(asyncio.sleep(0))  # another loop, in this thread
    wakeups.wake("acme")
    thread.join(10)
    assert woke.is_set()
