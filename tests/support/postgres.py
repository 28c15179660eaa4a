"""A throwaway PostgreSQL cluster for one test session: real ``initdb``, real ``pg_ctl``.

Debian's ``postgresql`` package (``scripts/test`` installs it) puts the server in
``/usr/lib/postgresql/<version>/bin``. PostgreSQL refuses to run as root, so as root
the cluster is made and run by the ``postgres`` user, in a folder that user owns.
The cluster listens on 127.0.0.1 and a socket folder of its own, never on the
machine's default port, and asks TCP clients for a password (scram-sha-256), so a
wrong password is tested for real.
"""

from __future__ import annotations

import contextlib
import glob
import os
import shutil
import socket
import subprocess
import tempfile
import time
from pathlib import Path

USER = "comodor"
PASSWORD = "team-secret-pw"
SUPERUSER_PASSWORD = "cluster-admin-pw"


def server_bin() -> Path | None:
    """The folder holding ``initdb`` and ``pg_ctl``, or None when PostgreSQL is missing."""
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"), reverse=True)
    if found:
        return Path(found[0]).parent
    initdb = shutil.which("initdb")
    return Path(initdb).resolve().parent if initdb else None


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


class Cluster:
    """One cluster in a temporary folder; ``stop``/``start`` simulate an outage."""

    def __init__(self, bin_dir: Path, max_connections: int | None = None) -> None:
        self.bin = bin_dir
        self.max_connections = max_connections
        """PostgreSQL's ``max_connections`` (None: its default, 100)."""
        self.port = free_port()
        self.root = Path(tempfile.mkdtemp(prefix="comodor-pg-"))
        self.data = self.root / "data"
        self.sockets = self.root / "sockets"
        self.log = self.root / "server.log"
        self.sockets.mkdir()
        self._as_postgres = os.geteuid() == 0
        if self._as_postgres:
            shutil.chown(self.root, "postgres", "postgres")
            shutil.chown(self.sockets, "postgres", "postgres")
            self.root.chmod(0o755)
        self.databases = 0

    def _run(self, *argv: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        command = list(argv)
        if self._as_postgres:
            command = ["runuser", "-u", "postgres", "--", *command]
        return subprocess.run(
            command, capture_output=True, text=True, check=check, timeout=120, cwd=self.root
        )

    def init(self) -> Cluster:
        pwfile = self.root / "pwfile"
        pwfile.write_text(SUPERUSER_PASSWORD + "\n")
        if self._as_postgres:
            shutil.chown(pwfile, "postgres", "postgres")
        self._run(
            str(self.bin / "initdb"),
            "-D",
            str(self.data),
            "-U",
            "postgres",
            "--auth-local=trust",
            "--auth-host=scram-sha-256",
            f"--pwfile={pwfile}",
            "-E",
            "UTF8",
            "--locale=C",
        )
        self.start()
        self.psql(f"CREATE ROLE {USER} LOGIN PASSWORD '{PASSWORD}'")
        return self

    def start(self) -> None:
        options = f"-p {self.port} -k {self.sockets} -c listen_addresses=127.0.0.1 -c fsync=off"
        if self.max_connections is not None:
            options += f" -c max_connections={self.max_connections}"
        self._run(
            str(self.bin / "pg_ctl"), "-D", str(self.data), "-l", str(self.log), "-w",
            "-o", options, "start",
        )  # fmt: skip

    def stop(self) -> None:
        self._run(str(self.bin / "pg_ctl"), "-D", str(self.data), "-m", "fast", "-w", "stop")

    def psql(self, sql: str, database: str = "postgres") -> str:
        """Run SQL as the superuser over the socket folder; return what it printed."""
        done = self._run(
            str(self.bin / "psql"), "-h", str(self.sockets), "-p", str(self.port),
            "-U", "postgres", "-d", database, "-v", "ON_ERROR_STOP=1", "-At", "-c", sql,
        )  # fmt: skip
        return done.stdout.strip()

    def new_database(self) -> str:
        """A fresh, empty database owned by the test user; its URL (without a password)."""
        self.databases += 1
        name = f"team{self.databases}_{int(time.time() * 1000) % 100000}"
        self.psql(f"CREATE DATABASE {name} OWNER {USER}")
        return self.url(name)

    def url(self, database: str, password: str | None = None) -> str:
        secret = f":{password}" if password is not None else ""
        return f"postgresql://{USER}{secret}@127.0.0.1:{self.port}/{database}"

    def destroy(self) -> None:
        """Stop at once (``-m immediate``) and remove the folder, without waiting for it.

        A clean stop first writes every dirty page of every database the tests made, which
        took 40 s at the end of each worker's session on a busy machine; nothing of this
        cluster is kept, so there is nothing to write. Removing the folder (a copy of
        ``template1`` per test database, hundreds of MB) took ~6 s at the end of each
        worker, so a detached ``rm -rf`` does it while the next tier runs.
        """
        with contextlib.suppress(subprocess.SubprocessError, OSError):
            self._run(
                str(self.bin / "pg_ctl"), "-D", str(self.data), "-m", "immediate", "-w", "stop"
            )  # fmt: skip
        try:
            subprocess.Popen(
                ["rm", "-rf", "--", str(self.root)],
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                start_new_session=True,
            )
        except OSError:
            shutil.rmtree(self.root, ignore_errors=True)
