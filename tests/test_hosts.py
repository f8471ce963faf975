"""``studydb.web.hosts``: the Host names ``serve`` answers (the DNS-rebinding guard)."""

from __future__ import annotations

import doctest
import socket

import pytest
from starlette.applications import Starlette
from starlette.responses import PlainTextResponse
from starlette.routing import Route
from starlette.testclient import TestClient

import studydb.web.hosts
from studydb.web.hosts import HostCheck, allowed_hosts, host_of


@pytest.mark.parametrize(
    ("header", "host"),
    [
        ("localhost:8000", "localhost"),
        ("LOCALHOST", "localhost"),
        ("127.0.0.1:1", "127.0.0.1"),
        ("[::1]:8000", "::1"),
        ("[::1]", "::1"),
        ("::1", "::1"),
        ("evil.example:80", "evil.example"),
        ("", ""),
    ],
)
def test_host_of(header: str, host: str) -> None:
    assert host_of(header) == host


@pytest.mark.parametrize(
    ("address", "extra", "expected_in", "expected_out"),
    [
        ("127.0.0.1", (), {"localhost", "127.0.0.1", "::1"}, {"evil.example"}),
        ("::1", (), {"localhost", "::1"}, {"evil.example"}),
        ("192.0.2.7", (), {"192.0.2.7", "localhost"}, {"192.0.2.8"}),
        ("127.0.0.1", ("Studies.Example:8080",), {"studies.example"}, {"other.example"}),
        ("0.0.0.0", (), {socket.gethostname().lower(), "localhost"}, {"evil.example"}),
    ],
)
def test_allowed_hosts(
    address: str, extra: tuple[str, ...], expected_in: set[str], expected_out: set[str]
) -> None:
    hosts = allowed_hosts(address, extra)
    assert expected_in <= hosts
    assert not expected_out & hosts


def _client(allowed: frozenset[str]) -> TestClient:
    app = Starlette(routes=[Route("/", lambda request: PlainTextResponse("ok"))])
    app.add_middleware(HostCheck, allowed=allowed)
    return TestClient(app, base_url="http://localhost")


@pytest.mark.parametrize(
    ("host", "status"),
    [("localhost", 200), ("127.0.0.1:8000", 200), ("evil.example", 400), ("x" * 500, 400)],
)
def test_middleware_answers_400_to_other_hosts(host: str, status: int) -> None:
    response = _client(allowed_hosts("127.0.0.1")).get("/", headers={"Host": host})
    assert response.status_code == status
    if status == 400:
        assert "--allow-host" in response.text
        assert len(response.text) < 400  # the bad header is quoted, cut


def test_star_answers_every_host() -> None:
    response = _client(allowed_hosts("127.0.0.1", ["*"])).get("/", headers={"Host": "a.b"})
    assert response.status_code == 200


def test_doctests() -> None:
    result = doctest.testmod(studydb.web.hosts)
    assert result.attempted > 0 and result.failed == 0
