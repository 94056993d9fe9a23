"""For tests of a server: when did it close the connections a hostile client left open, and
what did it print before it was ready?"""

from __future__ import annotations

import resource
import selectors
import socket
import threading
import time
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager


@contextmanager
def half_sent(
    port: int, texts: Sequence[bytes], count: int, timeout: float = 60.0
) -> Iterator[list[socket.socket]]:
    """`count` connections to 127.0.0.1:`port`, the n-th sent `texts[n % len(texts)]` and
    nothing more (a request the server waits on the rest of); all closed on exit.

    `timeout` bounds each connect and send, so a server that stops accepting fails the test
    rather than hanging it."""
    sockets: list[socket.socket] = []
    try:
        for n in range(count):
            sock = socket.create_connection(("127.0.0.1", port), timeout=timeout)
            sockets.append(sock)
            sock.sendall(texts[n % len(texts)])
        yield sockets
    finally:
        for sock in sockets:
            sock.close()


def closed_within(sockets: list[socket.socket], timeout: float) -> tuple[int, float]:
    """How many of `sockets` the server closed (end of stream or reset) within `timeout`
    seconds, and how many seconds the last of those took. Waits on the sockets, never sleeps.

    Raises this process's limit of open files first when `sockets` could exhaust it (a server
    in the same process holds the other end of each)."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft != resource.RLIM_INFINITY and soft < 4 * len(sockets):
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, 4 * len(sockets)), hard))
    start = time.monotonic()
    closed, last = 0, 0.0
    with selectors.DefaultSelector() as selector:
        for sock in sockets:
            selector.register(sock, selectors.EVENT_READ)
        while closed < len(sockets):
            left = start + timeout - time.monotonic()
            if left <= 0:
                break
            for key, _ in selector.select(left):
                conn = key.fileobj
                assert isinstance(conn, socket.socket)
                try:
                    data = conn.recv(65536)
                except ConnectionResetError:
                    data = b""
                if not data:
                    selector.unregister(conn)
                    closed += 1
                    last = time.monotonic() - start
    return closed, last


def lines_until(stream: Iterable[str] | None, marker: str, timeout: float = 60.0) -> list[str]:
    """The lines of `stream` (a server's stderr, piped) up to the one holding `marker`; an
    `AssertionError` with what was read if it does not come within `timeout` seconds.

    The stream is read to its end on a thread of its own, so a server writing on does not
    stall on a full pipe."""
    assert stream is not None, "the stream to read is not a pipe"
    lines = stream
    found: list[str] = []
    done = threading.Event()

    def read() -> None:
        for line in lines:
            found.append(line)
            if marker in line:
                done.set()

    threading.Thread(target=read, daemon=True).start()
    assert done.wait(timeout), "".join(found)
    return list(found)
