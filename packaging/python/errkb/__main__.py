"""The ``errkb`` command: runs the errkb program this package carries.

It replaces this Python process (``os.execv``), so the program's exit
code, signals and terminal are its own; it finds its extension, model and
ONNX Runtime (in the ``onnxruntime`` package of this environment) by itself.
"""
import os
import sys

from . import runner_path


def main():
    program = runner_path()
    if not os.access(program, os.X_OK):
        sys.exit(f"errkb: {program} is missing or not executable: reinstall errkb "
                 "(pip install --force-reinstall errkb)")
    os.execv(program, [program, *sys.argv[1:]])


if __name__ == "__main__":
    main()
