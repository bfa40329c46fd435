"""The pytest plugin (entry point `pytest11`): every declared backend in a test module is a test item.

    $ pytest --scancheck --scancheck-cases 300

Without `--scancheck` the backends are collected and skipped, so a plain `pytest` stays fast and says what it
left out. A failing item's message is scancheck's own: the shrunk case, where the error lives, the repro.
The `scancheck_fuzz` fixture runs the same check from a test of your own, with the command line's options:

    def test_chunk64(scancheck_fuzz):
        result = scancheck_fuzz(chunk64, cases=50)
        assert result.passed, result
"""

from __future__ import annotations

import inspect
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from scancheck.backend import Backend
from scancheck.checking import REGIMES, FuzzResult, fuzz
from scancheck.protocol import interpret_triton_without_gpu, provider_of


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("scancheck", "fuzzing scan kernels against exact references")
    group.addoption("--scancheck", action="store_true", help="fuzz every declared scancheck backend")
    group.addoption("--scancheck-cases", type=int, default=100, metavar="N", help="cases per backend (default 100)")
    group.addoption("--scancheck-time", metavar="DURATION", help="fuzz each backend this long instead: 90s, 5m")
    group.addoption("--scancheck-seed", type=int, default=1, metavar="SEED", help="seed of the case stream")
    group.addoption("--scancheck-regimes", metavar="LIST", help=f"comma-separated, of: {', '.join(REGIMES)}")
    group.addoption(
        "--scancheck-findings",
        default="findings",
        metavar="DIR",
        help="where shrunk failing cases are saved (default ./findings)",
    )
    group.addoption("--scancheck-timeout", type=float, metavar="SECONDS", help="seconds a kernel may take per run")


class BackendFailed(Exception):
    """A backend's fuzz run found failures (or scancheck ended otherwise than passing)."""

    def __init__(self, result: FuzzResult) -> None:
        super().__init__(result.output)
        self.result = result


class BackendItem(pytest.Item):
    """One backend, fuzzed by scancheck through this library's worker."""

    def __init__(self, *, backend: Backend, module_path: Path, provider: str, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.backend = backend
        self.module_path = module_path
        self.provider = provider
        self.add_marker(pytest.mark.scancheck)

    def runtest(self) -> None:
        if not self.config.getoption("scancheck"):
            pytest.skip("a scancheck backend: pass --scancheck to fuzz it")
        result = _fuzz_with_options(self.config, self.module_path, self.backend, self.provider)
        if not result.passed:
            raise BackendFailed(result)

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> str:
        if isinstance(excinfo.value, BackendFailed):
            r = excinfo.value.result
            if r.failures:
                return "\n".join(str(f) for f in r.failures)
            return f"scancheck fuzz ended with exit code {r.returncode}:\n{r.output}"
        return str(super().repr_failure(excinfo))

    def reportinfo(self) -> tuple[Path, int | None, str]:
        return self.module_path, None, f"scancheck {self.provider}:{self.backend.name}"


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "scancheck: a scancheck backend, fuzzed with --scancheck")
    if config.getoption("scancheck"):
        interpret_triton_without_gpu()  # before the test modules (and their triton.jit) are imported


def pytest_pycollect_makeitem(collector: pytest.Collector, name: str, obj: object) -> BackendItem | None:
    # A backend is a test of the module that declares it, not of every module that imports it.
    # A private name (a planted bug, say) is served by the worker and scancheck_fuzz but is no test item.
    if not isinstance(obj, Backend) or not isinstance(collector, pytest.Module) or name.startswith("_"):
        return None
    if obj.kernel.__module__ != collector.obj.__name__:
        return None
    return BackendItem.from_parent(
        collector,
        name=f"{name}[{obj.name}]",
        backend=obj,
        module_path=collector.path,
        provider=provider_of(collector.obj),
    )


def _fuzz_with_options(
    config: pytest.Config, module_path: Path, backend: Backend, provider: str, **overrides: Any
) -> FuzzResult:
    regimes = config.getoption("scancheck_regimes")
    options: dict[str, Any] = {
        "cases": None if config.getoption("scancheck_time") else config.getoption("scancheck_cases"),
        "time": config.getoption("scancheck_time"),
        "seed": config.getoption("scancheck_seed"),
        "regimes": regimes.split(",") if regimes else (),
        "findings": config.getoption("scancheck_findings"),
        "timeout": config.getoption("scancheck_timeout"),
    }
    options.update(overrides)
    return fuzz(module_path, f"{provider}:{backend.name}", only=[backend.name], provider=provider, **options)


@pytest.fixture
def scancheck_fuzz(request: pytest.FixtureRequest) -> Callable[..., FuzzResult]:
    """Fuzzes a backend with the command line's options: `scancheck_fuzz(backend, cases=50)`.

    The worker serves the file that declares the backend, under that module's provider name.
    """

    def run(backend: Backend, **overrides: Any) -> FuzzResult:
        module = sys.modules[backend.kernel.__module__]
        path = Path(inspect.getfile(backend.kernel))
        return _fuzz_with_options(request.config, path, backend, provider_of(module), **overrides)

    return run
