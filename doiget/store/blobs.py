"""Content-addressed blob files: ``blobs/ab/cdef…`` named by the SHA-256 of their bytes.

A blob is written to ``blobs/tmp/``, fsynced, and renamed into place, so a reader never sees a
partial file under a final name. Callers insert the row that references a blob only after
``put`` returns; a crash in between leaves an unreferenced blob that ``gc`` removes.
"""
from __future__ import annotations

import hashlib
import os
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

from doiget.store.failures import store_error

_CHUNK = 1 << 20


class BlobStore:
    def __init__(self, root: Path) -> None:
        self.root = root
        self.tmp = root / "tmp"

    def path(self, sha256: str) -> Path:
        return self.root / sha256[:2] / sha256[2:]

    def exists(self, sha256: str) -> bool:
        return self.path(sha256).is_file()

    def temp_dir(self) -> Path:
        """Where in-flight files are written (same filesystem, so the final rename is atomic)."""
        self.tmp.mkdir(parents=True, exist_ok=True)
        return self.tmp

    def put_bytes(self, data: bytes) -> str:
        """Store ``data``; a disk that is full or read-only is STORE_ERROR, and no partial file stays."""
        try:
            fd, name = tempfile.mkstemp(dir=self.temp_dir(), prefix="put-")
        except OSError as exc:
            raise self._failure(exc) from exc
        try:
            with os.fdopen(fd, "wb") as handle:
                handle.write(data)
                handle.flush()
                os.fsync(handle.fileno())
            return self.put_file(Path(name), hashlib.sha256(data).hexdigest())
        except OSError as exc:
            raise self._failure(exc) from exc
        finally:
            Path(name).unlink(missing_ok=True)

    def _failure(self, exc: OSError) -> Exception:
        return store_error(self.root, exc, "write a blob in") or exc

    def put_file(self, temp_path: Path, sha256: str | None = None) -> str:
        """Move an fsynced temp file (inside ``temp_dir()``) into place; returns its SHA-256."""
        sha256 = sha256 or file_sha256(temp_path)
        final = self.path(sha256)
        if final.is_file():
            temp_path.unlink(missing_ok=True)
            return sha256
        final.parent.mkdir(parents=True, exist_ok=True)
        os.replace(temp_path, final)
        _fsync_dir(final.parent)
        return sha256

    def read(self, sha256: str) -> bytes:
        return self.path(sha256).read_bytes()

    def delete(self, sha256: str) -> bool:
        try:
            self.path(sha256).unlink()
            return True
        except FileNotFoundError:
            return False

    def all(self) -> Iterator[tuple[str, Path]]:
        """Every stored blob as (sha256, path)."""
        if not self.root.is_dir():
            return
        for prefix in sorted(self.root.iterdir()):
            if len(prefix.name) != 2 or not prefix.is_dir():
                continue
            for item in sorted(prefix.iterdir()):
                yield prefix.name + item.name, item

    def stale_temp_files(self, older_than: float) -> list[Path]:
        if not self.tmp.is_dir():
            return []
        cutoff = time.time() - older_than
        return [p for p in self.tmp.iterdir() if p.is_file() and p.stat().st_mtime < cutoff]


def file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        while block := handle.read(_CHUNK):
            digest.update(block)
    return digest.hexdigest()


def _fsync_dir(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
