"""The worker side of protocol 1 (docs/foreign-backends.md): serves the backends a Python file declares.

    python -m scancheck.worker tests/test_scan_kernels.py           # or a module: mykernels.scancheck_backends
    scancheck fuzz --worker 'python -m scancheck.worker tests/test_scan_kernels.py' --backends 'mykernels:*'

The backends are the `scancheck.Backend` objects among the file's or module's top-level names (what the
`scancheck.backend` decorator returns); the provider is `--provider`, else the module's `SCANCHECK_PROVIDER`,
else the file's name. The hello also tells where the kernels come from (`scancheck.Provenance`: package,
version, commit; the module's `SCANCHECK_PROVENANCE` over what is detected). The worker's own messages go
to stderr, which scancheck keeps as its log.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from types import ModuleType

from scancheck.protocol import (
    Server,
    backends_of,
    interpret_triton_without_gpu,
    load_module,
    provenance_of,
    provider_of,
)


def serve_module(module: ModuleType, provider: str | None = None, only: Sequence[str] = ()) -> int:
    """Serves a module's backends on stdin and stdout until bye; what a worker file's `__main__` calls:

    if __name__ == "__main__":
        sys.exit(scancheck.worker.serve_module(sys.modules[__name__]))
    """
    protocol_out, sys.stdout = sys.stdout, sys.stderr  # the protocol owns stdout; prints go to the log
    try:
        backends = [b for b in backends_of(module) if not only or b.name in only]
        server = Server(provider_of(module, provider), backends, provenance_of(module))
    except Exception as e:
        print(f"scancheck.worker: {module.__name__}: {type(e).__name__}: {e}", file=sys.stderr)
        return 2
    try:
        server.serve(sys.stdin, protocol_out)
    finally:
        sys.stdout = protocol_out
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m scancheck.worker", description=__doc__.splitlines()[0])
    parser.add_argument("target", help="a Python file or a module that declares scancheck backends")
    parser.add_argument("args", nargs=argparse.REMAINDER, help="after --: the target's own arguments (its sys.argv)")
    parser.add_argument("--provider", help="the provider name (default: SCANCHECK_PROVIDER, else the file's name)")
    parser.add_argument(
        "--only", action="append", default=[], help="serve only this backend (architecture/variant@dtype); repeatable"
    )
    args = parser.parse_args(argv)
    sys.argv = [args.target, *(a for a in args.args if a != "--")]
    interpret_triton_without_gpu()
    stdout, sys.stdout = sys.stdout, sys.stderr  # importing the kernels may print
    try:
        module = load_module(args.target)
    except Exception as e:
        print(f"scancheck.worker: {args.target}: {type(e).__name__}: {e}", file=sys.stderr)
        return 2
    finally:
        sys.stdout = stdout
    return serve_module(module, args.provider, args.only)


if __name__ == "__main__":
    sys.exit(main())
