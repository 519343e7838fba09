"""Files of a run: written whole or not at all.

:func:`write_file` is :func:`carioca_env.records.write_atomic` (a temporary file in the
same folder, then ``os.replace``) that first creates the folder, as a run's outputs need.
"""

from __future__ import annotations

from pathlib import Path

from carioca_env.records import write_atomic


def write_file(path: str | Path, data: bytes | str, *, durable: bool = False) -> None:
    """Write ``data`` to ``path`` atomically, creating its folder first.

    Args:
        path: the file; its parent folders are created if missing.
        data: the bytes, or text written as UTF-8.
        durable: flush the file to the disk before it replaces the old one (a power cut
            then leaves the old file or the new one), for files a person's work lives in.

    Raises:
        OSError: the folder cannot be created or written.
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    write_atomic(path, data, durable=durable)
