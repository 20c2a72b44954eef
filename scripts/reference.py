"""The SQL API reference, from docs/reference.toml: writes docs/REFERENCE.md
and the README's function table (between its `sql-api` markers).
`python3 scripts/reference.py` rewrites both; `--check` only says whether
they are up to date (tests/test_reference.py runs the examples)."""
import re
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SOURCE = ROOT / "docs" / "reference.toml"
REFERENCE = ROOT / "docs" / "REFERENCE.md"
README = ROOT / "README.md"
BEGIN, END = "<!-- begin sql-api (scripts/reference.py) -->", "<!-- end sql-api -->"


def functions():
    return tomllib.loads(SOURCE.read_text())["function"]


def readme_table():
    rows = [f"| [`{f['signature']}`](docs/REFERENCE.md#{f['name']}) | {f['returns']} |" for f in functions()]
    return "\n".join(["| function | returns |", "|---|---|", *rows,
                      "| `vec0`, `vec_*` | everything [sqlite-vec](https://github.com/asg017/sqlite-vec) provides |"])


def reference():
    out = ["# SQL API reference", "",
           "Generated from `docs/reference.toml` by `scripts/reference.py`; every example",
           "is run by `tests/test_reference.py` in the sqlite3 shell after `.load dist/errkb`",
           "(and the schema, for the examples with a setup).", ""]
    for f in functions():
        out += [f'<a id="{f["name"]}"></a>', f"## `{f['signature']}`", "", f["returns"][0].upper() + f["returns"][1:] + ".", ""]
        if f["description"].strip():
            out += [f["description"].strip(), ""]
        for example in f["examples"]:
            out.append("```sql")
            out += [f"{statement};" for statement in example.get("setup", [])]
            out += [f"{example['sql']};", "```", "", "```", example["result"], "```", ""]
    return "\n".join(out).rstrip() + "\n"


def main():
    check = "--check" in sys.argv
    readme = README.read_text()
    table = f"{BEGIN}\n{readme_table()}\n{END}"
    new_readme = re.sub(re.escape(BEGIN) + ".*?" + re.escape(END), lambda _: table, readme, flags=re.S)
    stale = [p for p, text in ((README, new_readme), (REFERENCE, reference()))
             if not p.exists() or p.read_text() != text]
    if check:
        if stale:
            sys.exit(f"out of date: {', '.join(str(p.relative_to(ROOT)) for p in stale)} (run python3 scripts/reference.py)")
        return
    README.write_text(new_readme)
    REFERENCE.write_text(reference())


if __name__ == "__main__":
    main()
