"""The README's several-servers recipe is the one bench.cluster runs: its nginx block is valid nginx
(``nginx -t``) and holds what the benchmark's proxy holds (affinity by the client's address,
websockets passed through, uploads up to 200 MB)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from bench.cluster import NGINX, nginx_config

README = Path(__file__).resolve().parents[1] / "README.md"
#: What a proxy in front of several app servers must say (bench.cluster's config says it too).
ESSENTIAL = (
    "hash $remote_addr consistent;",
    "proxy_set_header Upgrade $http_upgrade;",
    "proxy_set_header Connection $connection_upgrade;",
    "proxy_http_version 1.1;",
    "client_max_body_size 200m;",
)


def readme_nginx_block() -> str:
    section = README.read_text(encoding="utf-8").split("## Several servers", 1)[1].split("\n## ", 1)[0]
    (block,) = re.findall(r"```nginx\n(.*?)```", section, re.S)
    return "\n".join(line.removeprefix("   ") for line in block.splitlines())


def test_the_readme_recipe_and_the_benchmarks_proxy_hold_the_same_essentials(tmp_path):
    recipe, bench = readme_nginx_block(), nginx_config(tmp_path, 8080, ["127.0.0.1:8501", "127.0.0.1:8502"])
    for line in ESSENTIAL:
        assert line in recipe and line in bench, line
    assert not re.search(r"^\s*ip_hash", recipe, re.M)  # a classroom on one /24 network would share one server
    assert "STREAMLIT_SERVER_COOKIE_SECRET" in README.read_text(encoding="utf-8")


def test_the_readme_nginx_block_is_valid_nginx(tmp_path):
    binary = shutil.which("nginx") or (NGINX if Path(NGINX).exists() else None)
    if binary is None:
        if os.environ.get("CI"):
            pytest.fail("CI is set but nginx is not installed (.ci/run installs it)")
        pytest.skip("nginx not installed")
    conf = tmp_path / "nginx.conf"
    user = "user root;\n" if os.geteuid() == 0 else ""
    conf.write_text(
        f"{user}pid {tmp_path}/nginx.pid;\nevents {{}}\nhttp {{\n    access_log off;\n"
        f"    client_body_temp_path {tmp_path}/body;\n    proxy_temp_path {tmp_path}/proxy;\n"
        f"{readme_nginx_block().replace('listen 80;', 'listen 127.0.0.1:18080;')}\n}}\n",
        encoding="utf-8",
    )
    result = subprocess.run(
        [binary, "-t", "-p", str(tmp_path), "-c", str(conf), "-e", str(tmp_path / "error.log")],
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert result.returncode == 0, result.stderr
