"""The Rust modules' graph: no cycle, and no arrow from a lower layer up.

Reads each crate's module tree (`mod x;` from lib.rs and each binary's
main.rs) and the arrows between its files: a parent's `mod` of a child,
and every path through `crate::`, `super::`, `self::` or a child module
(in `use` and in expressions alike), resolved to the file of the deepest
module it names. An item of a parent (lib.rs, a mod.rs) that a child uses
is then a cycle: those files only declare modules. Comments, strings and
an inline `mod tests { use super::*; }` (which names its own file) are no
arrows.

Checked: no cycle between files, none between a crate's top-level modules
(a folder counts as one), no module found through `#[path]` (a file is
compiled once, where its name says), and the library's layers (LAYERS).
Run directly (`python3 tests/test_module_graph.py`) it prints the arrows.
"""

import re
import sys
import tomllib
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# The library's layers, bottom first, by top-level module. An arrow may go
# down or stay level, never up. Unlisted modules are the middle layer.
LAYERS = [
    {"sqlite"},  # SQLite's C API and the virtual-table machinery
    None,  # the logic: text, search, learning, advice, embedding ...
    {"functions"},  # every SQL function, registered
    {"extension"},  # the entry points SQLite calls
    {"runtime"},  # the runner's programs: connections with the extension built in
]

# Modules outside the base layer may not touch SQLite's C API themselves.
RAW_SQLITE = re.compile(
    r"\*\s*(?:const|mut)\s+(?:[\w:]+::)?sqlite3\b"  # a connection pointer
    r"|\bsqlite3_\w+\s*\("  # a C function, called
    r"|\bsqlite3ext_sys\b|\brusqlite::ffi\b|\bffi::sqlite3_"  # the bindings
)
BASE_DIR = "src/sqlite"

TOKEN = re.compile(
    r"""
    (?P<ws>\s+)
  | (?P<line_comment>//[^\n]*)
  | (?P<block_comment>/\*)
  | (?P<raw_string>b?r(?P<hashes>\#*)")
  | (?P<string>b?"(?:\\.|[^"\\])*")
  | (?P<char>b?'(?:\\(?:x[0-9a-fA-F]{2}|u\{[0-9a-fA-F]+\}|.)|[^'\\])')
  | (?P<lifetime>'[A-Za-z_]\w*)
  | (?P<ident>[A-Za-z_]\w*)
  | (?P<path_sep>::)
  | (?P<number>\d[\w.]*)
  | (?P<punct>.)
    """,
    re.S | re.X,
)


def tokens(text):
    """The code's tokens (kind, text), without comments and literals."""
    out, i = [], 0
    while i < len(text):
        m = TOKEN.match(text, i)
        kind = m.lastgroup if m.lastgroup != "hashes" else "raw_string"
        if m.group("block_comment"):
            depth, j = 1, m.end()
            while depth and j < len(text):
                if text.startswith("/*", j):
                    depth, j = depth + 1, j + 2
                elif text.startswith("*/", j):
                    depth, j = depth - 1, j + 2
                else:
                    j += 1
            i = j
            continue
        if m.group("raw_string"):
            end = text.find('"' + m.group("hashes"), m.end())
            i = len(text) if end < 0 else end + 1 + len(m.group("hashes"))
            out.append(("literal", ""))
            continue
        i = m.end()
        if kind in ("ws", "line_comment"):
            continue
        if kind in ("string", "char", "number"):
            out.append(("literal", ""))
        elif kind == "ident":
            out.append(("ident", m.group()))
        else:
            out.append((kind, m.group()))
    return out


def use_paths(toks, i):
    """The paths of the use tree starting at toks[i]; and where it ends."""
    paths = []

    def tree(i, prefix):
        segments = list(prefix)
        while i < len(toks):
            kind, text = toks[i]
            if text == "{":
                i += 1
                while toks[i][1] != "}":
                    i = tree(i, segments)
                    if toks[i][1] == ",":
                        i += 1
                return i + 1
            if text == "as":
                i += 2  # the alias names nothing new
            elif kind == "ident":
                segments.append(text)
                i += 1
            elif text == "*":
                i += 1
            elif kind == "path_sep":
                i += 1
                continue
            else:
                break
            if i < len(toks) and toks[i][0] == "path_sep":
                continue
            if i < len(toks) and toks[i][1] == "as":
                continue
            break
        if segments and segments[-1] == "self":
            segments = segments[:-1]
        paths.append(segments)
        return i

    i = tree(i, [])
    return paths, i


class Crate:
    def __init__(self, name, root):
        self.name = name
        self.root = root
        self.files = {}  # module path (tuple) -> file
        self.problems = []
        self.arrows = defaultdict(set)  # file -> files
        self.raw_sqlite = []
        self._load(root, ())
        for module, file in list(self.files.items()):
            self._arrows(module, file)

    def _children_dir(self, file):
        if file.name in ("lib.rs", "main.rs", "mod.rs"):
            return file.parent
        return file.parent / file.stem

    def _load(self, file, module):
        self.files[module] = file
        toks = tokens(file.read_text())
        depth = 0
        for i, (kind, text) in enumerate(toks):
            if text == "{":
                depth += 1
            elif text == "}":
                depth -= 1
            elif (
                text == "mod"
                and depth == 0
                and i + 2 < len(toks)
                and toks[i + 1][0] == "ident"
                and toks[i + 2][1] == ";"
            ):
                name = toks[i + 1][1]
                attributes = "".join(t for _, t in toks[max(0, i - 12) : i])
                if "#[path=" in attributes:
                    self.problems.append(f"{rel(file)}: module {name} is found through #[path]")
                directory = self._children_dir(file)
                child = next(
                    (f for f in (directory / f"{name}.rs", directory / name / "mod.rs") if f.exists()),
                    None,
                )
                if child is None:
                    self.problems.append(f"{rel(file)}: no file for module {name}")
                    continue
                self._load(child, module + (name,))

    def _resolve(self, file_module, inline, segments):
        """The file a path names, or None for another crate's or a local item."""
        if not segments:
            return None
        here = file_module + tuple(inline)
        first = segments[0]
        if first == "crate":
            base, rest = (), segments[1:]
        elif first == "self":
            base, rest = here, segments[1:]
        elif first == "super":
            base, rest = here, segments
            while rest and rest[0] == "super":
                base, rest = base[:-1], rest[1:]
        elif not inline and file_module + (first,) in self.files:
            base, rest = file_module, segments
        else:
            return None
        # inside an inline module: the file it is written in
        while base not in self.files:
            base = base[:-1]
        for segment in rest:
            if base + (segment,) in self.files:
                base = base + (segment,)
            else:
                break
        return self.files[base]

    def _arrows(self, module, file):
        toks = tokens(file.read_text())
        inline = []  # (name, brace depth it opened at)
        depth = 0
        i = 0
        pending_inline = None
        while i < len(toks):
            kind, text = toks[i]
            if text == "{":
                depth += 1
                if pending_inline is not None:
                    inline.append((pending_inline, depth))
                    pending_inline = None
            elif text == "}":
                if inline and inline[-1][1] == depth:
                    inline.pop()
                depth -= 1
            elif text == "mod" and i + 2 < len(toks) and toks[i + 1][0] == "ident":
                name = toks[i + 1][1]
                if toks[i + 2][1] == "{":
                    pending_inline = name
                elif not inline and module + (name,) in self.files:
                    self.arrows[file].add(self.files[module + (name,)])
                i += 2
                continue
            elif text == "in" and i > 1 and toks[i - 1][1] == "(" and toks[i - 2][1] == "pub":
                # a visibility, pub(in crate::x): names where, imports nothing
                while toks[i][1] != ")":
                    i += 1
                continue
            elif text == "use":
                paths, i = use_paths(toks, i + 1)
                for segments in paths:
                    self._arrow(module, [n for n, _ in inline], file, segments)
                continue
            elif kind == "ident" and i + 1 < len(toks) and toks[i + 1][0] == "path_sep":
                if i == 0 or toks[i - 1][0] != "path_sep":
                    segments = [text]
                    j = i + 1
                    while j + 1 < len(toks) and toks[j][0] == "path_sep" and toks[j + 1][0] == "ident":
                        segments.append(toks[j + 1][1])
                        j += 2
                    self._arrow(module, [n for n, _ in inline], file, segments)
                    i = j
                    continue
            i += 1

    def _arrow(self, module, inline, file, segments):
        target = self._resolve(module, inline, segments)
        if target is not None and target != file:
            self.arrows[file].add(target)

    def top(self, file):
        """The top-level module a file belongs to (a folder is one)."""
        for module, f in self.files.items():
            if f == file:
                return module[0] if module else "(root)"
        raise KeyError(file)


def rel(path):
    return str(path.relative_to(ROOT))


def cycles(arrows):
    """The strongly connected components of more than one node (Tarjan)."""
    index, low, stack, on_stack, found = {}, {}, [], set(), []
    counter = [0]
    nodes = set(arrows) | {n for targets in arrows.values() for n in targets}

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on_stack.add(v)
        for w in arrows.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component, key=str))

    sys.setrecursionlimit(10_000)
    for v in sorted(nodes, key=str):
        if v not in index:
            visit(v)
    return found


def crates():
    manifest = tomllib.loads((ROOT / "Cargo.toml").read_text())
    roots = [("lib", manifest.get("lib", {}).get("path", "src/lib.rs"))]
    roots += [(b["name"], b["path"]) for b in manifest.get("bin", [])]
    return [Crate(name, ROOT / path) for name, path in roots]


def layer_of(top):
    for n, layer in enumerate(LAYERS):
        if layer is not None and top in layer:
            return n
    return LAYERS.index(None)


def problems(crate):
    found = list(crate.problems)
    for component in cycles(crate.arrows):
        found.append(f"{crate.name}: files import each other: " + " -> ".join(rel(f) for f in component))
    tops = defaultdict(set)
    for source, targets in crate.arrows.items():
        for target in targets:
            a, b = crate.top(source), crate.top(target)
            if a != b:
                tops[a].add(b)
    for component in cycles(tops):
        found.append(f"{crate.name}: modules import each other: " + ", ".join(component))
    if crate.name == "lib":
        for source, targets in crate.arrows.items():
            a = crate.top(source)
            if a == "(root)":
                continue
            for target in targets:
                b = crate.top(target)
                if b != "(root)" and layer_of(b) > layer_of(a):
                    found.append(f"lib: {rel(source)} (layer {a}) imports {rel(target)} (layer {b}, above it)")
    for file in crate.files.values():
        if BASE_DIR in rel(file):
            continue
        code = " ".join(t for _, t in tokens(file.read_text()))
        code = re.sub(r"\s*::\s*", "::", code)
        code = re.sub(r"\s*\(", "(", code)
        if RAW_SQLITE.search(code):
            found.append(f"{crate.name}: {rel(file)} touches SQLite's C API outside {BASE_DIR}/")
    return found


def test_no_cycle_and_no_arrow_up():
    found = [p for crate in crates() for p in problems(crate)]
    assert not found, "\n".join(found)


def test_the_graph_is_read():
    """The reader sees the arrows it should (a guard against a reader that
    finds nothing and so finds no cycle)."""
    lib = next(c for c in crates() if c.name == "lib")
    search = ROOT / "src/search.rs"
    assert ROOT / "src/sqlite/ffi.rs" in lib.arrows[search]
    assert ROOT / "src/text/signature.rs" in lib.arrows[search]
    assert search in lib.arrows[ROOT / "src/functions.rs"]
    runner = next(c for c in crates() if c.name == "errkb")
    assert ROOT / "src/bin/errkb/cli.rs" in runner.arrows[ROOT / "src/bin/errkb/commands/model.rs"]


def test_a_cycle_is_found():
    arrows = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert cycles(arrows) == [["a", "b", "c"]]


if __name__ == "__main__":
    for crate in crates():
        for source in sorted(crate.arrows, key=str):
            for target in sorted(crate.arrows[source], key=str):
                print(f"{crate.name}: {rel(source)} -> {rel(target)}")
        for problem in problems(crate):
            print("PROBLEM", problem)
