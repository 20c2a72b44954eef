"""errkb: an error knowledge base for AI coding agents, as a SQLite extension.

This package carries errkb's programs and files, built for this platform:

- the ``errkb`` command (the runner: ``errkb install``, ``errkb doctor``,
  ``errkb search`` ...), which ``python -m errkb`` runs as well;
- the SQLite extension, for Python's ``sqlite3``::

      import sqlite3, errkb
      conn = sqlite3.connect("kb.db")
      errkb.load(conn)
      conn.execute("SELECT normalize_error(?)", ["Error at line 42"]).fetchone()

- the offline test model ``embed()`` uses (all-MiniLM-L6-v2, int8); ONNX
  Runtime comes from the ``onnxruntime`` package this one depends on.

They lie in ``marketplace/errkb/bin/``, a Claude Code plugin's layout:
``errkb plugin path`` turns that folder into a plugin marketplace.
"""
import os
import sys

__version__ = "@VERSION@"

__all__ = ["load", "loadable_path", "runner_path", "__version__"]

_BIN = os.path.join(os.path.dirname(os.path.abspath(__file__)), "marketplace", "errkb", "bin")


def loadable_path():
    """The extension file: for ``conn.load_extension()``, or ``.load`` in the sqlite3 shell."""
    return os.path.join(_BIN, "errkb.dylib" if sys.platform == "darwin" else "errkb.so")


def runner_path():
    """The ``errkb`` program (the extension is built into it)."""
    return os.path.join(_BIN, "errkb")


def load(conn):
    """Load errkb's functions into ``conn``, a ``sqlite3.Connection``.

    Extension loading is switched on for this call only, then off again
    (``enable_load_extension``), as ``sqlite_vec.load`` is commonly used.
    """
    if not hasattr(conn, "enable_load_extension"):
        raise RuntimeError(
            "this Python's sqlite3 cannot load extensions (it was built without "
            "--enable-loadable-sqlite-extensions); use one that can, such as your system's python3, "
            "Homebrew's or python.org's, or pyenv with "
            "PYTHON_CONFIGURE_OPTS=--enable-loadable-sqlite-extensions")
    conn.enable_load_extension(True)
    try:
        conn.load_extension(loadable_path())
    finally:
        conn.enable_load_extension(False)
