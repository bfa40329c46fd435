"""RecurrentGemma's JAX RG-LRU (`recurrentgemma.jax.layers.RGLRU`) as scancheck backends: adapters only.

Real (rglru) and complex (complex_rglru, `only_real=False`: the merged layout scancheck's follows) layers, under
each of the package's scans: the linear `jax.lax.scan`, the associative scan, and its Pallas kernel, which runs
under Pallas' interpreter on the CPU (the package calls `pl.pallas_call` without `interpret`; scancheck's JAX
framework switches every Pallas kernel to its interpreter there). The flax module is applied to the case's
parameters; jax.vjp gives the backward through the package's own custom VJPs (sqrt_bound_derivative, the Pallas
scan's). The layer's default dtype promotes bfloat16 x to float32 (flax promote_dtype): its bfloat16 rows
compute in float32 and return y in float32. The sqrt gradient is bounded (sqrt_bound_derivative, 1000).

The layer is applied under `jax.jit`, as a model applies it, and its shapes are bucketed (`shapes="bucketed"`):
each shape is compiled once in a fuzzing run and kept. `-- --shapes=any` declares them as before bucketing, for
python/benchmarks/compiled_shape_reuse.py.
"""

import functools
import sys

import jax
from recurrentgemma import common
from recurrentgemma.jax import layers

import scancheck

SCANCHECK_PROVIDER = "recurrentgemma_jax"
SCANCHECK_PROVENANCE: scancheck.Provenance = {"package": "recurrentgemma", "commit": ""}  # the wheel, not this repo


SCANS = {
    "linear": common.ScanType.LINEAR_NATIVE,
    "associative": common.ScanType.ASSOCIATIVE_NATIVE,
    "pallas": common.ScanType.LINEAR_PALLAS,
}
# The Pallas kernel tiles the scanned width by 128 (pallas.compute_pallas_kernel_spec); the interpreter
# walks every tile in Python, so its interpreted cases stay short.
PALLAS = {
    "rglru": {"width_multiple": 128, "max_width": 128, "max_length": 48},
    "complex_rglru": {"width_multiple": 256, "max_width": 256, "max_length": 48},
}
SMALL = {"max_length": 300, "max_width": 64, "width_multiple": 2}  # RGLRU.setup asserts an even width


SHAPES = "any" if "--shapes=any" in sys.argv[1:] else "bucketed"


@functools.partial(jax.jit, static_argnames=("heads", "scan", "only_real"))
def _apply(x, segment_pos, h0, parameters, heads, scan, only_real):
    module = layers.RGLRU(width=x.shape[-1], num_heads=heads, scan_type=SCANS[scan], only_real=only_real)
    return module.apply({"params": parameters}, x, segment_pos, cache=h0)  # (y, last_h)


def declare(architecture, scan, io_dtype, cache=True):
    constraints = {**(PALLAS[architecture] if scan == "pallas" else SMALL), "sqrt_gradient": ["bounded"]}
    declare_as = scancheck.backend(
        architecture,
        variant=scan if cache else f"{scan}_no_cache",
        io_dtype=io_dtype,
        framework="jax",
        constraints=constraints,
        shapes=SHAPES,
    )
    if architecture == "rglru":

        def rglru(x, segment_pos, h0, a_param, input_gate_w, input_gate_b, a_gate_w, a_gate_b, heads):
            parameters = {
                "a_param": a_param,
                "input_gate": {"w": input_gate_w, "b": input_gate_b},
                "a_gate": {"w": a_gate_w, "b": a_gate_b},
            }
            return _apply(x, segment_pos, h0, parameters, heads, scan, only_real=True)

        return declare_as(rglru)

    def complex_rglru(x, segment_pos, h0, a_param, input_gate_w, input_gate_b, a_gate_w, a_gate_b, a_imag_param, heads):
        parameters = {
            "a_param": a_param,
            "a_imag_param": a_imag_param,
            "input_gate": {"w": input_gate_w, "b": input_gate_b},
            "a_gate": {"w": a_gate_w, "b": a_gate_b},
        }
        return _apply(x, segment_pos, h0, parameters, heads, scan, only_real=False)

    def complex_rglru_no_cache(
        x, segment_pos, a_param, input_gate_w, input_gate_b, a_gate_w, a_gate_b, a_imag_param, heads
    ):  # no h0: the native complex scans' path that keeps Im(a)
        return complex_rglru(
            x, segment_pos, None, a_param, input_gate_w, input_gate_b, a_gate_w, a_gate_b, a_imag_param, heads
        )

    return declare_as(complex_rglru if cache else complex_rglru_no_cache)


BACKENDS = [
    declare(arch, scan, dtype)
    for arch in ("rglru", "complex_rglru")
    for scan in SCANS
    for dtype in ("float32", "bfloat16")
]
# With a cache (h0) the native complex scans accumulate in float32, not complex64, dropping Im(a)
# (docs/public-kernels.md): the same layers without one check the rest of their complex path.
BACKENDS += [
    declare("complex_rglru", scan, dtype, cache=False)
    for scan in ("linear", "associative")
    for dtype in ("float32", "bfloat16")
]
