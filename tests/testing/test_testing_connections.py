"""`half_sent` and `closed_within` against a plain listening socket: what arrives, what closes."""

from __future__ import annotations

import socket
from collections.abc import Iterator

import pytest
from retinue.testing import closed_within, half_sent


@pytest.fixture
def listener() -> Iterator[socket.socket]:
    with socket.create_server(("127.0.0.1", 0), backlog=8) as server:
        server.settimeout(10)
        yield server


def test_each_connection_is_sent_one_text_in_turn_and_closed_on_exit(
    listener: socket.socket,
) -> None:
    port = listener.getsockname()[1]
    with half_sent(port, [b"first", b"second"], 3) as sockets:
        accepted = [listener.accept()[0] for _ in range(3)]
        received = [conn.recv(64) for conn in accepted]
        assert received == [b"first", b"second", b"first"]
        assert all(sock.fileno() != -1 for sock in sockets)
    assert all(sock.fileno() == -1 for sock in sockets)  # closed by the block's end
    assert [conn.recv(64) for conn in accepted] == [b"", b"", b""]  # the server sees them go
    for conn in accepted:
        conn.close()


def test_closed_within_counts_what_the_server_closed_in_time(listener: socket.socket) -> None:
    port = listener.getsockname()[1]
    with half_sent(port, [b"GET / HTTP/1.1\r\n"], 2) as sockets:
        kept, dropped = (listener.accept()[0] for _ in range(2))
        dropped.close()
        closed, last = closed_within(sockets, timeout=0.2)
        kept.close()
    assert closed == 1
    assert 0 <= last < 0.2
