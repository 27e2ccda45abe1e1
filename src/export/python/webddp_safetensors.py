"""safetensors files without the safetensors package (https://github.com/huggingface/safetensors):
8 bytes of little-endian header length, a JSON header {name: {dtype, shape, data_offsets}, and
"__metadata__": {str: str}}, then the raw little-endian data. webddp writes float32 ("F32") only.
With the package installed, safetensors.torch.load_file / save_file read and write the same files."""
import json
import struct

import numpy as np
import torch


def load(path):
    """(tensors by name, metadata) of a float32 safetensors file."""
    with open(path, "rb") as f:
        raw = f.read()
    if len(raw) < 8:
        raise SystemExit(f"{path}: {len(raw)} bytes is too short for a safetensors file")
    (n,) = struct.unpack("<Q", raw[:8])
    if 8 + n > len(raw):
        raise SystemExit(f"{path}: header length {n} runs past the end of the file")
    try:
        header = json.loads(raw[8 : 8 + n].decode("utf-8"))
    except ValueError as e:
        raise SystemExit(f"{path}: the header is not valid JSON ({e})")
    meta = header.pop("__metadata__", {}) or {}
    body = raw[8 + n :]
    tensors = {}
    for name, info in header.items():
        if info.get("dtype") != "F32":
            raise SystemExit(f"{path}: {name} has dtype {info.get('dtype')}, webddp checkpoints hold F32")
        start, end = info["data_offsets"]
        count = int(np.prod(info["shape"], dtype=np.int64))
        if end - start != 4 * count or end > len(body):
            raise SystemExit(f"{path}: {name}'s data_offsets do not fit its shape {info['shape']}")
        data = np.frombuffer(body, dtype="<f4", count=count, offset=start)
        tensors[name] = torch.from_numpy(data.copy()).reshape(info["shape"])
    return tensors, meta


def save(tensors, path, metadata=None):
    """Writes float32 tensors (e.g. a model's state_dict()) as safetensors, in the given order."""
    header, chunks, at = {}, [], 0
    for name, t in tensors.items():
        data = t.detach().to("cpu", torch.float32).contiguous().numpy().astype("<f4").tobytes()
        header[name] = {"dtype": "F32", "shape": list(t.shape), "data_offsets": [at, at + len(data)]}
        chunks.append(data)
        at += len(data)
    if metadata:
        header["__metadata__"] = {k: str(v) for k, v in metadata.items()}
    text = json.dumps(header, separators=(",", ":")).encode("utf-8")
    text += b" " * (-len(text) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)) + text + b"".join(chunks))
