#!/usr/bin/env python3
"""Build errkb's packages for this platform from what make built in DIST.

    build_packages.py build DIST [--out DIR] [--repository URL]
    build_packages.py deps DIR       the dependency wheels the package test installs offline
    build_packages.py python         the Python the package test installs into

`build` writes into DIR (default DIST/packages):

    errkb-<v>-py3-none-<platform>.whl   PyPI's errkb: the runner (the `errkb`
                                        command), errkb-hub, the extension for
                                        Python's sqlite3, the test model; ONNX
                                        Runtime from its own wheel (a dependency)
    npm/errkb-<v>.tgz                   npm's errkb: the `errkb` command, a small
                                        launcher that runs the platform package's
    npm/errkb-<os>-<cpu>-<v>.tgz        npm's @errkb/<os>-<cpu>: the runner,
                                        errkb-hub, the extension, ONNX Runtime,
                                        the test model

Both lay errkb's files out as its Claude Code plugin marketplace
(scripts/build_plugin.py): `<marketplace>/errkb/bin/errkb` beside the
extension and the model, `.claude-plugin/marketplace.json` two folders up,
so that `errkb plugin path` can offer the package's own files as a plugin.
One version everywhere: Cargo.toml's, as the runner reports it.
"""
import argparse
import base64
import csv
import hashlib
import io
import json
import os
import platform
import re
import shutil
import stat
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import build_plugin  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
PACKAGING = ROOT / "packaging"
SUMMARY = "Error knowledge base for AI coding agents, as a SQLite extension"
# The ONNX Runtime API errkb's runner is built against (Cargo.toml: ort's
# "api-22"): any onnxruntime wheel from 1.22 on has a library that loads.
ONNXRUNTIME = "onnxruntime>=1.22,<2"
# npm's names for the platforms errkb is built for, and Python's machine names.
NPM_PLATFORMS = ["linux-x64", "linux-arm64", "darwin-x64", "darwin-arm64"]
NPM_CPU = {"x86_64": "x64", "amd64": "x64", "aarch64": "arm64", "arm64": "arm64"}
# The libraries a manylinux wheel's programs may link (PEP 600's policy):
# errkb links no others (TLS is rustls; ONNX Runtime is loaded at run time).
MANYLINUX_LIBS = {"libc.so.6", "libm.so.6", "libpthread.so.0", "libdl.so.2", "librt.so.1", "libgcc_s.so.1",
                  "libutil.so.1", "ld-linux-x86-64.so.2", "ld-linux-aarch64.so.1"}


def cargo_version():
    text = (ROOT / "Cargo.toml").read_text()
    return re.search(r'^version = "([^"]+)"', text, re.M).group(1)


def this_platform():
    """(npm's os, npm's cpu, the machine as wheel tags name it) of this machine."""
    system = {"Linux": "linux", "Darwin": "darwin"}.get(platform.system())
    machine = platform.machine().lower()
    if system is None or machine not in NPM_CPU:
        raise SystemExit(f"errkb's packages are built for {', '.join(NPM_PLATFORMS)}, not {platform.system()} "
                         f"{platform.machine()}")
    wheel_machine = {"amd64": "x86_64", "aarch64": "aarch64", "arm64": "arm64" if system == "darwin" else "aarch64"}
    return system, NPM_CPU[machine], wheel_machine.get(machine, machine)


# --- the wheel's platform tag, from what the programs need ---------------------

def glibc_needed(files):
    """The newest glibc symbol version the ELF `files` need, as (major, minor);
    refuses a library the manylinux policy does not allow."""
    newest = (2, 17)
    for f in files:
        out = subprocess.run(["objdump", "-p", str(f)], capture_output=True, text=True, check=True).stdout
        needed = set(re.findall(r"^\s+NEEDED\s+(\S+)", out, re.M))
        if needed - MANYLINUX_LIBS:
            raise SystemExit(f"{f.name} links {', '.join(sorted(needed - MANYLINUX_LIBS))}: not allowed in a "
                             "manylinux wheel")
        for major, minor in re.findall(r"\bGLIBC_(\d+)\.(\d+)", out):
            newest = max(newest, (int(major), int(minor)))
    return newest


def macos_needed(files):
    """The newest macOS the Mach-O `files` are built for (their minos), as (major, minor)."""
    newest = (10, 9)
    for f in files:
        out = subprocess.run(["otool", "-l", str(f)], capture_output=True, text=True, check=True).stdout
        newest = max([newest, *macos_minos(out)])
    return newest


def macos_minos(otool_l):
    """The minimum macOS versions `otool -l` shows (LC_BUILD_VERSION's minos,
    LC_VERSION_MIN_MACOSX's version), as (major, minor)."""
    found = []
    for body in re.findall(r"cmd (?:LC_BUILD_VERSION|LC_VERSION_MIN_MACOSX)\n(.*?)(?=Load command|\Z)", otool_l, re.S):
        version = re.search(r"\b(?:minos|version) (\d+)\.(\d+)", body)
        if version:
            found.append((int(version.group(1)), int(version.group(2))))
    return found


def wheel_platform_tag(system, machine, programs):
    if system == "linux":
        major, minor = glibc_needed(programs)
        return f"manylinux_{major}_{minor}_{machine}"
    major, minor = macos_needed(programs)
    # From macOS 11 on, pip knows only X.0 tags: a program for 11.3 is tagged 12.0
    if major >= 11 and minor:
        major, minor = major + 1, 0
    return f"macosx_{major}_{minor}_{machine}"


# --- the wheel ---------------------------------------------------------------

def _record_hash(data):
    return "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()


def write_wheel(target, files):
    """A wheel at `target` of `files`: [(path in the wheel, bytes, executable)],
    with its RECORD (the .dist-info folder is the last one named)."""
    records = []
    with zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED, compresslevel=6) as whl:
        def add(name, data, executable=False):
            info = zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0))
            info.external_attr = (stat.S_IFREG | (0o755 if executable else 0o644)) << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            whl.writestr(info, data)
            records.append((name, _record_hash(data), str(len(data))))
        for name, data, executable in files:
            add(name, data, executable)
        record_name = next(n for n, _, _ in reversed(files) if ".dist-info/" in n).split("/")[0] + "/RECORD"
        text = io.StringIO()
        writer = csv.writer(text, lineterminator="\n")
        writer.writerows(records + [(record_name, "", "")])
        info = zipfile.ZipInfo(record_name, date_time=(1980, 1, 1, 0, 0, 0))
        info.external_attr = (stat.S_IFREG | 0o644) << 16
        whl.writestr(info, text.getvalue(), zipfile.ZIP_DEFLATED)


def build_wheel(market, version, tag, out):
    """PyPI's errkb: the marketplace under errkb/marketplace/, without ONNX
    Runtime (a dependency: the onnxruntime wheel), and the Python package."""
    files = []
    package = PACKAGING / "python" / "errkb"
    for src in sorted(package.glob("*.py")):
        text = src.read_text().replace("@VERSION@", version)
        files.append((f"errkb/{src.name}", text.encode(), False))
    for src in sorted(p for p in market.rglob("*") if p.is_file()):
        rel = src.relative_to(market)
        if src.parent.name == "bin" and build_plugin_is_onnxruntime(src.name):
            continue
        files.append((f"errkb/marketplace/{rel.as_posix()}", src.read_bytes(), os.access(src, os.X_OK)))
    info = f"errkb-{version}.dist-info"
    readme = (PACKAGING / "README.md").read_text()
    metadata = "\n".join([
        "Metadata-Version: 2.4",
        "Name: errkb",
        f"Version: {version}",
        f"Summary: {SUMMARY}",
        "Author: errkb contributors",
        "License-Expression: MIT OR Apache-2.0",
        "License-File: LICENSE-MIT",
        "License-File: LICENSE-APACHE",
        "Keywords: errors,sqlite,sqlite-extension,claude-code,hooks,knowledge-base",
        "Classifier: Development Status :: 4 - Beta",
        "Classifier: Environment :: Console",
        "Classifier: Operating System :: MacOS",
        "Classifier: Operating System :: POSIX :: Linux",
        "Classifier: Programming Language :: Rust",
        "Classifier: Topic :: Database",
        "Classifier: Topic :: Software Development",
        "Requires-Python: >=3.9",
        f"Requires-Dist: {ONNXRUNTIME}",
        "Description-Content-Type: text/markdown",
        "",
        readme,
    ])
    wheel = "\n".join(["Wheel-Version: 1.0", "Generator: errkb scripts/build_packages.py", "Root-Is-Purelib: false",
                       f"Tag: py3-none-{tag}", ""])
    entry_points = "[console_scripts]\nerrkb = errkb.__main__:main\n"
    files += [(f"{info}/METADATA", metadata.encode(), False), (f"{info}/WHEEL", wheel.encode(), False),
              (f"{info}/entry_points.txt", entry_points.encode(), False)]
    for name in ("LICENSE-MIT", "LICENSE-APACHE"):
        files.append((f"{info}/licenses/{name}", (ROOT / name).read_bytes(), False))
    target = out / f"errkb-{version}-py3-none-{tag}.whl"
    write_wheel(target, files)
    return target


def build_plugin_is_onnxruntime(name):
    return name.startswith("libonnxruntime.so") or (name.startswith("libonnxruntime") and name.endswith(".dylib"))


# --- npm ---------------------------------------------------------------------

def npm_pack(folder, out):
    result = subprocess.run(["npm", "pack", "--json", "--pack-destination", str(out), str(folder)],
                            capture_output=True, text=True, check=True)
    return out / json.loads(result.stdout)[0]["filename"]


def build_npm(market, version, npm_os, npm_cpu, staging, out, repository):
    """npm's @errkb/<os>-<cpu> (the marketplace folder as it is, ONNX Runtime
    included) and errkb (the launcher, every platform an optional dependency)."""
    out.mkdir(parents=True, exist_ok=True)
    common = {"version": version, "author": "errkb contributors",
              "keywords": ["errors", "sqlite", "sqlite-extension", "claude-code", "hooks"]}
    if repository:
        common["repository"] = {"type": "git", "url": f"git+{repository}.git"}
    key = f"{npm_os}-{npm_cpu}"
    platform_package = {
        "name": f"@errkb/{key}",
        **common,
        "description": f"errkb's programs for {key}: the runner, the SQLite extension, ONNX Runtime and the "
                       "test model (installed by the errkb package)",
        # errkb's own code; ONNX Runtime (MIT) and the model (Apache-2.0) it carries
        "license": "(MIT OR Apache-2.0) AND MIT AND Apache-2.0",
        "os": [npm_os],
        "cpu": [npm_cpu],
        **({"libc": ["glibc"]} if npm_os == "linux" else {}),
        "files": [".claude-plugin", "errkb"],
        "preferUnplugged": True,
    }
    (market / "package.json").write_text(json.dumps(platform_package, indent=2) + "\n")
    (market / "README.md").write_text(
        f"# @errkb/{key}\n\nerrkb's programs for {key}, installed by the `errkb` package as an optional "
        "dependency: use `npm install -g errkb` (or `npx errkb`), not this package.\n\n"
        "The folder is errkb's Claude Code plugin marketplace (`errkb plugin path` prints it): "
        "`errkb/bin/` holds the runner, `errkb-hub`, the SQLite extension, ONNX Runtime (MIT) and the "
        "all-MiniLM-L6-v2 test model (Apache-2.0); their licences are in `errkb/licenses/`.\n")
    platform_tgz = npm_pack(market, out)
    for name in ("package.json", "README.md"):
        (market / name).unlink()

    main = staging / "npm-errkb"
    (main / "bin").mkdir(parents=True)
    shutil.copy(PACKAGING / "npm" / "errkb.js", main / "bin" / "errkb.js")
    os.chmod(main / "bin" / "errkb.js", 0o755)
    shutil.copy(PACKAGING / "README.md", main / "README.md")
    for name in ("LICENSE-MIT", "LICENSE-APACHE"):
        shutil.copy(ROOT / name, main / name)
    launcher = {
        "name": "errkb",
        **common,
        "description": SUMMARY,
        "license": "MIT OR Apache-2.0",
        "bin": {"errkb": "bin/errkb.js"},
        "files": ["bin/errkb.js", "LICENSE-MIT", "LICENSE-APACHE"],
        "engines": {"node": ">=18"},
        "optionalDependencies": {f"@errkb/{p}": version for p in NPM_PLATFORMS},
    }
    (main / "package.json").write_text(json.dumps(launcher, indent=2) + "\n")
    return npm_pack(main, out), platform_tgz


# --- the commands --------------------------------------------------------------

def unpacked_size(path):
    if path.suffix == ".whl":
        with zipfile.ZipFile(path) as z:
            return sum(i.file_size for i in z.infolist())
    import tarfile
    with tarfile.open(path) as t:
        return sum(m.size for m in t.getmembers())


def build(dist, out, repository):
    dist = dist.resolve()
    version = build_plugin.version(dist)
    if version != cargo_version():
        raise SystemExit(f"{dist / 'errkb'} is {version}, Cargo.toml says {cargo_version()}: run make first")
    system, npm_cpu, machine = this_platform()
    out.mkdir(parents=True, exist_ok=True)
    for old in [*out.glob("errkb-*.whl"), *out.glob("npm/*.tgz")]:
        old.unlink()
    staging = Path(tempfile.mkdtemp(prefix=".staging-", dir=out))
    try:
        market, _ = build_plugin.plugin(dist, staging / "errkb-marketplace")
        bin_dir = market / "errkb" / "bin"
        programs = [p for p in bin_dir.iterdir() if p.is_file() and not build_plugin_is_onnxruntime(p.name)
                    and (os.access(p, os.X_OK) or p.suffix in (".so", ".dylib"))]
        tag = wheel_platform_tag(system, machine, programs)
        made = [build_wheel(market, version, tag, out)]
        made += build_npm(market, version, system, npm_cpu, staging, out / "npm", repository)
    finally:
        shutil.rmtree(staging)
    for path in made:
        print(f"{os.path.relpath(path)}: {human(path.stat().st_size)} ({human(unpacked_size(path))} unpacked)")
    return made


def human(size):
    return f"{size / 1e6:.1f} MB" if size >= 1e6 else f"{size / 1e3:.1f} kB"


def python_for_tests():
    """The Python the package test installs errkb into: one whose sqlite3 can
    load extensions (errkb.load), with venv and ensurepip. pyenv's builds,
    for one, cannot load extensions unless configured to."""
    check = ("import sqlite3, venv, ensurepip; sqlite3.connect(':memory:').enable_load_extension(False); "
             "import sys; print(sys.executable)")
    candidates = [sys.executable, shutil.which("python3"), "/usr/bin/python3", "/usr/local/bin/python3",
                  "/opt/homebrew/bin/python3"]
    for candidate in dict.fromkeys(c for c in candidates if c):
        try:
            found = subprocess.run([candidate, "-c", check], capture_output=True, text=True, timeout=30)
        except OSError:
            continue
        if found.returncode == 0:
            return found.stdout.strip()
    raise SystemExit(f"no Python whose sqlite3 can load extensions among {', '.join(filter(None, candidates))}")


def onnxruntime_pin():
    text = (ROOT / "requirements-dev.txt").read_text()
    return re.search(r"^onnxruntime==\S+", text, re.M).group(0)


def deps(folder):
    """The wheels `pip install errkb` needs besides errkb's own (onnxruntime,
    the version make uses, and what it depends on), for the test's Python,
    downloaded once so that the test installs offline; `python` names that
    Python."""
    python = python_for_tests()
    folder.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run([python, "-m", "venv", f"{tmp}/venv"], check=True)
        subprocess.run([f"{tmp}/venv/bin/python", "-m", "pip", "download", "-q", "--disable-pip-version-check",
                        "--only-binary=:all:", "--dest", str(folder), onnxruntime_pin()], check=True)
    (folder / "python").write_text(python + "\n")
    print(f"dependency wheels for {python}: {folder} "
          f"({sum(f.stat().st_size for f in folder.glob('*.whl')) / 1e6:.0f} MB)")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    commands = parser.add_subparsers(dest="command", required=True)
    b = commands.add_parser("build")
    b.add_argument("dist", type=Path)
    b.add_argument("--out", type=Path)
    b.add_argument("--repository", help="the source repository's URL, for npm's package.json (provenance)")
    d = commands.add_parser("deps")
    d.add_argument("folder", type=Path)
    commands.add_parser("python")
    args = parser.parse_args()
    if args.command == "build":
        build(args.dist, args.out or args.dist / "packages", args.repository)
    elif args.command == "deps":
        deps(args.folder)
    else:
        print(python_for_tests())
