"""A throwaway PostgreSQL on 127.0.0.1 for tests and benchmarks: Debian's server, initdb'd into a temporary folder, run
as an unprivileged user (the `postgres` account when we are root), with a `backdrop` role and database.

    with PostgresServer() as db:
        db.url            # postgres://backdrop:PASSWORD@127.0.0.1:PORT/backdrop?sslmode=disable
        db.psql("SELECT 1")
        db.stop(); db.start()
"""
import glob
import os
import pwd
import secrets
import shutil
import subprocess
import tempfile

from backdrop_server import free_port


def postgres_bin():
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/pg_ctl"))
    if not found:
        raise RuntimeError("PostgreSQL is not installed (Debian package postgresql)")
    return os.path.dirname(found[-1])


class PostgresServer:
    def __init__(self, password=None):
        self.bin = postgres_bin()
        self.password = password or secrets.token_hex(12)
        self.port = free_port()
        self.user = "postgres" if os.geteuid() == 0 else None
        self.url = f"postgres://backdrop:{self.password}@127.0.0.1:{self.port}/backdrop?sslmode=disable"

    def run(self, *command, check=True, timeout=60):
        if self.user:
            command = ("runuser", "-u", self.user, "--") + command
        return subprocess.run(command, check=check, timeout=timeout, capture_output=True, text=True)

    def __enter__(self):
        self.work = tempfile.mkdtemp(prefix="backdrop-pg-")
        if self.user:
            account = pwd.getpwnam(self.user)
            os.chown(self.work, account.pw_uid, account.pw_gid)
        self.data = os.path.join(self.work, "data")
        self.run(f"{self.bin}/initdb", "-D", self.data, "-U", "postgres", "--auth=trust", "-E", "UTF8", "--locale=C.UTF-8")
        with open(os.path.join(self.data, "pg_hba.conf"), "w") as f:
            f.write("local all all trust\nhost all postgres 127.0.0.1/32 trust\nhost all all 127.0.0.1/32 scram-sha-256\n")
        self.start()
        self.psql(f"CREATE ROLE backdrop LOGIN PASSWORD '{self.password}'", database="postgres")
        self.psql("CREATE DATABASE backdrop OWNER backdrop", database="postgres")
        return self

    def start(self):
        options = f"-k {self.work} -c listen_addresses=127.0.0.1 -p {self.port} -c fsync=off -c synchronous_commit=off"
        self.run(f"{self.bin}/pg_ctl", "-D", self.data, "-o", options, "-l", os.path.join(self.work, "log"), "-w", "-t", "60", "start")

    def stop(self, mode="fast"):
        self.run(f"{self.bin}/pg_ctl", "-D", self.data, "-m", mode, "-w", "-t", "60", "stop", check=False)

    def psql(self, sql, database="backdrop"):
        """Runs `sql` as the superuser; returns its output, unaligned, tuples only."""
        result = self.run(f"{self.bin}/psql", "-h", self.work, "-p", str(self.port), "-U", "postgres", "-d", database,
                          "-v", "ON_ERROR_STOP=1", "-A", "-t", "-c", sql)
        return result.stdout.strip()

    def __exit__(self, *exc):
        self.stop("immediate")
        shutil.rmtree(self.work, ignore_errors=True)
        return False
