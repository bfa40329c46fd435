"""scancheck for Python: check a scan kernel (Triton, PyTorch, JAX, numpy) against exact references.

Declare a kernel as a backend, and `pytest --scancheck` fuzzes it (one test per backend; a failure shows the
shrunk case, where its error lives and the command that replays it):

    import scancheck
    from mykernels import chunked_scan          # a Triton kernel in a torch.autograd.Function

    @scancheck.backend("scan", variant="triton_chunk64", layout="B L W")
    def chunk64(a, b, h0):
        return chunked_scan(a, b, h0)           # the backward comes from autograd

The same file serves a scancheck command line: `scancheck report --worker 'python -m scancheck.worker FILE'`.
The guide is docs/python.md.
"""

from scancheck.backend import Backend, backend
from scancheck.checking import Failure, FuzzResult, ScancheckNotFound, executable, fuzz, worker_command
from scancheck.conventions import Conventions
from scancheck.protocol import PROTOCOL_VERSION, Provenance

__all__ = [
    "PROTOCOL_VERSION",
    "Backend",
    "Conventions",
    "Failure",
    "FuzzResult",
    "Provenance",
    "ScancheckNotFound",
    "backend",
    "executable",
    "fuzz",
    "worker_command",
]
