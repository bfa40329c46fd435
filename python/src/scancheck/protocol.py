"""Worker protocol 1 (docs/foreign-backends.md), the worker's side: hello, run and bye for declared backends.

`scancheck.worker` is its command line; this module holds the protocol itself and how backends are found.
"""

from __future__ import annotations

import importlib
import json
import os
import platform
import re
import sys
import traceback
from collections.abc import Iterable, Sequence
from pathlib import Path
from types import ModuleType
from typing import IO, Any

from scancheck.backend import Backend

#: The worker protocol version this library speaks; scancheck refuses any other.
PROTOCOL_VERSION = 1


def load_module(target: str) -> ModuleType:
    """Imports a Python file by path, as pytest would (inside its package, so relative imports work), or a
    module by its dotted name."""
    path = Path(target)
    if path.suffix == ".py" or path.exists():
        if not path.is_file():
            raise FileNotFoundError(f"no such file: {target}")
        root, name = _package_root(path.resolve())
        sys.path.insert(0, str(root))
        return importlib.import_module(name)
    return importlib.import_module(target)


def interpret_triton_without_gpu() -> None:
    """Without an NVIDIA GPU, Triton kernels run under Triton's interpreter (TRITON_INTERPRET=1), which
    executes the same kernel source on the CPU; set before the kernels' module is imported (triton.jit reads
    it then). An explicit TRITON_INTERPRET is left as it is."""
    visible = os.environ.get("CUDA_VISIBLE_DEVICES")
    has_gpu = any(Path("/proc/driver/nvidia/gpus").glob("*")) and visible not in ("", "-1")
    if not has_gpu:
        os.environ.setdefault("TRITON_INTERPRET", "1")


def _package_root(path: Path) -> tuple[Path, str]:
    """The first folder above `path` that is not a package, and the file's dotted module name from there."""
    parts, folder = [path.stem], path.parent
    while (folder / "__init__.py").is_file():
        parts.insert(0, folder.name)
        folder = folder.parent
    return folder, ".".join(parts)


def backends_of(module: ModuleType) -> list[Backend]:
    """The backends a module declares at its top level (names, or lists and tuples of them), in order."""
    found: list[Backend] = []
    for value in vars(module).values():
        if isinstance(value, Backend):
            found.append(value)
        elif isinstance(value, list | tuple):
            found.extend(v for v in value if isinstance(v, Backend))
    return list({id(b): b for b in found}.values())


def provider_of(module: ModuleType, explicit: str | None = None) -> str:
    """`explicit`, the module's SCANCHECK_PROVIDER, or its file's name made into a provider name."""
    name = explicit or getattr(module, "SCANCHECK_PROVIDER", None)
    if name is None:
        stem = Path(getattr(module, "__file__", None) or module.__name__).stem
        name = re.sub(r"[^a-z0-9_-]", "_", stem.lower().removeprefix("test_")) or "python"
    if not re.fullmatch(r"[a-z0-9_-]+", name):
        raise ValueError(f"provider '{name}' is not [a-z0-9_-]+")
    return str(name)


def runtime_description(backends: Iterable[Backend]) -> str:
    """What the kernels run on, for the report: Python, and each framework's version and device."""
    parts = [f"python {platform.python_version()}"]
    frameworks = {b.framework for b in backends}
    if "torch" in frameworks:
        import torch

        parts.append(f"torch {torch.__version__} {'cuda' if torch.cuda.is_available() else 'cpu'}")
        if "triton" in sys.modules:
            import os

            import triton

            interpreted = os.environ.get("TRITON_INTERPRET") == "1"
            parts.append(f"triton {triton.__version__} {'interpreter' if interpreted else 'compiled'}")
    if "jax" in frameworks:
        import jax

        parts.append(f"jax {jax.__version__} {jax.devices()[0].platform}")
    return ", ".join(parts)


class Server:
    """Answers hello, run and bye requests, one JSON object per line, for a fixed set of backends."""

    def __init__(self, provider: str, backends: Sequence[Backend]) -> None:
        names = [b.name for b in backends]
        clashes = sorted({n for n in names if names.count(n) > 1})
        if clashes:
            raise ValueError(f"backends declared twice: {', '.join(clashes)}")
        if not backends:
            raise ValueError("no scancheck.backend is declared at the top level")
        self.provider = provider
        self.backends = {(b.architecture, b.token): b for b in backends}

    def hello(self) -> dict[str, Any]:
        backends = list(self.backends.values())
        return {"protocol": PROTOCOL_VERSION, "provider": self.provider,
                "backends": [b.declaration() for b in backends], "runtime": runtime_description(backends)}

    def run(self, request: dict[str, Any]) -> dict[str, Any]:
        case = Path(request["case"])
        architecture = json.loads((case / "case.json").read_text())["architecture"]
        b = self.backends.get((architecture, request["backend"]))
        if b is None:
            return {"ok": False, "error": f"no backend {architecture}/{request['backend']} in {self.provider}"}
        timings = b.run(case, request["out"])
        answer: dict[str, Any] = {"ok": True}
        device_ms = {k: v for k, v in (("forward", timings.forward_ms), ("backward", timings.backward_ms)) if v}
        if device_ms:
            answer["device_ms"] = device_ms
        return answer

    def serve(self, stdin: IO[str], stdout: IO[str]) -> None:
        for line in stdin:
            request = json.loads(line)
            op = request.get("op")
            if op == "hello":
                answer = self.hello()
            elif op == "run":
                try:
                    answer = self.run(request)
                except Exception as e:  # the kernel's failure is a row of the report, not the worker's end
                    traceback.print_exc(file=sys.stderr)
                    answer = {"ok": False, "error": f"{type(e).__name__}: {e}".replace("\n", " ")}
                answer["id"] = request["id"]
            else:  # bye
                return
            stdout.write(json.dumps(answer) + "\n")
            stdout.flush()
