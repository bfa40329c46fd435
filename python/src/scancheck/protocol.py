"""Worker protocol 1 (docs/foreign-backends.md), the worker's side: hello, run and bye for declared backends.

`scancheck.worker` is its command line; this module holds the protocol itself and how backends are found.
"""

from __future__ import annotations

import importlib
import importlib.metadata
import importlib.util
import json
import os
import platform
import re
import subprocess
import sys
import traceback
import urllib.parse
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from types import ModuleType
from typing import IO, Any, TypedDict, cast

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
    if os.environ.get("TRITON_INTERPRET") == "1" and importlib.util.find_spec("triton") is not None:
        _autotune_with_one_config()


def _autotune_with_one_config() -> None:
    """Triton's autotuner times its configs through a GPU driver, which the interpreter has not: interpreted,
    every autotuned kernel keeps its first config. The algorithm, masks and carries are checked with that
    tiling; a GPU run checks the others."""
    from triton.runtime import autotuner

    init = autotuner.Autotuner.__init__
    if getattr(init, "keeps_one_config", False):
        return

    def one_config(self: Any, fn: Any, arg_names: Any, configs: list[Any], *args: Any, **kwargs: Any) -> None:
        init(self, fn, arg_names, configs[:1], *args, **kwargs)

    one_config.keeps_one_config = True  # type: ignore[attr-defined]
    autotuner.Autotuner.__init__ = one_config


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


class Provenance(TypedDict, total=False):
    """Where a worker's kernels come from: the hello answer's optional `provenance`, which reports show.

    The worker detects it from the file or module it serves: `package`, its top-level package or module
    name; `version`, the version of the installed distribution that holds it (importlib.metadata; an
    editable install of a checkout counts); `commit`, `git rev-parse HEAD` of the repository that holds the
    file (nothing without git, outside a repository, or in a folder git ignores, such as a virtual
    environment inside the checkout). Declare it where detection cannot see it, at the top level of the
    served file or module: the keys given replace the detected ones (the version of a declared package is
    looked up by its name), and an empty string leaves a key out.

        import mykernels
        import scancheck

        SCANCHECK_PROVENANCE: scancheck.Provenance = {"package": "mykernels", "version": mykernels.__version__}
    """

    package: str
    version: str
    commit: str


PROVENANCE_KEYS = ("package", "version", "commit")
#: Seconds each git call may take before the commit is left out (a hello must not wait on a slow disk).
GIT_TIMEOUT = 2.0


def provenance_of(module: ModuleType) -> Provenance:
    """The module's provenance: its SCANCHECK_PROVENANCE over what is detected (see `Provenance`).

    Raises TypeError or ValueError, naming the key, for a declaration that is not a dict of the three
    string keys.
    """
    declared = getattr(module, "SCANCHECK_PROVENANCE", None)
    if declared is None:
        declared = {}
    if not isinstance(declared, Mapping):
        raise TypeError(
            f"SCANCHECK_PROVENANCE is a {type(declared).__name__}, not a dict of {', '.join(PROVENANCE_KEYS)}"
        )
    unknown = sorted(str(k) for k in declared if k not in PROVENANCE_KEYS)
    if unknown:
        raise ValueError(f"SCANCHECK_PROVENANCE: unknown key(s) {unknown} (known: {', '.join(PROVENANCE_KEYS)})")
    for key, value in declared.items():
        if not isinstance(value, str):
            raise TypeError(f"SCANCHECK_PROVENANCE['{key}'] is a {type(value).__name__}, not a str")
    file = _module_file(module)
    package = declared.get("package", _top_level_name(module))
    found = {"package": package}
    if "version" not in declared and package:
        found["version"] = _distribution_version(package, None if "package" in declared else file) or ""
    if "commit" not in declared and file is not None:
        found["commit"] = _git_commit(file) or ""
    merged = {**found, **declared}
    return cast(Provenance, {key: merged[key] for key in PROVENANCE_KEYS if merged.get(key)})


def _module_file(module: ModuleType) -> Path | None:
    file = getattr(module, "__file__", None)
    return Path(file).resolve() if file else None


def _top_level_name(module: ModuleType) -> str:
    """The served module's top-level package or module name (`python -m pkg.mod` runs as __main__)."""
    name = module.__name__
    if name == "__main__":
        spec = getattr(module, "__spec__", None)
        file = getattr(module, "__file__", None)
        name = spec.name if spec is not None and spec.name else Path(file).stem if file else ""
    return name.split(".")[0]


def _distribution_version(package: str, file: Path | None) -> str | None:
    """The version of the installed distribution that provides `package` (and `file`, when given: a
    distribution that only shares the name, such as one that ships its own top-level `tests`, is not it)."""
    names = [*importlib.metadata.packages_distributions().get(package, []), package]
    for name in dict.fromkeys(names):
        try:
            dist = importlib.metadata.distribution(name)
        except importlib.metadata.PackageNotFoundError:
            continue
        if file is None or _holds(dist, file):
            return dist.version
    return None


def _holds(dist: importlib.metadata.Distribution, file: Path) -> bool:
    """Whether `dist` installed `file`, or is an editable install of a folder that holds it (PEP 610)."""
    direct = dist.read_text("direct_url.json")
    if direct:
        try:
            info = json.loads(direct)
        except ValueError:
            info = {}
        url = urllib.parse.urlparse(str(info.get("url", "")))
        editable = url.scheme == "file" and bool(info.get("dir_info", {}).get("editable"))
        if editable and file.is_relative_to(Path(urllib.parse.unquote(url.path)).resolve()):
            return True
    return any(Path(str(dist.locate_file(f))).resolve() == file for f in dist.files or () if f.name == file.name)


def _git_commit(file: Path) -> str | None:
    """`git rev-parse HEAD` of the repository holding `file`, unless git ignores the file; None without git,
    outside a repository, or when git takes longer than GIT_TIMEOUT."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}  # a hook's GIT_DIR is not ours

    def git(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            ["git", "-C", str(file.parent), *args],
            capture_output=True,
            text=True,
            env=env,
            timeout=GIT_TIMEOUT,
            check=False,
        )

    try:
        head = git("rev-parse", "HEAD")
        if head.returncode != 0 or git("check-ignore", "-q", "--", file.name).returncode == 0:
            return None
    except (OSError, subprocess.SubprocessError):
        return None
    commit = head.stdout.strip()
    return commit if re.fullmatch(r"[0-9a-f]{40}|[0-9a-f]{64}", commit) else None


class Server:
    """Answers hello, run and bye requests, one JSON object per line, for a fixed set of backends."""

    def __init__(self, provider: str, backends: Sequence[Backend], provenance: Provenance | None = None) -> None:
        names = [b.name for b in backends]
        clashes = sorted({n for n in names if names.count(n) > 1})
        if clashes:
            raise ValueError(f"backends declared twice: {', '.join(clashes)}")
        if not backends:
            raise ValueError("no scancheck.backend is declared at the top level")
        self.provider = provider
        self.backends = {(b.architecture, b.token): b for b in backends}
        self.provenance = provenance or Provenance()

    def hello(self) -> dict[str, Any]:
        backends = list(self.backends.values())
        answer = {
            "protocol": PROTOCOL_VERSION,
            "provider": self.provider,
            "backends": [b.declaration() for b in backends],
            "runtime": runtime_description(backends),
        }
        if self.provenance:
            answer["provenance"] = dict(self.provenance)
        return answer

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
