"""Which ``Host`` headers the server answers: a guard against DNS rebinding.

A page on another site can point a name it controls at 127.0.0.1 and then
read a local server through the visitor's browser; the browser sends that
name as the ``Host`` header.  ``studydb serve`` therefore answers only the
names of the address it listens on (and those given with ``--allow-host``),
as Django's ``ALLOWED_HOSTS`` does.

>>> sorted(allowed_hosts("127.0.0.1"))
['127.0.0.1', '::1', 'localhost']
>>> host_of("[::1]:8000"), host_of("Example.org:80"), host_of("localhost")
('::1', 'example.org', 'localhost')
"""

from __future__ import annotations

import socket
from collections.abc import Collection, Iterable
from typing import Any

__all__ = ["ANY_HOST", "HostCheck", "allowed_hosts", "host_of"]

#: Given to ``--allow-host``, answers every Host header (no rebinding guard).
ANY_HOST = "*"
LOOPBACK_NAMES = frozenset({"localhost", "127.0.0.1", "::1"})
WILDCARD_ADDRESSES = frozenset({"", "0.0.0.0", "::"})


def host_of(header: str) -> str:
    """The host name of a ``Host`` header, without the port, lower-cased.

    >>> host_of("studydb.local:8080"), host_of("[fe80::1]"), host_of("")
    ('studydb.local', 'fe80::1', '')
    """
    header = header.strip().lower()
    if header.startswith("["):
        return header[1:].partition("]")[0]
    if header.count(":") == 1:
        return header.partition(":")[0]
    return header


def _is_loopback(address: str) -> bool:
    return address in LOOPBACK_NAMES or address.startswith("127.")


def allowed_hosts(address: str, extra: Iterable[str] = ()) -> frozenset[str]:
    """The Host names a server listening on ``address`` answers, plus ``extra``.

    Loopback answers its own names; a wildcard address (``0.0.0.0``, ``::``)
    also answers this machine's host names; any other address answers itself.

    >>> sorted(allowed_hosts("192.0.2.7", ["studies.example"]))
    ['127.0.0.1', '192.0.2.7', '::1', 'localhost', 'studies.example']
    """
    names = set(LOOPBACK_NAMES)
    address = host_of(address) if address.startswith("[") else address.lower()
    if address in WILDCARD_ADDRESSES:
        names.update(name.lower() for name in (socket.gethostname(), socket.getfqdn()) if name)
    elif not _is_loopback(address):
        names.add(address)
    names.update(host_of(name) if name != ANY_HOST else ANY_HOST for name in extra)
    return frozenset(names)


class HostCheck:
    """ASGI middleware answering 400 to a request whose Host is not in ``allowed``."""

    def __init__(self, app: Any, *, allowed: Collection[str]) -> None:
        self.app = app
        self.allowed = frozenset(allowed)
        self.shown = ", ".join(sorted(self.allowed))

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] not in ("http", "websocket") or ANY_HOST in self.allowed:
            await self.app(scope, receive, send)
            return
        header = dict(scope.get("headers") or ()).get(b"host", b"").decode("latin-1")
        if host_of(header) in self.allowed:
            await self.app(scope, receive, send)
            return
        shown = header[:80] + ("…" if len(header) > 80 else "")
        body = (
            f"Bad request: Host header {shown!r} is not one this server answers "
            f"({self.shown}); start studydb serve with --allow-host NAME to add a name.\n"
        ).encode()
        await send(
            {
                "type": "http.response.start",
                "status": 400,
                "headers": [
                    (b"content-type", b"text/plain; charset=utf-8"),
                    (b"content-length", str(len(body)).encode()),
                ],
            }
        )
        await send({"type": "http.response.body", "body": body})
