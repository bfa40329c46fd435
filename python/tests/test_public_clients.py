"""The public kernels' clients (python/clients/, docs/public-kernels.md) fuzzed on a small sample in CI.

Each row fuzzes some backends of one client file through `python -m scancheck.worker` with a fixed seed, and
either expects them to pass or expects the failure docs/public-kernels.md explains, with its diagnosis: a
known failure that stops failing is news too. A row whose package is not installed is skipped, never passed.
`SCANCHECK_PUBLIC_CASES=2000` turns every row into the soak: that many cases per backend, every regime, and
only the verdict is asserted (ctest label soak). Triton runs under its interpreter without a GPU.
"""

import importlib.util
import os
from pathlib import Path

import pytest

import scancheck

CLIENTS = Path(__file__).parents[1] / "clients"
SOAK = int(os.environ.get("SCANCHECK_PUBLIC_CASES", "0"))
GPU_ONLY = "does not run under Triton 3.6's interpreter: (i_t * BT).to(tl.int64) on a Python int (fla chunk.py)"


def row(client, packages, backends, cases, regimes=("default",), fails_with=None, gpu_only=None):
    """One sample: `fails_with`, when given, is a line the documented failure's details must hold."""
    return pytest.param(
        client,
        packages,
        backends,
        cases,
        regimes,
        fails_with,
        gpu_only,
        id=f"{client.removesuffix('.py')}:{backends.split(':', 1)[1]}:{'+'.join(regimes)}",
    )


SAMPLE = [
    # q = 1 - exp(2 log a) evaluated literally (recurrences.md section 5): at decays within 6e-8 of 1 q is 0,
    # so the input never reaches the state.
    row("recurrentgemma_torch.py", ("recurrentgemma",), "recurrentgemma_torch:*", 2, ("clip",), fails_with="y: error"),
    row("recurrentgemma_jax.py", ("recurrentgemma", "flax"), "recurrentgemma_jax:rglru/*@fp32", 1),
    row(
        "recurrentgemma_jax.py",
        ("recurrentgemma", "flax"),
        "recurrentgemma_jax:rglru/linear@fp32",
        1,
        ("clip",),
        fails_with="y: error",
    ),
    # With a cache the native complex scans accumulate in float32 and drop Im(a) (pallas.get_acc_dtype).
    row(
        "recurrentgemma_jax.py",
        ("recurrentgemma", "flax"),
        "recurrentgemma_jax:complex_rglru/linear@fp32",
        1,
        fails_with="y: error",
    ),
    row(
        "recurrentgemma_jax.py",
        ("recurrentgemma", "flax"),
        "recurrentgemma_jax:complex_rglru/{linear_no_cache,associative_no_cache,pallas}@fp32",
        1,
    ),
    # ref.scan crashes at length 1 (accelerated_scan/ref.py: a tree of level 0, split() reshapes to (B, C, 0, 2)).
    row(
        "accelerated_scan_client.py",
        ("accelerated_scan",),
        "accelerated_scan:*/ref@fp32",
        10,
        fails_with="error: RuntimeError: shape '[1, 1, 0, 2]' is invalid",
    ),
    row(
        "accelerated_scan_client.py",
        ("accelerated_scan",),
        "accelerated_scan:*/ref_from_length_2@fp32",
        10,
        ("default", "resets", "extreme"),
    ),
    row(
        "accelerated_scan_client.py",
        ("accelerated_scan", "triton"),
        "accelerated_scan:scan/triton_scalar@fp32",
        3,
        ("default", "resets"),
    ),
    row(
        "accelerated_scan_client.py",
        ("accelerated_scan", "triton"),
        "accelerated_scan:complex_scan/triton_complex@fp32",
        1,
    ),
    row(
        "fla_hgrn.py",
        ("fla", "triton"),
        "fla_hgrn:scan/{fused_recurrent,naive}@fp32",
        10,
        ("default", "long_memory", "clip"),
    ),
    row("fla_hgrn.py", ("fla", "triton"), "fla_hgrn:scan/chunk@fp32", 3, gpu_only=GPU_ONLY),
]


@pytest.mark.parametrize(("client", "packages", "backends", "cases", "regimes", "fails_with", "gpu_only"), SAMPLE)
def test_public_client(client, packages, backends, cases, regimes, fails_with, gpu_only, tmp_path):
    missing = [p for p in packages if importlib.util.find_spec(p) is None]
    if missing:
        pytest.skip(f"not installed: {', '.join(missing)} (python/constraints.txt pins it; ci/bootstrap.sh)")
    if gpu_only and not _has_gpu():
        pytest.skip(gpu_only)
    result = scancheck.fuzz(
        CLIENTS / client,
        backends,
        cases=SOAK or cases,
        regimes=() if SOAK else regimes,
        findings=tmp_path,
        keep_going=bool(SOAK),
        timeout=600,
    )
    report = "\n".join(map(str, result.failures)) or result.output[-4000:]
    if fails_with is None:
        assert result.passed, report
    elif not SOAK:
        assert not result.passed, f"the documented failure did not happen:\n{result.output[-4000:]}"
        assert any(fails_with in line for f in result.failures for line in f.details), report


def _has_gpu():
    try:
        import torch
    except ImportError:
        return False
    return torch.cuda.is_available()
