"""Shutdown on stdin EOF: the calls in flight get a grace period to finish; any still running then
is answered with a cancellation envelope, so every request gets its reply and the server exits
within SHUTDOWN_SECONDS even when a call is stuck on a stalled upstream (its worker thread is
abandoned, not waited for)."""
from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

import anyio
from anyio.abc import ObjectReceiveStream, ObjectSendStream

log = logging.getLogger("doiget.mcp")
GRACE_SECONDS = 3.0  # in-flight calls may finish this long after stdin closes
SHUTDOWN_SECONDS = 5.0  # ... and the server is gone within this (replies flushed, exit)
T = TypeVar("T")


class Lifecycle:
    """Counts calls in flight and tells them when stdin closed and when their grace is over."""

    def __init__(self) -> None:
        self.cancel = anyio.Event()
        self.in_flight = 0
        self.idle = anyio.Event()
        self.idle.set()

    async def run_call(self, work: Callable[[], T], on_cancel: Callable[[], T]) -> T:
        """``work()`` in a worker thread; ``on_cancel()`` instead when the grace after EOF runs out."""
        self.in_flight += 1
        self.idle = anyio.Event() if self.in_flight == 1 else self.idle
        box: dict[str, Any] = {}
        try:
            async with anyio.create_task_group() as group:
                async def call() -> None:
                    box["result"] = await anyio.to_thread.run_sync(work, abandon_on_cancel=True)
                    group.cancel_scope.cancel()

                async def watch() -> None:
                    await self.cancel.wait()
                    group.cancel_scope.cancel()

                group.start_soon(call)
                group.start_soon(watch)
            return box["result"] if "result" in box else on_cancel()
        finally:
            self.in_flight -= 1
            if self.in_flight == 0:
                self.idle.set()

    async def forward(self, source: ObjectReceiveStream, sink: ObjectSendStream) -> None:
        """Pass client messages through; at EOF wait for in-flight calls (cancelling them after the
        grace period), then close ``sink`` so the server finishes."""
        async with sink:
            async for message in source:
                await sink.send(message)
            with anyio.move_on_after(GRACE_SECONDS):
                await self.idle.wait()
            if self.in_flight:
                log.warning("stdin closed: cancelling %d call(s) still running", self.in_flight)
                self.cancel.set()
                with anyio.move_on_after(SHUTDOWN_SECONDS - GRACE_SECONDS - 0.5):
                    await self.idle.wait()
            await anyio.sleep(0.05)  # let the replies just produced reach the writer


async def serve_until_eof(run: Callable[[ObjectReceiveStream, ObjectSendStream], Awaitable[None]],
                          read_stream: ObjectReceiveStream, write_stream: ObjectSendStream,
                          lifecycle: Lifecycle) -> None:
    """``run(read, write)`` (the MCP server loop) fed through ``lifecycle.forward``."""
    send, receive = anyio.create_memory_object_stream(16)
    async with anyio.create_task_group() as group:
        group.start_soon(lifecycle.forward, read_stream, send)
        await run(receive, write_stream)
        group.cancel_scope.cancel()
