"""The README's several-servers recipe is the one bench.cluster runs: its HAProxy block is valid HAProxy
(``haproxy -c``) and holds what the benchmark's proxy holds (affinity by a cookie the proxy gives each
browser, so clients sharing one address spread over the servers; websockets kept open; the client's
address forwarded), and the app servers listen where only the proxy reaches them."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from bench.cluster import HAPROXY, haproxy_config, spread

README = Path(__file__).resolve().parents[1] / "README.md"
#: What a proxy in front of several app servers must say (bench.cluster's config says it too).
ESSENTIAL = (
    "balance roundrobin",
    "cookie SERVERID insert indirect nocache httponly",
    "option forwardfor",
    "timeout tunnel 1d",
    "cookie s1",
    "cookie s2",
)


def readme_section() -> str:
    return README.read_text(encoding="utf-8").split("## Several servers", 1)[1].split("\n## ", 1)[0]


def readme_haproxy_block() -> str:
    (block,) = re.findall(r"```haproxy\n(.*?)```", readme_section(), re.S)
    return "\n".join(line.removeprefix("   ") for line in block.splitlines())


def meaning(config: str) -> set[str]:
    """The config's lines without comments and runs of spaces."""
    return {" ".join(line.split("#", 1)[0].split()) for line in config.splitlines()} - {""}


def test_the_readme_recipe_and_the_benchmarks_proxy_hold_the_same_essentials():
    recipe = meaning(readme_haproxy_block())
    bench = meaning(haproxy_config(8080, ["127.0.0.1:8501", "127.0.0.1:8502"]))
    for line in ESSENTIAL:
        assert any(line in have for have in recipe) and any(line in have for have in bench), line
    assert "server s1 127.0.0.1:8501 cookie s1" in recipe & bench
    assert not any(word in have for have in recipe for word in ("balance source", "hash", "ip_hash"))
    section = readme_section()
    assert "STREAMLIT_SERVER_COOKIE_SECRET" in section and "TINYGPT_TRUSTED_PROXIES=127.0.0.1" in section
    assert "--server.address 127.0.0.1" in section and "0.0.0.0" not in section


def test_the_benchmark_reads_servers_and_clients_from_the_proxys_log(tmp_path):
    log = tmp_path / "access.log"
    log.write_text(
        "127.0.0.1 s1 200 GET /?s=abc {0}\n127.0.0.1 s2 200 GET /?s=abc {1}\n"
        "127.0.0.1 s1 101 GET /_stcore/stream {0}\n127.0.0.1 s2 101 GET /_stcore/stream {1}\n"
        "127.0.0.1 s1 200 GET /_stcore/health {}\n127.0.0.1 s2 200 GET /?s=abc {2}\n127.0.0.1 s1 200 GET / {2}\n",
        encoding="utf-8",
    )
    per_server, switched, requests = spread(log)
    assert dict(per_server) == {"s1": 1, "s2": 1} and switched == 1 and requests == 6


def test_the_readme_haproxy_block_is_valid_haproxy(tmp_path):
    binary = shutil.which("haproxy") or (HAPROXY if Path(HAPROXY).exists() else None)
    if binary is None:
        if os.environ.get("CI"):
            pytest.fail("CI is set but haproxy is not installed (.ci/run installs it)")
        pytest.skip("haproxy not installed")
    conf = tmp_path / "haproxy.cfg"
    defaults = "defaults\n    mode http\n    timeout connect 5s\n    timeout client 50s\n    timeout server 50s\n"
    conf.write_text(defaults + readme_haproxy_block().replace("bind :80", "bind 127.0.0.1:18080") + "\n")
    result = subprocess.run([binary, "-c", "-f", str(conf)], capture_output=True, text=True, timeout=30)
    assert result.returncode == 0, result.stdout + result.stderr
