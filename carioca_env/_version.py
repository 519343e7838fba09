"""The package version: the single source read by ``pyproject.toml`` and ``carioca --version``."""

__version__ = "0.1.0"
