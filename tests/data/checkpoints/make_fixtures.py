#!/usr/bin/env python3
"""Write the model-directory fixtures of tests/test_checkpoint.c.

    make_fixtures.py [DIR]          write them into DIR (default: beside
                                    this script)
    make_fixtures.py --check [DIR]  regenerate into a temporary directory
                                    and compare with DIR: exit 1 on any
                                    difference

One tiny directory per architecture, shaped like the real thing (config
keys, tensor names, shards and index, layout, how keys are fused with
queries and values, dtype), and one per hostile case (bad-*).  Only the
standard library: struct writes safetensors, json the rest.

Known subspaces.  Every head of every projection spans a chosen set of
coordinates: row j of a head's [d_k, d_model] block (out-in) is
2 e_S[j] + sum_{i<j} e_S[i], an invertible mixing of the unit vectors
e_S[0..d_k-1], all small integers, exact in every dtype.  Query heads
all span the first d_k coordinates and value heads the last d_k, so a
reader that takes queries or values for keys finds HDI 0 -- except in the
grouped fixtures (*-groups), whose query heads span sets drawn from one
small pool per key group, listed as query_sets: the within-group
diversity (hdi DIR --groups) follows by counting too.  Key head h of
layer l spans a set drawn at random; expect.json lists the sets, so the
overlap of two key heads is |S_a & S_b| / d_k and the HDI follows by
counting, with no linear algebra.
"""
import filecmp
import json
import os
import random
import shutil
import struct
import sys
import tempfile

# ------------------------------------------------------------ safetensors


def encode(values, dtype):
    if dtype == "F64":
        return struct.pack(f"<{len(values)}d", *values)
    if dtype == "F32":
        return struct.pack(f"<{len(values)}f", *values)
    if dtype == "F16":
        return struct.pack(f"<{len(values)}e", *values)
    if dtype == "BF16":  # the top half of binary32: exact for small ints
        f32 = struct.pack(f"<{len(values)}f", *values)
        return b"".join(f32[i + 2:i + 4] for i in range(0, len(f32), 4))
    raise ValueError(dtype)


def write_safetensors(path, tensors):
    """tensors: list of (name, dtype, shape, flat values)."""
    header, blobs, off = {"__metadata__": {"format": "pt"}}, [], 0
    for name, dtype, shape, values in tensors:
        data = encode(values, dtype)
        header[name] = {"dtype": dtype, "shape": list(shape),
                        "data_offsets": [off, off + len(data)]}
        blobs.append(data)
        off += len(data)
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * (-len(text) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)) + text + b"".join(blobs))


def write_json(path, obj):
    with open(path, "w") as f:
        json.dump(obj, f, indent=2, sort_keys=True)
        f.write("\n")

# ----------------------------------------------------------- the heads


def head_rows(coords, m):
    """A head's d_k rows of length m spanning e_coords (see above)."""
    rows = []
    for j, c in enumerate(coords):
        row = [0.0] * m
        for i in range(j):
            row[coords[i]] += 1.0
        row[c] += 2.0
        rows.append(row)
    return rows


class Arch:
    def __init__(self, name, model_type, config, m, hq, hkv, dk, fusion,
                 layout, dtype, stacks, seed, query_pool=0, decoys=()):
        self.name, self.model_type, self.config = name, model_type, config
        # names (with {b}) of tensors shaped like the keys that a reader
        # must not take for them (a vision tower's keys): every head
        # spans the first dk coordinates, HDI 0
        self.decoys = decoys
        # > 0: the query heads of each key group span sets drawn from one
        # pool of dk + query_pool coordinates (listed in expect.json as
        # query_sets), else every query head spans the first dk
        self.query_pool = query_pool
        self.m, self.hq, self.hkv, self.dk = m, hq, hkv, dk
        self.fusion, self.layout, self.dtype = fusion, layout, dtype
        self.stacks = stacks  # [(role, name format with {b}, blocks)]
        self.rng = random.Random(seed)

    def query_rows(self, ly):
        """The rows of every query head of a layer, in head order."""
        sets = ly.get("query_sets") or [list(range(self.dk))] * self.hq
        return [r for s in sets for r in head_rows(s, self.m)]

    def key_tensor(self, sets, q_all=None):
        """The tensor holding the keys of one layer: shape, flat values."""
        m, dk = self.m, self.dk
        q = head_rows(list(range(dk)), m)
        q_all = q_all or q * self.hq
        v = head_rows([m - 1 - i for i in range(dk)], m)
        k = [head_rows(s, m) for s in sets]
        g = self.hq // self.hkv
        if self.fusion == "separate":
            rows = [r for h in k for r in h]
        elif self.fusion == "concatenated":
            rows = q_all + [r for h in k for r in h] + v * self.hkv
        elif self.fusion == "per-head":
            rows = [r for h in k for r in q + h + v]
        else:  # grouped: (q x hq/hkv, k, v) per key head
            rows = [r for i, h in enumerate(k)
                    for r in q_all[i * g * dk:(i + 1) * g * dk] + h + v]
        if self.layout == "in-out":
            rows = [list(c) for c in zip(*rows)]
        return [len(rows), len(rows[0])], [x for r in rows for x in r]

    def layers(self):
        out = []
        for role, fmt, blocks in self.stacks:
            for b in range(blocks):
                sets = [self.rng.sample(range(self.m), self.dk)
                        for _ in range(self.hkv)]
                out.append({"role": role, "block": b,
                            "tensor": fmt.format(b=b), "sets": sets})
                if self.query_pool:
                    g, n = self.hq // self.hkv, self.dk + self.query_pool
                    pools = [self.rng.sample(range(self.m), n)
                             for _ in range(self.hkv)]
                    out[-1]["query_sets"] = [
                        self.rng.sample(pools[h // g], self.dk)
                        for h in range(self.hq)]
        return out


def arch_tensors(a, layers):
    """(tensor list per layer, extra tensors of the model)."""
    per_layer = []
    for ly in layers:
        shape, vals = a.key_tensor(ly["sets"], a.query_rows(ly))
        ts = [(ly["tensor"], a.dtype, shape, vals)]
        # decoys a reader must not take for the keys
        if a.fusion == "separate":
            q = a.query_rows(ly)
            ts.append((ly["tensor"].replace("k_proj", "q_proj")
                       .replace(".key.", ".query.").replace(".k.", ".q.")
                       .replace("k_lin", "q_lin"),
                       a.dtype, [len(q), a.m], [x for r in q for x in r]))
        ts.append((ly["tensor"].replace(".weight", ".bias"), "F32",
                   [shape[0] if a.layout == "out-in" else shape[1]],
                   [0.5] * (shape[0] if a.layout == "out-in" else shape[1])))
        for fmt in a.decoys:
            q = head_rows(list(range(a.dk)), a.m) * a.hkv
            ts.append((fmt.format(b=ly["block"]), a.dtype, [len(q), a.m],
                       [x for r in q for x in r]))
        per_layer.append(ts)
    return per_layer


def write_arch(root, a, shards):
    d = os.path.join(root, a.name)
    os.makedirs(d)
    cfg = dict(a.config, model_type=a.model_type)
    write_json(os.path.join(d, "config.json"), cfg)
    layers = a.layers()
    per_layer = arch_tensors(a, layers)
    embed = ("embed.weight", "F32", [4, a.m], [0.25] * (4 * a.m))
    if shards == 0:  # one model.safetensors, no index
        ts = [embed] + [t for lt in per_layer for t in lt]
        write_safetensors(os.path.join(d, "model.safetensors"), ts)
        files = ["model.safetensors"] * len(layers)
    else:
        n = shards
        names = [f"model-{i + 1:05d}-of-{n:05d}.safetensors" for i in range(n)]
        groups = [[] for _ in range(n)]
        files = []
        for i, lt in enumerate(per_layer):
            s = i * n // len(per_layer)
            groups[s] += lt
            files.append(names[s])
        groups[0].insert(0, embed)
        wmap = {}
        for name, g in zip(names, groups):
            write_safetensors(os.path.join(d, name), g)
            for t in g:
                wmap[t[0]] = name
        write_json(os.path.join(d, "model.safetensors.index.json"),
                   {"metadata": {"total_size": 0}, "weight_map": wmap})
    for ly, f in zip(layers, files):
        ly["shard"] = f
    write_json(os.path.join(d, "expect.json"), {
        "model_type": a.model_type, "model_dim": a.m,
        "query_heads": a.hq, "key_heads": a.hkv, "head_dim": a.dk,
        "layout": a.layout, "fusion": a.fusion, "layers": layers})
    return d


def llama_config(m, hq, hkv, layers, **extra):
    c = {"hidden_size": m, "num_attention_heads": hq,
         "num_key_value_heads": hkv, "num_hidden_layers": layers,
         "torch_dtype": "bfloat16", "architectures": ["LlamaForCausalLM"]}
    c.update(extra)
    return c


def architectures():
    llama_k = "model.layers.{b}.self_attn.k_proj.weight"
    return [
        (Arch("llama", "llama", llama_config(32, 8, 4, 2), 32, 8, 4, 4,
              "separate", "out-in", "BF16",
              [("self-attention", llama_k, 2)], 1), 2),
        (Arch("mistral", "mistral", llama_config(24, 6, 3, 2), 24, 6, 3, 4,
              "separate", "out-in", "F16",
              [("self-attention", llama_k, 2)], 2), 0),
        (Arch("qwen2", "qwen2", llama_config(32, 4, 4, 2),
              32, 4, 4, 8, "separate", "out-in", "BF16",
              [("self-attention", llama_k, 2)], 3), 1),
        (Arch("gemma", "gemma",
              {"hidden_size": 24, "num_attention_heads": 4, "head_dim": 10,
               "num_key_value_heads": 4, "num_hidden_layers": 2},
              24, 4, 4, 10, "separate", "out-in", "F32",
              [("self-attention", llama_k, 2)], 4), 0),
        (Arch("gpt2", "gpt2",
              {"n_embd": 24, "n_head": 4, "n_layer": 2, "n_positions": 64},
              24, 4, 4, 6, "concatenated", "in-out", "F32",
              [("self-attention", "h.{b}.attn.c_attn.weight", 2)], 5), 0),
        (Arch("gpt_neox", "gpt_neox",
              {"hidden_size": 32, "num_attention_heads": 4,
               "num_hidden_layers": 2, "rotary_pct": 0.25},
              32, 4, 4, 8, "per-head", "out-in", "F16",
              [("self-attention",
                "gpt_neox.layers.{b}.attention.query_key_value.weight", 2)],
              6), 2),
        (Arch("falcon", "falcon",
              {"hidden_size": 32, "num_attention_heads": 8,
               "num_kv_heads": 2, "new_decoder_architecture": True,
               "num_hidden_layers": 2},
              32, 8, 2, 4, "grouped", "out-in", "BF16",
              [("self-attention",
                "transformer.h.{b}.self_attention.query_key_value.weight",
                2)], 7), 2),
        (Arch("falcon-mq", "falcon",
              {"hidden_size": 32, "num_attention_heads": 4,
               "multi_query": True, "new_decoder_architecture": False,
               "num_hidden_layers": 2},
              32, 4, 1, 8, "concatenated", "out-in", "BF16",
              [("self-attention",
                "transformer.h.{b}.self_attention.query_key_value.weight",
                2)], 8), 0),
        (Arch("falcon-rw", "falcon",
              {"hidden_size": 32, "num_attention_heads": 4,
               "multi_query": False, "num_hidden_layers": 2},
              32, 4, 4, 8, "per-head", "out-in", "F32",
              [("self-attention",
                "transformer.h.{b}.self_attention.query_key_value.weight",
                2)], 9), 1),
        (Arch("bert", "bert",
              {"hidden_size": 32, "num_attention_heads": 4,
               "num_hidden_layers": 2, "intermediate_size": 64},
              32, 4, 4, 8, "separate", "out-in", "F32",
              [("self-attention",
                "bert.encoder.layer.{b}.attention.self.key.weight", 2)],
              10), 1),
        (Arch("t5", "t5",
              {"d_model": 16, "d_kv": 8, "num_heads": 4, "num_layers": 2,
               "num_decoder_layers": 1, "d_ff": 32},
              16, 4, 4, 8, "separate", "out-in", "F32",
              [("encoder self-attention",
                "encoder.block.{b}.layer.0.SelfAttention.k.weight", 2),
               ("decoder self-attention",
                "decoder.block.{b}.layer.0.SelfAttention.k.weight", 1),
               ("decoder cross-attention",
                "decoder.block.{b}.layer.1.EncDecAttention.k.weight", 1)],
              11), 0),
    ] + more_architectures()


def more_architectures():
    """Issue 20's presets: explicit head_dim (Qwen3, Gemma 3), fused
    q|k|v out-in (Phi-3 with grouped keys, MPT), per head (BLOOM), and
    keys of their own under other names (DistilBERT, OPT, GPT-J)."""
    llama_k = "model.layers.{b}.self_attn.k_proj.weight"
    self = "self-attention"
    return [
        (Arch("distilbert", "distilbert",
              {"dim": 24, "n_heads": 4, "n_layers": 2, "hidden_dim": 48},
              24, 4, 4, 6, "separate", "out-in", "F32",
              [(self, "distilbert.transformer.layer.{b}.attention.k_lin"
                ".weight", 2)], 12), 0),
        (Arch("phi", "phi",
              {"hidden_size": 32, "num_attention_heads": 4,
               "num_key_value_heads": None, "num_hidden_layers": 2,
               "partial_rotary_factor": 0.5},
              32, 4, 4, 8, "separate", "out-in", "F16",
              [(self, llama_k, 2)], 13), 1),
        (Arch("phi3", "phi3", llama_config(32, 8, 2, 2),
              32, 8, 2, 4, "concatenated", "out-in", "BF16",
              [(self, "model.layers.{b}.self_attn.qkv_proj.weight", 2)],
              14), 0),
        (Arch("qwen3", "qwen3", llama_config(32, 4, 2, 2, head_dim=12),
              32, 4, 2, 12, "separate", "out-in", "BF16",
              [(self, llama_k, 2)], 15), 2),
        (Arch("gemma3", "gemma3_text",
              {"hidden_size": 24, "num_attention_heads": 4, "head_dim": 10,
               "num_key_value_heads": 2, "num_hidden_layers": 2},
              24, 4, 2, 10, "separate", "out-in", "BF16",
              [(self, llama_k, 2)], 16), 0),
        (Arch("opt", "opt",
              {"hidden_size": 24, "num_attention_heads": 4,
               "num_hidden_layers": 2, "ffn_dim": 48},
              24, 4, 4, 6, "separate", "out-in", "F16",
              [(self, "model.decoder.layers.{b}.self_attn.k_proj.weight",
                2)], 17), 0),
        (Arch("bloom", "bloom",
              {"hidden_size": 32, "n_head": 4, "n_layer": 2},
              32, 4, 4, 8, "per-head", "out-in", "BF16",
              [(self, "h.{b}.self_attention.query_key_value.weight", 2)],
              18), 2),
        (Arch("gptj", "gptj",
              {"n_embd": 32, "n_head": 4, "n_layer": 2, "rotary_dim": 8},
              32, 4, 4, 8, "separate", "out-in", "F32",
              [(self, "transformer.h.{b}.attn.k_proj.weight", 2)], 19), 0),
        (Arch("starcoder2", "starcoder2", llama_config(32, 8, 2, 2),
              32, 8, 2, 4, "separate", "out-in", "F32",
              [(self, llama_k, 2)], 20), 1),
        (Arch("olmo", "olmo",
              {"hidden_size": 24, "num_attention_heads": 3,
               "num_key_value_heads": 3, "num_hidden_layers": 2},
              24, 3, 3, 8, "separate", "out-in", "F32",
              [(self, llama_k, 2)], 21), 0),
        (Arch("mpt", "mpt",
              {"d_model": 32, "n_heads": 4, "n_layers": 2,
               "attn_config": {"attn_type": "multihead_attention"}},
              32, 4, 4, 8, "concatenated", "out-in", "BF16",
              [(self, "transformer.blocks.{b}.attn.Wqkv.weight", 2)], 22), 0),
    ]

# ------------------------------------------------------- hostile cases


def copy_dir(src, dst):
    shutil.copytree(src, dst, symlinks=True)
    os.remove(os.path.join(dst, "expect.json"))


def edit_json(path, fn):
    with open(path) as f:
        obj = json.load(f)
    fn(obj)
    write_json(path, obj)


def hostile(root):
    llama = os.path.join(root, "llama")
    mistral = os.path.join(root, "mistral")

    d = os.path.join(root, "bad-missing-shard")
    copy_dir(llama, d)
    os.remove(os.path.join(d, "model-00002-of-00002.safetensors"))

    d = os.path.join(root, "bad-index-orphan")  # index: layer 1 in shard 1
    copy_dir(llama, d)
    edit_json(os.path.join(d, "model.safetensors.index.json"),
              lambda o: o["weight_map"].update({
                  "model.layers.1.self_attn.k_proj.weight":
                  "model-00001-of-00002.safetensors"}))

    d = os.path.join(root, "bad-config-shape")  # 8 key heads, files hold 4
    copy_dir(llama, d)
    edit_json(os.path.join(d, "config.json"),
              lambda o: o.update(num_key_value_heads=8))

    d = os.path.join(root, "bad-gqa-groups")  # 8 query heads, 3 key heads
    copy_dir(llama, d)
    edit_json(os.path.join(d, "config.json"),
              lambda o: o.update(num_key_value_heads=3))

    d = os.path.join(root, "bad-extra-layer")  # config: 1 layer, files: 2
    copy_dir(mistral, d)
    edit_json(os.path.join(d, "config.json"),
              lambda o: o.update(num_hidden_layers=1))

    d = os.path.join(root, "bad-field-type")
    copy_dir(mistral, d)
    edit_json(os.path.join(d, "config.json"),
              lambda o: o.update(num_attention_heads="6"))

    d = os.path.join(root, "bad-model-type")
    copy_dir(mistral, d)
    edit_json(os.path.join(d, "config.json"),
              lambda o: o.update(model_type="mamba"))

    d = os.path.join(root, "bad-symlink")  # a shard that lives elsewhere
    os.makedirs(d)
    shutil.copy(os.path.join(mistral, "config.json"), d)
    os.symlink("../mistral/model.safetensors",
               os.path.join(d, "model.safetensors"))

    d = os.path.join(root, "bad-shard-path")  # the index climbs out
    copy_dir(llama, d)
    edit_json(os.path.join(d, "model.safetensors.index.json"),
              lambda o: o["weight_map"].update({
                  "model.layers.0.self_attn.k_proj.weight":
                  "../llama/model-00001-of-00002.safetensors"}))

    d = os.path.join(root, "bad-config-json")  # a comma missing, line 3
    os.makedirs(d)
    with open(os.path.join(d, "config.json"), "w") as f:
        f.write('{\n  "model_type": "llama",\n  "hidden_size": 32\n'
                '  "num_attention_heads": 8\n}\n')

    d = os.path.join(root, "bad-index-json")  # cut short
    copy_dir(llama, d)
    path = os.path.join(d, "model.safetensors.index.json")
    with open(path) as f:
        text = f.read()
    with open(path, "w") as f:
        f.write(text[:len(text) // 2])

    d = os.path.join(root, "bad-no-weights")
    os.makedirs(d)
    shutil.copy(os.path.join(mistral, "config.json"), d)

    d = os.path.join(root, "bad-pytorch-only")
    os.makedirs(d)
    shutil.copy(os.path.join(mistral, "config.json"), d)
    with open(os.path.join(d, "pytorch_model.bin"), "wb") as f:
        f.write(b"PK\x03\x04")

    d = os.path.join(root, "bad-not-2d")  # a key tensor of three dimensions
    copy_dir(mistral, d)
    path = os.path.join(d, "model.safetensors")
    with open(path, "rb") as f:
        (n,) = struct.unpack("<Q", f.read(8))
        header = json.loads(f.read(n))
        data = f.read()
    header["model.layers.0.self_attn.k_proj.weight"]["shape"] = [3, 4, 24]
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * (-len(text) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)) + text + data)


def grouped_architectures():
    """Grouped-query models whose query heads differ within each key
    group (hdi DIR --groups), one per way queries are stored."""
    falcon_qkv = "transformer.h.{b}.self_attention.query_key_value.weight"
    return [
        (Arch("llama-groups", "llama", llama_config(32, 8, 2, 3), 32, 8, 2,
              4, "separate", "out-in", "F32",
              [("self-attention", "model.layers.{b}.self_attn.k_proj.weight",
                3)], 21, query_pool=2), 2),
        (Arch("falcon-groups", "falcon",
              {"hidden_size": 24, "num_attention_heads": 6,
               "num_kv_heads": 2, "new_decoder_architecture": True,
               "num_hidden_layers": 2},
              24, 6, 2, 4, "grouped", "out-in", "BF16",
              [("self-attention", falcon_qkv, 2)], 22, query_pool=3), 0),
        (Arch("falcon-mq-groups", "falcon",
              {"hidden_size": 24, "num_attention_heads": 4,
               "multi_query": True, "new_decoder_architecture": False,
               "num_hidden_layers": 2},
              24, 4, 1, 6, "concatenated", "out-in", "F16",
              [("self-attention", falcon_qkv, 2)], 23, query_pool=4), 0),
    ]


def nested_architectures():
    """Configurations that nest the fields a preset reads: the multimodal
    Gemma 3 (its text model under text_config, its layers under
    language_model.model. as on the Hub or model.language_model. as
    transformers >= 4.52 saves them, beside a vision tower's keys) and
    MPT's attn_config (grouped and multi-query keys; a kv_n_heads left at
    llm-foundry's default beside multihead_attention is not read)."""
    self = "self-attention"
    text = {"hidden_size": 24, "num_attention_heads": 4, "head_dim": 10,
            "num_key_value_heads": 2, "num_hidden_layers": 2,
            "model_type": "gemma3_text"}
    vision = {"hidden_size": 24, "num_attention_heads": 4,
              "num_hidden_layers": 2, "model_type": "siglip_vision_model"}
    tower = "vision_tower.vision_model.encoder.layers.{b}.self_attn" \
        ".k_proj.weight"
    mpt_k = "transformer.blocks.{b}.attn.Wqkv.weight"
    return [
        (Arch("gemma3-multimodal", "gemma3",
              {"text_config": text, "vision_config": vision,
               "architectures": ["Gemma3ForConditionalGeneration"]},
              24, 4, 2, 10, "separate", "out-in", "BF16",
              [(self, "language_model.model.layers.{b}.self_attn.k_proj"
                ".weight", 2)], 24, decoys=[tower]), 2),
        (Arch("gemma3-multimodal-new", "gemma3",
              {"text_config": dict(text, num_key_value_heads=1),
               "vision_config": vision},
              24, 4, 1, 10, "separate", "out-in", "F32",
              [(self, "model.language_model.layers.{b}.self_attn.k_proj"
                ".weight", 2)], 25,
              decoys=["model." + tower]), 0),
        (Arch("mpt-gqa", "mpt",
              {"d_model": 24, "n_heads": 6, "n_layers": 2,
               "attn_config": {"attn_type": "grouped_query_attention",
                               "kv_n_heads": 3}},
              24, 6, 3, 4, "concatenated", "out-in", "BF16",
              [(self, mpt_k, 2)], 26), 0),
        (Arch("mpt-mq", "mpt",
              {"d_model": 32, "n_heads": 4, "n_layers": 2,
               "attn_config": {"attn_type": "multiquery_attention",
                               "kv_n_heads": 4}},
              32, 4, 1, 8, "concatenated", "out-in", "F16",
              [(self, mpt_k, 2)], 27), 1),
        (Arch("mpt-kv-default", "mpt",
              {"d_model": 32, "n_heads": 4, "n_layers": 2,
               "attn_config": {"attn_type": "multihead_attention",
                               "kv_n_heads": 1}},
              32, 4, 4, 8, "concatenated", "out-in", "F32",
              [(self, mpt_k, 2)], 28), 0),
    ]


def generate(root):
    for a, shards in (architectures() + grouped_architectures() +
                      nested_architectures()):
        write_arch(root, a, shards)
    hostile(root)


def same_tree(a, b):
    cmp = filecmp.dircmp(a, b)
    if cmp.left_only or cmp.right_only or cmp.funny_files:
        print("differ:", a, cmp.left_only, cmp.right_only, cmp.funny_files)
        return False
    ok = True
    for name in cmp.common_files:
        pa, pb = os.path.join(a, name), os.path.join(b, name)
        if os.path.islink(pa) or os.path.islink(pb):
            if not (os.path.islink(pa) and os.path.islink(pb)
                    and os.readlink(pa) == os.readlink(pb)):
                print("differ:", pa)
                ok = False
        elif not filecmp.cmp(pa, pb, shallow=False):
            print("differ:", pa)
            ok = False
    return ok and all(same_tree(os.path.join(a, s), os.path.join(b, s))
                      for s in cmp.common_dirs)


def main(argv):
    check = "--check" in argv
    args = [x for x in argv if x != "--check"]
    here = args[0] if args else os.path.dirname(os.path.abspath(__file__))
    dirs = sorted(n for n in os.listdir(here)
                  if os.path.isdir(os.path.join(here, n)))
    with tempfile.TemporaryDirectory() as tmp:
        generate(tmp)
        made = sorted(os.listdir(tmp))
        if check:
            ok = made == dirs and all(
                same_tree(os.path.join(tmp, n), os.path.join(here, n))
                for n in made)
            print("fixtures match their generator" if ok else
                  "fixtures differ from make_fixtures.py: rerun it")
            return 0 if ok else 1
        for n in dirs:
            shutil.rmtree(os.path.join(here, n))
        for n in made:
            shutil.copytree(os.path.join(tmp, n), os.path.join(here, n),
                            symlinks=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
