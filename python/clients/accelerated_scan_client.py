"""accelerated-scan's Triton scans (`accelerated_scan.scalar`, `.complex`) and its reference (`.ref`): adapters only.

Every scan takes [B, C, T] contiguous tensors (layout "B W L"), no initial state and no final-state output
(h_last is h's last step, so dh_last reaches the kernel through dh); the complex one takes complex64
(complex_layout "native"). Triton runs under its interpreter without a GPU, so interpreted cases stay small;
the kernels' BLOCK is 2048 steps, so interpreted lengths reach 2100 to cross one.
"""

import torch
from accelerated_scan import complex as complex_scan
from accelerated_scan import ref, scalar

import scancheck

SCANCHECK_PROVIDER = "accelerated_scan"
SCANCHECK_PROVENANCE: scancheck.Provenance = {"package": "accelerated_scan", "commit": ""}  # the wheel, not this repo
# The interpreter walks each program's block of 2048 steps in Python (0.25 s a block and pass for the real
# scan, 2 s for the complex one): one batch entry and few channels (a complex W of 4 is two channels),
# lengths that cross a block for the real scan, one block for the complex one.
GPU = torch.cuda.is_available()
INTERPRETER = {} if GPU else {"max_length": 2100, "max_width": 4, "max_batch": 1}
INTERPRETER_COMPLEX = {} if GPU else {"max_length": 2048, "max_width": 4, "max_batch": 1}


@scancheck.backend("scan", variant="triton_scalar", layout="B W L", constraints=INTERPRETER)
def triton_scalar(a, b):
    return scalar.scan(a.contiguous(), b.contiguous())


@scancheck.backend(
    "complex_scan", variant="triton_complex", layout="B W L", complex_layout="native", constraints=INTERPRETER_COMPLEX
)
def triton_complex(a, b):
    return complex_scan.scan(a.contiguous(), b.contiguous())


@scancheck.backend("scan", variant="ref", layout="B W L")
def reference(a, b):
    return ref.scan(a.contiguous(), b.contiguous())


@scancheck.backend("complex_scan", variant="ref", layout="B W L", complex_layout="native")
def reference_complex(a, b):
    return ref.scan(a.contiguous(), b.contiguous())


# ref.scan fails at T = 1 (its tree has level 0, and split() reshapes to (B, C, 0, 2)): the same reference
# from T = 2 on checks the rest of it (docs/public-kernels.md).
@scancheck.backend("scan", variant="ref_from_length_2", layout="B W L", constraints={"min_length": 2})
def reference_from_2(a, b):
    return ref.scan(a.contiguous(), b.contiguous())


@scancheck.backend(
    "complex_scan", variant="ref_from_length_2", layout="B W L", complex_layout="native", constraints={"min_length": 2}
)
def reference_complex_from_2(a, b):
    return ref.scan(a.contiguous(), b.contiguous())
