"""File names from requests, resolved inside the served folder or refused.

Every path a request names is relative to the served folder.  It is refused when it is
absolute, names ``..``, or resolves (following symlinks) to a place outside the folder,
so neither traversal nor a symlink pointing out can open another file.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path, PurePosixPath


class PathRefused(Exception):
    """A requested path that is outside the served folder, or not there at all."""

    def __init__(self, message: str, status: int = 403) -> None:
        super().__init__(message)
        self.status = status


@dataclass(frozen=True)
class SafeRoot:
    """The served folder; :meth:`resolve` maps request paths to files inside it."""

    root: Path

    @staticmethod
    def of(folder: str | Path) -> SafeRoot:
        """The served folder, resolved once (it must exist and be a directory).

        Raises:
            NotADirectoryError: ``folder`` is not a directory.
        """
        real = Path(folder).expanduser().resolve()
        if not real.is_dir():
            raise NotADirectoryError(f"the folder to serve, {folder}, is not a directory")
        return SafeRoot(real)

    def resolve(self, rel: str, *, kind: str = "file") -> Path:
        """The real path of ``rel`` (relative to the folder), which must exist inside it.

        ``kind`` is ``"file"``, ``"dir"`` or ``"any"``.

        Raises:
            PathRefused: absolute, ``..``, outside the folder after resolving symlinks
                (status 403), or missing / of the wrong kind (status 404).
        """
        if not isinstance(rel, str) or len(rel) > 1000 or "\x00" in rel:
            raise PathRefused("a path is a string of at most 1000 characters without NUL")
        pure = PurePosixPath(rel.replace("\\", "/"))
        if pure.is_absolute() or rel.startswith("~"):
            raise PathRefused(f"path {rel!r} is absolute: give a path relative to the served folder")
        if ".." in pure.parts:
            raise PathRefused(f"path {rel!r} names '..': only files inside the served folder can be opened")
        try:
            real = (self.root / pure).resolve()
            if not real.is_relative_to(self.root):
                raise PathRefused(f"path {rel!r} leads outside the served folder (a symlink out is refused)")
            if not real.exists():
                raise PathRefused(f"there is no {rel!r} in the served folder", status=404)
            if kind == "file" and not real.is_file():
                raise PathRefused(f"{rel!r} is not a file", status=404)
            if kind == "dir" and not real.is_dir():
                raise PathRefused(f"{rel!r} is not a folder", status=404)
        except OSError as exc:  # a name too long for the file system, a symlink loop...
            raise PathRefused(f"{rel[:100]!r} cannot be opened: {exc.strerror or exc}", status=404) from None
        return real

    def model(self, rel: str) -> Path:
        """The model file a ``ppo:`` argument names (a ``.zip``, its folder, or the path
        without ``.zip``), resolved: it and its card beside it must be files inside the
        folder (a model is a pickle, a card is read: neither may come from outside).

        Raises:
            PathRefused: as :meth:`resolve`, or no model file or card there (404).
        """
        from carioca_agents.ppo_agent import card_path, resolve_model_path

        try:
            named = self.resolve(rel, kind="any")
        except PathRefused as exc:
            if exc.status != 404 or rel.endswith(".zip"):
                raise
            try:
                named = self.resolve(rel + ".zip")  # ppo:runs/c1/model is runs/c1/model.zip
            except PathRefused:
                raise exc from None
        real = resolve_model_path(named).resolve()
        if real.suffix != ".zip":  # a record or a game file is no model: not even its "card" is read
            raise PathRefused(f"{rel!r} is not a model (a .zip with its .json card, or their folder)", 404)
        card = card_path(real).resolve()
        for what, p in (("model", real), ("model card", card)):
            if not p.is_relative_to(self.root):
                raise PathRefused(f"the {what} of {rel!r} leads outside the served folder (a symlink out is refused)")
            if not p.is_file():
                raise PathRefused(f"there is no {what} for {rel!r} in the served folder", 404)
        return real

    def child(self, folder: Path, name: str) -> Path | None:
        """``folder/name`` if it is a file that resolves inside the served folder, else None
        (a fixed name such as ``summary.json`` may still be a symlink leading out)."""
        p = folder / name
        real = p.resolve()
        return real if real.is_file() and real.is_relative_to(self.root) else None

    def relative(self, real: Path) -> str:
        """The request path (POSIX, relative to the folder) of a real path inside it."""
        rel = real.resolve().relative_to(self.root).as_posix()
        return "" if rel == "." else rel
