"""errkb's packages (scripts/build_packages.py, as make packages runs it),
built from dist/ and installed the way users install them, where there is
no Rust, no checkout on PATH and no network: PyPI's wheel with pip
--no-index into a fresh virtual environment (its onnxruntime dependency
from the wheels make package-deps downloaded), npm's two packages with
npx and npm install -g from their tarballs. From each: errkb install into
a throwaway HOME, errkb doctor all ok, then the package removed and a
failure, its fix and the same failure again through the hook commands
install wrote, which give the fix as advice; errkb.load() in Python's
sqlite3; errkb plugin path, and with the real Claude Code client (make
claude-code) the plugin from it added, installed and checked by doctor.

Cost, measured on a 2-core machine: about 80 s (a third of it building
the packages), and at most about 650 MB in the temporary folder at a time
(the packages 145 MB; a virtual environment 240 MB; npm's cache and
prefix 200 MB; a HOME 110 MB), each removed as its part ends.
"""
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import CLAUDE, DIST, ROOT

sys.path.insert(0, str(ROOT / "scripts"))
import build_packages  # noqa: E402

pytestmark = pytest.mark.model

WHEELS = ROOT / ".cache" / "wheels"  # make package-deps
VERSION = build_packages.cargo_version()
SYSTEM, NPM_CPU, _ = build_packages.this_platform()
NPM_PLATFORM = f"{SYSTEM}-{NPM_CPU}"
SOEXT = "dylib" if SYSTEM == "darwin" else "so"
# What a user's shell has: system folders, no Rust, nothing of this checkout.
SYSTEM_PATH = "/usr/bin:/bin"


@pytest.fixture(scope="module")
def packages(tmp_path_factory):
    out = tmp_path_factory.mktemp("packages")
    subprocess.run([sys.executable, str(ROOT / "scripts" / "build_packages.py"), "build", str(DIST), "--out",
                    str(out)], check=True, capture_output=True, text=True)
    [wheel] = out.glob("errkb-*.whl")
    yield {"wheel": wheel, "npm": out / "npm" / f"errkb-{VERSION}.tgz",
           "platform": out / "npm" / f"errkb-{NPM_PLATFORM}-{VERSION}.tgz"}
    shutil.rmtree(out)


def clean_env(home, path):
    """A user's environment: HOME, a PATH without Rust or this checkout."""
    assert shutil.which("cargo", path=path) is None and shutil.which("rustc", path=path) is None
    assert str(ROOT) not in path
    return {"HOME": str(home), "PATH": path, "LANG": "C.UTF-8"}


def run(cmd, env, cwd, check=True, **kw):
    proc = subprocess.run([str(c) for c in cmd], env=env, cwd=cwd, capture_output=True, text=True, timeout=300, **kw)
    if check:
        assert proc.returncode == 0, f"{cmd} failed ({proc.returncode}):\n{proc.stdout}\n{proc.stderr}"
    return proc


def assert_doctor_all_ok(report):
    assert report.returncode == 0, report.stdout
    lines = [line for line in report.stdout.splitlines() if line and not line.startswith(" ")]
    # every check passes; the only one switched off is the agent this
    # machine does not have (Claude Code is installed, Codex is not)
    assert all(line.split()[0] == "ok" or line.split()[:3] == ["off", "codex", "hooks"] for line in lines), \
        report.stdout
    assert "loads and embeds in" in report.stdout, report.stdout


def assert_nothing_refers_to(home, *places):
    """What install wrote (settings, config, scripts, links) names none of `places`."""
    for path in home.rglob("*"):
        if path.is_symlink():
            target = Path(os.readlink(path))
            assert not any(str(target).startswith(str(p)) for p in places), f"{path} → {target}"
        elif path.is_file() and path.suffix in (".json", ".sql", ".bak", ".log", ".md"):
            text = path.read_text(errors="replace")
            for place in places:
                assert str(place) not in text, f"{path} names {place}"


def assert_hooks_round_trip(home, cwd):
    """A failure, its fix, the same failure in a later session, through the
    commands install wrote into settings.json, run as Claude Code runs them
    (a shell, the payload on stdin) with only system folders on PATH."""
    settings = json.loads((home / ".claude" / "settings.json").read_text())
    calls = iter(range(1000))

    def hook(event, session, tool, tool_input, **extra):
        [group] = [g for g in settings["hooks"][event] if "errkb" in json.dumps(g)]
        command = group["hooks"][0]["command"]
        assert command.startswith("~/.reflexion/bin/errkb hook ")
        payload = {"session_id": session, "transcript_path": str(cwd / "t.jsonl"), "cwd": "/work/shop",
                   "permission_mode": "default", "hook_event_name": event, "tool_name": tool,
                   "tool_input": tool_input, "tool_use_id": f"toolu_{next(calls)}", **extra}
        proc = subprocess.run(["sh", "-c", command], input=json.dumps(payload), capture_output=True, text=True,
                              cwd=cwd, env={"HOME": str(home), "PATH": SYSTEM_PATH}, timeout=60)
        assert proc.returncode == 0 and proc.stderr == "", proc.stderr
        return json.loads(proc.stdout)["hookSpecificOutput"]["additionalContext"] if proc.stdout else None

    failure = "Error: Cannot find module '/work/shop/src/cart.js'\nRequire stack:\n- /work/shop/src/app.js"
    assert hook("PostToolUseFailure", "one", "Bash", {"command": "node src/app.js"}, error=failure) is None
    assert hook("PostToolUse", "one", "Edit", {"file_path": "/work/shop/src/app.js", "old_string": "./cart",
                                               "new_string": "./basket"}, tool_response={"success": True}) is None
    assert hook("PostToolUse", "one", "Bash", {"command": "node src/app.js"}, tool_response={"stdout": "ok"}) is None
    told = hook("PostToolUseFailure", "two", "Bash", {"command": "node src/app.js"}, error=failure)
    assert told and "Cannot find module" in told and "./basket" in told and "node src/app.js" in told, told
    assert not (home / ".reflexion" / "logs" / "hooks.log").exists()  # nothing went wrong


def assert_plugin_from_the_package(env, cwd, where):
    """errkb plugin path, in a HOME of its own: a marketplace that holds
    what the plugin's hooks run (`where(home)` it should be); with the real
    Claude Code client (make claude-code), added and installed, the hooks'
    runner finds everything."""
    home = cwd / "plugin-home"
    home.mkdir()
    env = {**env, "HOME": str(home)}
    market = Path(run(["errkb", "plugin", "path"], env, cwd).stdout.strip())
    assert market == where(home)
    assert (market / ".claude-plugin" / "marketplace.json").is_file()
    assert any(p.name.startswith("libonnxruntime") for p in (market / "errkb" / "bin").iterdir())
    assert run(["errkb", "plugin", "path"], env, cwd).stderr == ""  # current: not copied again
    if CLAUDE.exists():
        client = {**env, "PATH": f"{CLAUDE.parent}:{env['PATH']}", "DISABLE_AUTOUPDATER": "1",
                  "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1"}
        assert "Validation passed" in run([CLAUDE, "plugin", "validate", market], client, cwd).stdout
        run([CLAUDE, "plugin", "marketplace", "add", market], client, cwd)
        run([CLAUDE, "plugin", "install", "errkb@errkb-marketplace"], client, cwd)
        doctor = run(["errkb", "doctor"], env, cwd, check=False)
        assert_doctor_all_ok(doctor)
        assert "ok   hooks         from errkb's plugin errkb@errkb-marketplace" in doctor.stdout
        assert f"ok   onnxruntime   {home / '.claude' / 'plugins' / 'cache'}" in doctor.stdout, doctor.stdout
    shutil.rmtree(home)


def test_the_wheel_installed_with_pip(packages, tmp_path):
    wheel = packages["wheel"]
    tag = wheel.name.split("-", 2)[2].removesuffix(".whl")
    if SYSTEM == "linux":  # the tag says what the programs need (glibc), nothing newer than this machine
        assert tag.startswith("py3-none-manylinux_2_") and tag.endswith(f"_{os.uname().machine}")
        assert int(tag.split("_")[2]) <= int(os.confstr("CS_GNU_LIBC_VERSION").split(".")[1])
    python_file = WHEELS / "python"
    assert python_file.exists(), "the dependency wheels are missing: make package-deps"
    python = python_file.read_text().strip()
    venv, home = tmp_path / "venv", tmp_path / "home"
    home.mkdir()
    env = clean_env(home, f"{venv / 'bin'}:{SYSTEM_PATH}")
    run([python, "-m", "venv", venv], env, tmp_path)
    run([venv / "bin" / "python", "-m", "pip", "install", "-q", "--disable-pip-version-check", "--no-cache-dir",
         "--no-index", "--find-links", WHEELS, wheel], env, tmp_path)
    # the console command is the runner; the extension, in Python's sqlite3,
    # embeds with the model in the wheel and the onnxruntime wheel's library
    assert run(["errkb", "--version"], env, tmp_path).stdout == f"errkb {VERSION}\n"
    probe = ("import json, sqlite3, errkb; c = sqlite3.connect(':memory:'); errkb.load(c); "
             "print(json.dumps([errkb.__version__, errkb.loadable_path(), *c.execute("
             "\"SELECT errkb_version(), normalize_error('Error at line 42 in /src/app.js'), "
             "length(embed('ModuleNotFoundError: No module named yaml')), errkb_debug()\").fetchone()]))")
    version, loadable, ext_version, normalized, width, debug = json.loads(
        run([venv / "bin" / "python", "-c", probe], env, tmp_path).stdout)
    assert version == VERSION and ext_version == f"v{VERSION}" and width == 384 * 4
    assert normalized == "Error at line <N> in <PATH>"
    site = Path(loadable).parents[4]
    assert site.name == "site-packages" and Path(loadable).name == f"errkb.{SOEXT}"
    assert str(site / "onnxruntime" / "capi" / "libonnxruntime") in debug, debug

    installed = run(["errkb", "install"], env, tmp_path).stdout
    link, runner = home / ".local" / "bin" / "errkb", home / ".reflexion" / "bin" / "errkb"
    assert f"copy {site / 'onnxruntime' / 'capi' / 'libonnxruntime'}" in installed, installed
    assert f"linked {link} → {runner} (errkb for your shell)" in installed
    assert (f"{link.parent} is not on your PATH; for errkb in your shell, add this line to ~/.profile: "
            'export PATH="$HOME/.local/bin:$PATH"') in installed
    assert_doctor_all_ok(run(["errkb", "doctor"], env, tmp_path, check=False))

    # the wheel's marketplace, copied with the onnxruntime wheel's library beside the runner
    assert_plugin_from_the_package(env, tmp_path, lambda home: home / ".reflexion" / "marketplace")

    assert_nothing_refers_to(home, venv, ROOT)
    shutil.rmtree(venv)  # pip uninstall, or a venv gone: what install put in place works on
    after = clean_env(home, f"{link.parent}:{SYSTEM_PATH}")
    assert_doctor_all_ok(run(["errkb", "doctor"], after, tmp_path, check=False))
    assert_hooks_round_trip(home, tmp_path)
    assert f"removed {link}" in run(["errkb", "uninstall"], after, tmp_path).stdout
    assert not link.exists()
    shutil.rmtree(home)


def test_the_npm_packages_with_npx_and_npm_install(packages, tmp_path):
    home = tmp_path / "home"
    home.mkdir()
    npm_env = {
        "npm_config_cache": str(tmp_path / "npm-cache"),  # a fresh cache: nothing from earlier runs
        "npm_config_offline": "true",  # the other platforms' packages are left out, as npm does elsewhere
        "npm_config_update_notifier": "false", "npm_config_audit": "false", "npm_config_fund": "false",
    }
    node = Path(shutil.which("node")).parent
    env = {**clean_env(home, f"{node}:{SYSTEM_PATH}" if str(node) not in SYSTEM_PATH else SYSTEM_PATH), **npm_env}
    tarballs = [packages["npm"], packages["platform"]]

    # npx errkb install, the packages from their tarballs instead of the registry
    npx = ["npx", "--yes", *(f"--package={t}" for t in tarballs), "--", "errkb"]
    assert run([*npx, "--version"], env, tmp_path).stdout == f"errkb {VERSION}\n"
    installed = run([*npx, "install"], env, tmp_path).stdout
    assert f"linked {home / '.local' / 'bin' / 'errkb'} → {home / '.reflexion' / 'bin' / 'errkb'}" in installed
    assert_doctor_all_ok(run([*npx, "doctor"], env, tmp_path, check=False))
    assert_nothing_refers_to(home, tmp_path / "npm-cache", ROOT)
    shutil.rmtree(tmp_path / "npm-cache")  # npx's copy gone
    assert_doctor_all_ok(run([home / ".local" / "bin" / "errkb", "doctor"], env, tmp_path, check=False))
    assert_hooks_round_trip(home, tmp_path)

    # npm install -g: the command on the prefix's PATH; the platform
    # package's folder is the plugin marketplace as it is
    prefix = tmp_path / "npm"
    run(["npm", "install", "-g", "--prefix", prefix, *tarballs], env, tmp_path)
    global_env = {**env, "PATH": f"{prefix / 'bin'}:{env['PATH']}"}
    assert run(["errkb", "--version"], global_env, tmp_path).stdout == f"errkb {VERSION}\n"
    platform = prefix / "lib" / "node_modules" / "@errkb" / NPM_PLATFORM
    assert os.access(platform / "errkb" / "bin" / "errkb", os.X_OK)
    assert_plugin_from_the_package(global_env, tmp_path, lambda home: platform)  # the package's folder as it is
    assert not (prefix / "lib" / "node_modules" / "errkb" / "node_modules").exists()  # no other platform's package
    shutil.rmtree(prefix)
    shutil.rmtree(tmp_path / "npm-cache", ignore_errors=True)
    shutil.rmtree(home)


def test_the_packages_have_one_version_and_the_files_they_should(packages):
    import tarfile
    import zipfile
    with zipfile.ZipFile(packages["wheel"]) as whl:
        names = set(whl.namelist())
        metadata = whl.read(f"errkb-{VERSION}.dist-info/METADATA").decode()
        plugin = json.loads(whl.read("errkb/marketplace/errkb/.claude-plugin/plugin.json"))
    assert f"Version: {VERSION}\n" in metadata and "Requires-Dist: onnxruntime>=1.22,<2\n" in metadata
    from packaging.metadata import Metadata  # what PyPI checks an upload's metadata with
    assert Metadata.from_email(metadata, validate=True).license_expression == "MIT OR Apache-2.0"
    assert plugin["version"] == VERSION
    bin_dir = "errkb/marketplace/errkb/bin/"
    assert {f"{bin_dir}errkb", f"{bin_dir}errkb-hub", f"{bin_dir}errkb.{SOEXT}", f"{bin_dir}model/model.onnx",
            f"{bin_dir}model/tokenizer.json", "errkb/__init__.py", "errkb/__main__.py"} <= names
    assert not any("libonnxruntime" in n for n in names)  # the onnxruntime wheel's
    with tarfile.open(packages["npm"]) as tgz:
        launcher = json.load(tgz.extractfile("package/package.json"))
        assert sorted(tgz.getnames()) == ["package/LICENSE-APACHE", "package/LICENSE-MIT", "package/README.md",
                                          "package/bin/errkb.js", "package/package.json"]
    assert launcher["version"] == VERSION
    assert launcher["optionalDependencies"] == {f"@errkb/{p}": VERSION for p in build_packages.NPM_PLATFORMS}
    with tarfile.open(packages["platform"]) as tgz:
        manifest = json.load(tgz.extractfile("package/package.json"))
        members = {m.name: m for m in tgz.getmembers()}
    assert manifest["name"] == f"@errkb/{NPM_PLATFORM}" and manifest["version"] == VERSION
    assert manifest["os"] == [SYSTEM] and manifest["cpu"] == [NPM_CPU]
    assert members["package/errkb/bin/errkb"].mode & 0o111 and members["package/errkb/bin/errkb-hub"].mode & 0o111
    assert any(n.startswith("package/errkb/bin/libonnxruntime") for n in members)
    assert "package/.claude-plugin/marketplace.json" in members


def test_plugin_path_from_a_build(tmp_path):
    """make plugin's folder is a complete marketplace: its runner names it;
    dist/errkb, not in one, says where plugin path works."""
    market = DIST / "errkb-marketplace"
    env = {"HOME": str(tmp_path), "PATH": SYSTEM_PATH}
    assert run([market / "errkb" / "bin" / "errkb", "plugin", "path"], env, tmp_path).stdout == f"{market}\n"
    proc = run([DIST / "errkb", "plugin", "path"], env, tmp_path, check=False)
    assert proc.returncode == 2 and "is not part of a plugin marketplace" in proc.stderr
    assert not (tmp_path / ".reflexion").exists()
