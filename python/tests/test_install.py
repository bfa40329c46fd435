"""Installation: the root pyproject.toml (scikit-build-core, the package and the executable) and python/'s
(the package alone) declare the same package, and the package finds its executable as documented: $SCANCHECK,
else the one installed with it, else PATH. The install itself, which compiles, is ci/pip-install-check.sh
(ctest python_root_install, label soak)."""

import stat
from pathlib import Path

import pytest

import scancheck
from scancheck import checking

tomllib = pytest.importorskip("tomllib")
ROOT = Path(__file__).parents[2]


def test_both_pyprojects_declare_the_same_package():
    root = tomllib.loads((ROOT / "pyproject.toml").read_text())
    python = tomllib.loads((ROOT / "python" / "pyproject.toml").read_text())
    assert root["build-system"]["build-backend"] == "scikit_build_core.build"
    readmes = root["project"].pop("readme"), python["project"].pop("readme")
    assert (ROOT / readmes[0]).resolve() == (ROOT / "python" / readmes[1]).resolve()
    assert root["project"] == python["project"]
    skbuild = root["tool"]["scikit-build"]
    assert skbuild["wheel"]["packages"] == ["python/src/scancheck"]
    assert skbuild["cmake"]["define"]["SCANCHECK_ENABLE_CUDA"] == "OFF"  # CPU unless asked


def test_scikit_build_core_is_pinned():
    pins = (ROOT / "python" / "constraints.txt").read_text().splitlines()
    assert any(line.startswith("scikit-build-core==") for line in pins)


def _executable(path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("#!/bin/sh\necho scancheck 0.1.0\n")
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return path


def _environment(tmp_path, monkeypatch, *, with_executable, repaired=False):
    """A virtual environment's layout: a scancheck distribution in site-packages whose RECORD lists
    bin/scancheck when a root `pip install .` made it, and another scancheck on PATH. `repaired`: the binary
    wheel's layout (ci/build-wheel.sh), the executable in site-packages' scancheck.scripts/ and bin/scancheck
    auditwheel's Python shim."""
    venv = tmp_path / "venv"
    site = venv / "lib" / "python3" / "site-packages"
    info = site / "scancheck-0.1.0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: scancheck\nVersion: 0.1.0\n")
    records = ["scancheck/__init__.py", f"{info.name}/METADATA"]
    if with_executable:
        _executable(venv / "bin" / "scancheck")
        records.append("../../../bin/scancheck")
    if repaired:
        _executable(site / "scancheck.scripts" / "scancheck")
        records.append("scancheck.scripts/scancheck")
    (info / "RECORD").write_text("".join(f"{r},,\n" for r in records))
    monkeypatch.syspath_prepend(str(site))
    on_path = _executable(tmp_path / "path" / "scancheck")
    monkeypatch.setenv("PATH", str(on_path.parent))
    monkeypatch.delenv("SCANCHECK", raising=False)
    if repaired:
        return site / "scancheck.scripts" / "scancheck", on_path
    return venv / "bin" / "scancheck", on_path


def test_the_executable_installed_with_the_package_comes_before_path(tmp_path, monkeypatch):
    installed, on_path = _environment(tmp_path, monkeypatch, with_executable=True)
    assert scancheck.executable() == str(installed)
    monkeypatch.setenv("SCANCHECK", str(on_path))
    assert scancheck.executable() == str(on_path)  # $SCANCHECK still overrides


def test_the_binary_wheels_executable_comes_before_its_shim(tmp_path, monkeypatch):
    # The shim finds the executable through the interpreter's default platlib, which is not where a
    # `pip install --user` or `--prefix` put it: the package runs the executable itself.
    installed, on_path = _environment(tmp_path, monkeypatch, with_executable=True, repaired=True)
    assert scancheck.executable() == str(installed)
    monkeypatch.setenv("SCANCHECK", str(on_path))
    assert scancheck.executable() == str(on_path)


def test_the_package_alone_takes_the_executable_on_path(tmp_path, monkeypatch):
    _, on_path = _environment(tmp_path, monkeypatch, with_executable=False)
    assert checking.installed_executable() is None
    assert scancheck.executable() == str(on_path)


def test_no_executable_anywhere_says_how_to_get_one(tmp_path, monkeypatch):
    _environment(tmp_path, monkeypatch, with_executable=False)
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    with pytest.raises(scancheck.ScancheckNotFound, match=r"pip install \.` at the repository root"):
        scancheck.executable()
