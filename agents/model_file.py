"""How a shipped model file is stored: its network weights in float16, compressed.

``MaskablePPO.save`` writes the weights as float32 into an uncompressed zip.  A shipped
model only plays, so half the precision is enough: float16 keeps about three decimal
digits, far finer than the gaps between the logits a policy acts on (the measurement is
in ``docs/results/2026-12-01-learned-set.md``).  Halving is what lets every shipped model
carry the card head and the whole set stay within the 30 MB budget of the package.

Nothing else changes: ``MaskablePPO.load`` copies each stored tensor into the freshly
built float32 network (``Module.load_state_dict`` casts on copy), so a compacted file
loads and plays with the same code as any other.  The optimizer state, which only
training reads, is kept as it was so that ``--init`` and resuming still accept the file.
"""

from __future__ import annotations

import base64
import io
import json
import pickle
import re
import zipfile
from pathlib import Path
from typing import Any

from carioca_env.records import write_atomic

#: The zip member that holds the policy's ``state_dict`` (stable-baselines3's layout).
POLICY_MEMBER = "policy.pth"
#: The dtype a compacted file stores its floating-point weights in (a shipped card says it).
STORED_DTYPE = "float16"


def _policy_state(data: bytes) -> dict:
    """The policy ``state_dict`` stored as the bytes ``data`` (tensors only, on the CPU)."""
    import torch

    return torch.load(io.BytesIO(data), map_location="cpu", weights_only=True)


def is_model_file(path: str | Path) -> bool:
    """Whether ``path`` is a zip holding a stable-baselines3 policy (``policy.pth``)."""
    try:
        with zipfile.ZipFile(path) as z:
            return POLICY_MEMBER in z.namelist()
    except (OSError, zipfile.BadZipFile):
        return False


def compact_model_file(src: str | Path, dst: str | Path) -> int:
    """Write the model file ``src`` to ``dst`` with float16 policy weights, deflated.

    ``src`` and ``dst`` may be the same path (the file is replaced only once the new one
    is written).  Returns the size of ``dst`` in bytes.

    Raises:
        ValueError: ``src`` is not a stable-baselines3 model file (no ``policy.pth``).
    """
    import torch

    src, dst = Path(src), Path(dst)
    with zipfile.ZipFile(src) as zin:
        members = {info.filename: zin.read(info) for info in zin.infolist()}
    if POLICY_MEMBER not in members:
        raise ValueError(f"{src}: not a stable-baselines3 model file (it has no {POLICY_MEMBER})")
    state = _policy_state(members[POLICY_MEMBER])
    dtype = getattr(torch, STORED_DTYPE)
    half = {k: (v.to(dtype) if v.is_floating_point() else v) for k, v in state.items()}
    buf = io.BytesIO()
    torch.save(half, buf)
    members[POLICY_MEMBER] = buf.getvalue()
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", compression=zipfile.ZIP_DEFLATED) as zout:
        for name, data in members.items():
            zout.writestr(name, data)
    write_atomic(dst, out.getvalue())
    return dst.stat().st_size


def weight_dtypes(path: str | Path) -> set[str]:
    """The dtypes of the floating-point policy weights stored in the model file ``path``."""
    with zipfile.ZipFile(path) as z:
        state = _policy_state(z.read(POLICY_MEMBER))
    return {str(v.dtype).removeprefix("torch.") for v in state.values() if v.is_floating_point()}


# --------------------------------------------------------------------------- files of the old names

#: The import names this project's packages had before every name began with ``carioca``:
#: a model file written then names its policy class as ``agents.ppo_policy....``.
LEGACY_PACKAGES: dict[str, str] = {"agents": "carioca_agents", "experiments": "carioca_experiments"}
#: the zip member that holds stable-baselines3's JSON of the model's attributes
DATA_MEMBER = "data"
_LEGACY_NAME = re.compile(rb"(?<![A-Za-z0-9_])(?:" + b"|".join(re.escape(k.encode()) for k in LEGACY_PACKAGES) + rb")\.")


def renamed_module(module: str) -> str:
    """``module`` under today's names (``agents.ppo_policy`` -> ``carioca_agents.ppo_policy``);
    any other module unchanged."""
    top, dot, rest = module.partition(".")
    return LEGACY_PACKAGES[top] + dot + rest if top in LEGACY_PACKAGES else module


class _RenamingUnpickler(pickle.Unpickler):
    """An unpickler that reads this project's old module names as today's."""

    def find_class(self, module: str, name: str) -> Any:
        return super().find_class(renamed_module(module), name)


def legacy_objects(path: str | Path) -> dict[str, Any]:
    """What a stable-baselines3 ``load(path, custom_objects=...)`` needs to read a model
    file written under the old package names (empty for a file of today's names).

    stable-baselines3 stores some attributes (the policy class, for one) pickled, by
    module path; each such attribute of ``path`` that names a module of the old names is
    unpickled here with today's names, so that the load takes it instead of importing a
    package ``agents`` (which may be another distribution's).  A file that is not a zip
    with a readable ``data`` member gives ``{}``, and the load reports it as it would.
    """
    try:
        with zipfile.ZipFile(path) as z:
            data = json.loads(z.read(DATA_MEMBER))
    except (OSError, KeyError, ValueError, zipfile.BadZipFile):
        return {}
    out: dict[str, Any] = {}
    if not isinstance(data, dict):
        return out
    for key, value in data.items():
        if not (isinstance(value, dict) and isinstance(value.get(":serialized:"), str)):
            continue
        raw = base64.b64decode(value[":serialized:"])
        if _LEGACY_NAME.search(raw):
            out[key] = _RenamingUnpickler(io.BytesIO(raw)).load()
    return out


def load_maskable(path: str | Path) -> Any:
    """``MaskablePPO.load`` of the model file ``path`` on the CPU, files of the old package
    names included (:func:`legacy_objects`).  Needs the ``[train]`` extra."""
    from sb3_contrib import MaskablePPO

    return MaskablePPO.load(str(path), device="cpu", custom_objects=legacy_objects(path))
