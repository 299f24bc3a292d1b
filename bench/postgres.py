"""A throwaway PostgreSQL cluster for tests and benchmarks: initdb in a temporary folder, a server
on a free loopback port, one database; removed when stopped.

Uses Debian's server binaries (``/usr/lib/postgresql/<version>/bin``, package ``postgresql``; or
``initdb`` on PATH). PostgreSQL refuses to run as root, so as root the cluster belongs to the
``postgres`` user and its commands run through ``runuser``. Nothing listens beyond 127.0.0.1 and
only local trust authentication is configured: a cluster for one test run, never for real data.

Run by hand (for ``python -m bench.classroom --database-url …``)::

    python -m bench.postgres          # prints the URL, keeps the server until Enter is pressed
"""

from __future__ import annotations

import glob
import os
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from bench.cold_start import free_port

DATABASE = "tinygpt"
START_TIMEOUT_S = 60


def server_bin() -> Path | None:
    """The folder holding ``initdb`` and ``pg_ctl`` (the newest Debian version), or None when absent."""
    versions = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"), key=lambda p: int(Path(p).parts[-3]))
    if versions:
        return Path(versions[-1]).parent
    found = shutil.which("initdb")  # another system's packages; a symlink is followed to its folder
    return Path(found).resolve().parent if found else None


@dataclass
class Cluster:
    """A running throwaway cluster: its folder, port and URL (``postgresql://…/tinygpt``)."""

    folder: Path
    port: int
    bin: Path
    as_user: list[str]

    @property
    def url(self) -> str:
        """The URL of the cluster's database (user ``postgres``, no password, loopback)."""
        return f"postgresql://postgres@127.0.0.1:{self.port}/{DATABASE}"

    def run(self, *args: str, check: bool = True) -> subprocess.CompletedProcess:
        """A server binary run as the cluster's owner."""
        return subprocess.run(
            [*self.as_user, str(self.bin / args[0]), *args[1:]], check=check, capture_output=True, text=True
        )

    def new_database(self, name: str) -> str:
        """Create the database ``name`` (letters, digits, _) in the cluster; returns its URL."""
        self.run("createdb", "-h", "127.0.0.1", "-p", str(self.port), "-U", "postgres", name)
        return f"postgresql://postgres@127.0.0.1:{self.port}/{name}"

    def stop(self) -> None:
        """Stop the server (fast shutdown) and remove the cluster's folder."""
        self.run("pg_ctl", "-D", str(self.folder / "data"), "-m", "fast", "-w", "stop", check=False)
        shutil.rmtree(self.folder, ignore_errors=True)


def start_cluster() -> Cluster:
    """initdb, start on a free port, create the database; returns the running :class:`Cluster`.

    Raises FileNotFoundError when PostgreSQL's server binaries are not installed and
    RuntimeError (with the server's log) when the server does not start.
    """
    bin_dir = server_bin()
    if bin_dir is None:
        raise FileNotFoundError("PostgreSQL server binaries not found (apt-get install -y postgresql)")
    folder = Path(tempfile.mkdtemp(prefix="tinygpt-pg-"))
    as_user: list[str] = []
    if os.geteuid() == 0:
        shutil.chown(folder, "postgres", "postgres")
        # runuser lives in /usr/sbin, which a login shell's PATH may leave out
        runuser = shutil.which("runuser") or shutil.which("runuser", path="/usr/sbin:/sbin") or "runuser"
        as_user = [runuser, "-u", "postgres", "--"]
    cluster = Cluster(folder, free_port(), bin_dir, as_user)
    data, log = folder / "data", folder / "server.log"
    try:
        cluster.run("initdb", "-D", str(data), "-U", "postgres", "-A", "trust", "-E", "UTF8", "--no-instructions")
        options = f"-p {cluster.port} -c listen_addresses=127.0.0.1 -k {folder} -c fsync=off -c max_connections=200"
        result = cluster.run(
            "pg_ctl",
            "-D",
            str(data),
            "-l",
            str(log),
            "-o",
            options,
            "-w",
            "-t",
            str(START_TIMEOUT_S),
            "start",
            check=False,
        )
        if result.returncode != 0:
            raise RuntimeError(f"PostgreSQL did not start: {result.stderr}\n{_tail(log)}")
        deadline = time.monotonic() + START_TIMEOUT_S
        while cluster.run(
            "createdb", "-h", "127.0.0.1", "-p", str(cluster.port), "-U", "postgres", DATABASE, check=False
        ).returncode:
            if time.monotonic() > deadline:
                raise RuntimeError(f"could not create the database\n{_tail(log)}")
            time.sleep(0.2)
    except BaseException:
        cluster.stop()
        raise
    return cluster


def _tail(path: Path, lines: int = 30) -> str:
    try:
        return "\n".join(path.read_text(errors="replace").splitlines()[-lines:])
    except OSError:
        return ""


def main() -> int:
    cluster = start_cluster()
    try:
        print(cluster.url, flush=True)
        print("Press Enter to stop the cluster.", file=sys.stderr)
        sys.stdin.readline()
    finally:
        cluster.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
