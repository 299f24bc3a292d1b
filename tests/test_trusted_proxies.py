"""Forwarded headers count only from the proxies an operator names (``TINYGPT_TRUSTED_PROXIES``, none by
default): a client that reaches an app server directly and sends a new ``X-Forwarded-For`` with every
try is still one client, and is still made to wait (tinygpt.classroom.guard, tinygpt.ui.classwork.class_guard)."""

from __future__ import annotations

import pytest
import websockets
from helpers import run_coroutine

from bench.cold_start import ARTIFACTS, start_server, stop_server, wait_healthy
from bench.st_client import Session, stream_url
from tinygpt.classroom.guard import LIMIT, Attempts, client_address, connection_peer, trusted_proxies
from tinygpt.classroom.store import Store, database_url
from tinygpt.config import ConfigError
from tinygpt.i18n import t


def test_no_proxy_is_trusted_by_default_and_a_bad_entry_is_named():
    assert trusted_proxies({}) == () and trusted_proxies({"TINYGPT_TRUSTED_PROXIES": " "}) == ()
    nets = trusted_proxies({"TINYGPT_TRUSTED_PROXIES": "127.0.0.1, 10.0.1.0/24"})
    assert [str(n) for n in nets] == ["127.0.0.1/32", "10.0.1.0/24"]
    with pytest.raises(ConfigError) as caught:
        trusted_proxies({"TINYGPT_TRUSTED_PROXIES": "127.0.0.1,proxy.lan"})
    assert caught.value.field == "TINYGPT_TRUSTED_PROXIES" and caught.value.value == "proxy.lan"


def test_a_forwarded_header_counts_only_from_a_trusted_proxy():
    proxy = trusted_proxies({"TINYGPT_TRUSTED_PROXIES": "10.0.0.10"})
    assert client_address("10.0.0.10", "198.51.100.4", proxy) == "198.51.100.4"
    # a client that prepends its own hop cannot choose its name: the proxy appends the real one
    assert client_address("10.0.0.10", "1.2.3.4, 198.51.100.4", proxy) == "198.51.100.4"
    assert client_address("10.0.0.10", "", proxy) == "10.0.0.10"
    for trusted in ((), proxy):  # a private address reaching the app directly is itself, whatever it sends
        assert client_address("192.168.1.23", "203.0.113.9", trusted) == "192.168.1.23"


def test_the_connection_is_told_from_the_address_the_web_server_shows():
    # uvicorn shows the header's last hop for a loopback peer, None for loopback itself
    assert connection_peer("203.0.113.9", "203.0.113.9") == "127.0.0.1"
    assert connection_peer(None, "") == "127.0.0.1"
    assert connection_peer("192.168.1.23", "") == "192.168.1.23"
    assert connection_peer("192.168.1.23", "192.168.1.23, 203.0.113.9") == "192.168.1.23"  # not uvicorn's pick
    loopback = trusted_proxies({"TINYGPT_TRUSTED_PROXIES": "127.0.0.1"})
    assert client_address(connection_peer("198.51.100.4", "198.51.100.4"), "198.51.100.4", loopback) == "198.51.100.4"
    assert client_address(connection_peer("198.51.100.4", "198.51.100.4"), "198.51.100.4", ()) == "127.0.0.1"


def test_spoofed_headers_from_one_client_are_still_counted_as_one():
    guard = Attempts()
    for n in range(LIMIT):
        guard.failed(client_address("192.168.1.23", f"203.0.113.{n}", ()))
    assert guard.wait_s(client_address("192.168.1.23", "203.0.113.200", ())) > 0


async def _guesses(url: str, code: str, tries: int) -> list[list[str]]:
    """``tries`` wrong teacher links, each on a new connection with a new X-Forwarded-For: the alerts."""
    seen = []
    for n in range(tries):
        headers = {"X-Forwarded-For": f"203.0.113.{n + 1}"}
        async with websockets.connect(
            stream_url(url), subprotocols=["streamlit"], max_size=None, open_timeout=120, additional_headers=headers
        ) as ws:
            run = await Session(ws).run("teacher", query=f"class={code}&key={n:024d}&lang=en")
            seen.append(run.errors + [text for text in run.texts if "Too many" in text])
    return seen


def test_a_client_reaching_the_app_directly_with_spoofed_headers_is_made_to_wait(tmp_path):
    env = {"TINYGPT_DATA_DIR": str(tmp_path / "data")}
    store = Store(database_url(env))
    code, _ = store.create_class("lesson=1&pages=attention")
    store.dispose()
    proc, url = start_server(log_path=ARTIFACTS / "trusted-proxies-server.log", env=env)
    try:
        wait_healthy(proc, url)
        seen = run_coroutine(_guesses(url, code, LIMIT + 1))
    finally:
        stop_server(proc)
    no_access, too_many = t("teacher.no_access", "en"), t("teacher.too_many", "en", seconds=0)[:30]
    assert all(any(no_access in text for text in alerts) for alerts in seen[:LIMIT]), seen
    assert any(too_many in text for text in seen[LIMIT]), seen[LIMIT]
