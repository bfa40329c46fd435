"""The public kernels' clients (python/clients/, docs/public-kernels.md) fuzzed on a small sample in CI, and soaked.

Each SAMPLE row fuzzes some backends of one client file through `python -m scancheck.worker` with a fixed seed,
and either expects them to pass or expects the failure docs/public-kernels.md explains, with its diagnosis: a
known failure that stops failing is news too. A row whose package is not installed is skipped, never passed.
Triton runs under its interpreter without a GPU.

`SCANCHECK_PUBLIC_CASES=2000` runs the soak instead (ctest label soak): each SOAK row's backends on that many
cases, every regime, all expected to pass. A known failure is soaked through its explanation: RecurrentGemma's
(the literal q, cause A) through the same layers with that one expression rewritten (python/clients/what_if/),
on the same cases, and accelerated-scan's `ref` (cause C, length 1) from length 2 on.
"""

import importlib.util
import os
from pathlib import Path

import pytest

import scancheck

CLIENTS = Path(__file__).parents[1] / "clients"
SOAK = int(os.environ.get("SCANCHECK_PUBLIC_CASES", "0"))
WHAT_IF = "what_if/recurrentgemma_expm1.py"
WHAT_IF_PACKAGES = ("recurrentgemma", "flax", "torch")
GPU_ONLY = "does not run under Triton 3.6's interpreter: (i_t * BT).to(tl.int64) on a Python int (fla chunk.py)"


def row(client, packages, backends, cases, regimes=("default",), fails_with=None, gpu_only=None):
    """One row: `fails_with`, when given, is a line the documented failure's details must hold."""
    return pytest.param(
        client,
        packages,
        backends,
        cases,
        regimes,
        fails_with,
        gpu_only,
        id=":".join(filter(None, (client.removesuffix(".py"), backends.split(":", 1)[1], "+".join(regimes)))),
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
    # Cause A's evidence: the clip rows above, same clients, same cases, with q = -expm1(2 log a) in the package.
    row(WHAT_IF, WHAT_IF_PACKAGES, "recurrentgemma_expm1:rglru/{rglru,linear}@fp32", 2, ("clip",)),
]

SOAK_ROWS = [
    row(WHAT_IF, WHAT_IF_PACKAGES, "recurrentgemma_expm1:rglru/rglru@fp32", SOAK, ()),  # PyTorch
    # JAX, one group of backends a row: a fuzz's groups take turns, and the compiled shapes of every group of
    # these bucketed layers held at once outgrow the worker's cache (docs/public-kernels.md, the JAX soak).
    *(
        row(WHAT_IF, WHAT_IF_PACKAGES, f"recurrentgemma_expm1:{backends}", SOAK, ())
        for backends in (
            "rglru/{linear,associative}@fp32",
            "rglru/{linear,associative}@bf16",
            "rglru/pallas@*",
            "complex_rglru/{linear_no_cache,associative_no_cache}@fp32",
            "complex_rglru/{linear_no_cache,associative_no_cache}@bf16",
            "complex_rglru/pallas@*",
        )
    ),
    row("accelerated_scan_client.py", ("accelerated_scan",), "accelerated_scan:*/ref_from_length_2@fp32", SOAK, ()),
    row("accelerated_scan_client.py", ("accelerated_scan", "triton"), "accelerated_scan:*/triton_*@fp32", SOAK, ()),
    row("fla_hgrn.py", ("fla", "triton"), "fla_hgrn:scan/{fused_recurrent,naive}@fp32", SOAK, ()),
    row("fla_hgrn.py", ("fla", "triton"), "fla_hgrn:scan/chunk*@fp32", SOAK, (), gpu_only=GPU_ONLY),
]


@pytest.mark.skipif(bool(SOAK), reason="SCANCHECK_PUBLIC_CASES runs the soak rows instead")
@pytest.mark.parametrize(("client", "packages", "backends", "cases", "regimes", "fails_with", "gpu_only"), SAMPLE)
def test_public_client(client, packages, backends, cases, regimes, fails_with, gpu_only, tmp_path):
    result = _fuzz(client, packages, backends, cases, regimes, gpu_only, tmp_path)
    report = "\n".join(map(str, result.failures)) or result.output[-4000:]
    if fails_with is None:
        assert result.passed, report
    else:
        assert not result.passed, f"the documented failure did not happen:\n{result.output[-4000:]}"
        assert any(fails_with in line for f in result.failures for line in f.details), report


@pytest.mark.skipif(not SOAK, reason="the soak runs with SCANCHECK_PUBLIC_CASES=N (ctest label soak)")
@pytest.mark.parametrize(("client", "packages", "backends", "cases", "regimes", "fails_with", "gpu_only"), SOAK_ROWS)
def test_public_client_soak(client, packages, backends, cases, regimes, fails_with, gpu_only, tmp_path):
    result = _fuzz(client, packages, backends, cases, (), gpu_only, tmp_path, keep_going=True)
    assert result.passed, "\n".join(map(str, result.failures)) or result.output[-4000:]


def _fuzz(client, packages, backends, cases, regimes, gpu_only, findings, keep_going=False):
    missing = [p for p in packages if importlib.util.find_spec(p) is None]
    if missing:
        pytest.skip(f"not installed: {', '.join(missing)} (python/constraints.txt pins it; ci/bootstrap.sh)")
    if gpu_only and not _has_gpu():
        pytest.skip(gpu_only)
    return scancheck.fuzz(
        CLIENTS / client,
        backends,
        cases=cases,
        regimes=regimes,
        findings=findings,
        keep_going=keep_going,
        timeout=600,
    )


def _has_gpu():
    try:
        import torch
    except ImportError:
        return False
    return torch.cuda.is_available()
