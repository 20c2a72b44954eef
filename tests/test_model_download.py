"""errkb model download / prepare against a stand-in for the Hugging Face
hub on loopback, serving the test model in the Transformers.js layout."""
import hashlib
import http.server
import shutil
import struct
import threading

import pytest

from conftest import DIST, MODEL_DIR, runner, sqlite

pytestmark = pytest.mark.model
REPO = "Xenova/paraphrase-multilingual-MiniLM-L12-v2"
ORT_LIB = next(DIST.glob("libonnxruntime.so*"), None)  # make model


def git_blob_sha1(data):
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


@pytest.fixture(scope="module")
def hub_files(tmp_path_factory):
    """The test model as the hub holds it: one self-contained ONNX file."""
    onnx = pytest.importorskip("onnx")  # make model installs it
    root = tmp_path_factory.mktemp("hubfiles")
    onnx.save_model(onnx.load(str(MODEL_DIR / "model.onnx")), str(root / "model_quantized.onnx"))
    return {
        "tokenizer.json": (MODEL_DIR / "tokenizer.json").read_bytes(),
        "tokenizer_config.json": b'{"model_max_length": 256}',
        "onnx/model_quantized.onnx": (root / "model_quantized.onnx").read_bytes(),
    }


@pytest.fixture
def hub(hub_files):
    """A loopback server answering like huggingface.co: LFS files redirect
    with X-Linked-Etag (SHA-256); small files carry a git blob ETag."""
    state = {"corrupt": None}

    class Hub(http.server.BaseHTTPRequestHandler):
        def log_message(self, *args):
            pass

        def answer(self, body):
            prefix = f"/{REPO}/resolve/main/"
            if self.path.startswith("/cdn/"):
                name = self.path[len("/cdn/"):]
                data = hub_files[name]
                if state["corrupt"] == name:
                    data = data[:-1] + bytes([data[-1] ^ 1])
                self.send_response(200)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                if body:
                    self.wfile.write(data)
            elif self.path.startswith(prefix) and self.path[len(prefix):] in hub_files:
                name = self.path[len(prefix):]
                data = hub_files[name]
                if name.endswith(".onnx"):
                    self.send_response(302)
                    self.send_header("Location", f"/cdn/{name}")
                    self.send_header("X-Linked-Etag", f'"{hashlib.sha256(data).hexdigest()}"')
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                else:
                    if state["corrupt"] == name:
                        data = data + b" "
                    self.send_response(200)
                    self.send_header("ETag", f'"{git_blob_sha1(hub_files[name])}"')
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    if body:
                        self.wfile.write(data)
            else:
                self.send_response(404)
                self.send_header("Content-Length", "0")
                self.end_headers()

        def do_HEAD(self):
            self.answer(body=False)

        def do_GET(self):
            self.answer(body=True)

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Hub)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_port}", state
    server.shutdown()


def test_download_verifies_installs_and_prepares(hub, hub_files, tmp_path):
    url, _ = hub
    env = {"HOME": str(tmp_path), "ERRKB_HF_ENDPOINT": url}
    proc = runner("model", "download", env=env, check=True)
    dest = tmp_path / ".reflexion" / "models" / REPO
    assert "onnx/model_quantized.onnx: downloaded and verified" in proc.stdout
    assert proc.stdout.endswith(f"ready: {dest / 'model.onnx'}\n")
    # Nearly all of the model's bytes now sit outside the protobuf.
    assert (dest / "model.onnx.data").stat().st_size > 0.9 * len(hub_files["onnx/model_quantized.onnx"])
    # embed() finds it there by itself (no ERRKB_MODEL) and agrees with the source model.
    out = sqlite(":memory:", "SELECT errkb_debug()", env={"HOME": str(tmp_path), "ERRKB_ORT_LIB": str(ORT_LIB)},
                 extension=bare_copy(tmp_path)).stdout
    assert f"Model: {dest / 'model.onnx'}" in out
    downloaded = vector(tmp_path, bare_copy(tmp_path))
    reference = vector(None, None)
    assert max(abs(a - b) for a, b in zip(downloaded, reference)) < 1e-5
    assert runner("model", "download", env=env, check=True).stdout.count("already there") == 3


def test_a_corrupted_file_is_not_installed(hub, tmp_path):
    url, state = hub
    state["corrupt"] = "onnx/model_quantized.onnx"
    proc = runner("model", "download", env={"HOME": str(tmp_path), "ERRKB_HF_ENDPOINT": url})
    assert proc.returncode == 2 and "checksum mismatch" in proc.stderr and "nothing was installed" in proc.stderr
    dest = tmp_path / ".reflexion" / "models" / REPO
    assert not (dest / "onnx" / "model_quantized.onnx").exists()
    assert not list(dest.rglob("*.part"))


def test_a_corrupted_small_file_is_caught_by_its_git_hash(hub, tmp_path):
    url, state = hub
    state["corrupt"] = "tokenizer.json"
    proc = runner("model", "download", env={"HOME": str(tmp_path), "ERRKB_HF_ENDPOINT": url})
    assert proc.returncode == 2 and "tokenizer.json: checksum mismatch" in proc.stderr


def test_unreachable_hub_is_a_clear_error(tmp_path):
    proc = runner("model", "download", env={"HOME": str(tmp_path), "ERRKB_HF_ENDPOINT": "http://127.0.0.1:9"})
    assert proc.returncode == 2 and "cannot reach http://127.0.0.1:9/" in proc.stderr


def test_an_existing_transformers_js_cache_is_used_as_is(hub_files, tmp_path):
    cache = tmp_path / ".reflexion" / "models" / REPO
    for name, data in hub_files.items():
        (cache / name).parent.mkdir(parents=True, exist_ok=True)
        (cache / name).write_bytes(data)
    extension = bare_copy(tmp_path)
    assert max(abs(a - b) for a, b in zip(vector(tmp_path, extension), vector(None, None))) < 1e-5
    # the cache's files stay as they are; errkb adds only the model's
    # identity (its hash, computed once)
    assert sorted(p.name for p in cache.rglob("*") if p.is_file()) == [
        "errkb-model.json", "model_quantized.onnx", "tokenizer.json", "tokenizer_config.json"]
    for name, data in hub_files.items():
        assert (cache / name).read_bytes() == data


def bare_copy(tmp_path):
    folder = tmp_path / "ext"
    folder.mkdir(exist_ok=True)
    shutil.copy(DIST / "errkb.so", folder / "errkb.so")
    return folder / "errkb.so"


def vector(home, extension):
    env = {"HOME": str(home), "ERRKB_ORT_LIB": str(ORT_LIB)} if home else None
    hex_blob = sqlite(":memory:", "SELECT hex(embed('Cannot find module x'))", env=env, extension=extension).stdout
    return struct.unpack("<384f", bytes.fromhex(hex_blob.strip()))
