"""What the kernel tests share: the repository's example PyTorch worker (examples/torch_worker.py) as a module,
loaded once (the tests' kernels reuse its RG-LRU, its sequential scan and its bounded sqrt gradient rather than
copying them), and the one failure of a fuzz run that must fail."""

import functools
import importlib.util
from pathlib import Path
from types import ModuleType

import scancheck


@functools.cache
def torch_worker() -> ModuleType:
    path = Path(__file__).parents[3] / "examples" / "torch_worker.py"
    spec = importlib.util.spec_from_file_location("torch_worker_example", path)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def only_failure(result: scancheck.FuzzResult, where: str = "", shape: str = "") -> scancheck.Failure:
    """The failure of a fuzz run over one backend that must have failed; `where`, when given, is a line of its
    diagnosis ("where: ...") and `shape` the shape it was shrunk to."""
    assert not result.passed
    (failure,) = result.failures
    if where:
        assert f"where: {where}" in failure.details, failure.details
    if shape:
        assert f"--shape {shape}" in failure.summary, failure.summary
    return failure
