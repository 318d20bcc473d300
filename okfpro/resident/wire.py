"""A request as it crosses a Unix socket: from the client to the server, and from the server to the
child that answers it.

A request is a marshalled tuple (:data:`PROTOCOL`, command line, environment, ``sys.argv``,
``sys.path``, which standard descriptors are open, their encodings, the umask, the working
directory's path) framed by its length in 4 bytes, with the open standard descriptors and the
working directory riding on its first bytes (``SCM_RIGHTS``); the server adds the client's
connection when it hands the request on.  The client's per-event path imports this module: it uses
the C ``_socket`` and ``marshal`` only.
"""

from __future__ import annotations

import marshal
import os
import sys

import _socket

TYPE_CHECKING = False
if TYPE_CHECKING:  # no typing at run time: the client imports this module on every served event
    from typing import Any

PROTOCOL = 1
REQUEST_LIMIT = 8 << 20  # bytes of one request (the environment included)


def send(sock: Any, request: tuple, fds: list[int]) -> None:
    """Send ``request`` on ``sock`` with ``fds`` riding on it."""
    body = marshal.dumps(request)
    frame = len(body).to_bytes(4, "little") + body
    rights = b"".join(fd.to_bytes(4, sys.byteorder, signed=True) for fd in fds)
    sent = sock.sendmsg([frame], [(_socket.SOL_SOCKET, _socket.SCM_RIGHTS, rights)])
    if sent < len(frame):
        sock.sendall(frame[sent:])


def receive(conn: Any, extra: int = 0) -> tuple[tuple, list[int]] | None:
    """One request as the client frames it (4 bytes of length, the marshalled tuple, the standard
    descriptors present and the working directory riding on it, ``extra`` more after them), checked
    against the protocol; None when ``conn`` ends before a byte of it.  ValueError for anything else
    (the descriptors it carried are closed)."""
    fds: list[int] = []
    data, ancillary, _flags, _addr = conn.recvmsg(1 << 16, _socket.CMSG_SPACE(8 * 4), _socket.MSG_CMSG_CLOEXEC)
    for level, kind, payload in ancillary:
        if level == _socket.SOL_SOCKET and kind == _socket.SCM_RIGHTS:
            usable = len(payload) - len(payload) % 4
            fds.extend(int.from_bytes(payload[i:i + 4], sys.byteorder, signed=True) for i in range(0, usable, 4))
    if not data and not fds:
        return None
    try:
        if len(data) < 4:
            raise ValueError("short request")
        size = int.from_bytes(data[:4], "little")
        if size > REQUEST_LIMIT:
            raise ValueError(f"request of {size} bytes")
        body = bytearray(data[4:])
        while len(body) < size:
            chunk = conn.recv(min(1 << 20, size - len(body)))
            if not chunk:
                raise ValueError("torn request")
            body += chunk
        request = marshal.loads(bytes(body[:size]))
        if not (isinstance(request, tuple) and len(request) == 9 and request[0] == PROTOCOL):
            raise ValueError("not this protocol")
        present = request[5]
        if not (isinstance(present, tuple) and len(present) == 3
                and len(fds) == sum(map(bool, present)) + 1 + extra):
            raise ValueError("descriptors do not match the request")
    except BaseException:
        for fd in fds:
            os.close(fd)
        raise
    return request, fds
