"""The worker side of protocol 1: hello, run and bye, conventions undone, errors as answers."""

import io
import json
import os
import re
import shutil
import subprocess
import sys
import types

import numpy as np
import pytest

import scancheck
from scancheck.protocol import PROTOCOL_VERSION, Server, backends_of, load_module, provenance_of, provider_of

from .conftest import KERNELS
from .kernels import numpy_scans


def serve(server, *requests):
    out = io.StringIO()
    server.serve(io.StringIO("".join(json.dumps(r) + "\n" for r in requests)), out)
    return [json.loads(line) for line in out.getvalue().splitlines()]


def test_hello_declares_every_backend_of_the_module():
    server = Server(provider_of(numpy_scans), backends_of(numpy_scans))
    (hello,) = serve(server, {"op": "hello", "protocol": PROTOCOL_VERSION})
    assert hello["protocol"] == PROTOCOL_VERSION
    assert hello["provider"] == "npscans"
    assert [b["variant"] for b in hello["backends"]] == [
        "loop",
        "loop_time_major",
        "loop_channels_first",
        "loop_native_complex",
        "loop_drops_dh_last",
    ]
    assert hello["runtime"].startswith("python ")


@pytest.mark.parametrize("variant", ["loop_time_major", "loop_channels_first"])
def test_layouts_give_the_spec_layouts_outputs(make_case, tmp_path, variant):
    case = make_case("scan", 2, 7, 4, seed=5)
    server = Server("npscans", backends_of(numpy_scans))
    outs = {}
    for v in ("loop", variant):
        out = tmp_path / v
        out.mkdir()
        (answer,) = serve(server, {"op": "run", "id": 1, "backend": f"{v}@fp32", "case": str(case), "out": str(out)})
        assert answer == {"id": 1, "ok": True}
        outs[v] = {p.stem: np.load(p) for p in out.glob("*.npy")}
    assert sorted(outs["loop"]) == ["da", "db", "dh0", "h", "h_last"]
    for name, value in outs["loop"].items():
        np.testing.assert_array_equal(outs[variant][name], value, err_msg=name)


def test_a_kernels_exception_is_an_error_answer(make_case, tmp_path):
    @scancheck.backend("scan", variant="raises", framework="numpy", passes=("forward",))
    def raises(a, b):
        raise RuntimeError("shared memory exhausted\nat line 3")

    answers = serve(
        Server("t", [raises]),
        {"op": "run", "id": 4, "backend": "raises@fp32", "case": str(make_case("scan", 1, 2, 1)), "out": str(tmp_path)},
    )
    assert answers == [{"ok": False, "error": "RuntimeError: shared memory exhausted at line 3", "id": 4}]


def test_a_kernel_without_h0_declares_so():
    @scancheck.backend("scan", framework="numpy", passes=("forward",))
    def no_state(a, b):
        return b

    assert no_state.declaration()["constraints"] == {"h0": False}
    assert "omits" not in no_state.declaration()  # forward only: no gradient to omit

    @scancheck.backend("scan", framework="numpy", backward=lambda a, b, dh, dh_last=None: {"a": dh, "b": dh})
    def no_state_with_backward(a, b):
        return b

    assert no_state_with_backward.declaration()["omits"] == ["dh0"]
    assert no_state.name == "scan/no_state@fp32"


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"constraints": {"max_len": 4}}, "unknown constraint"),
        ({"io_dtype": "float16"}, "io_dtype 'float16'"),
        ({"layout": "W B L"}, "layout 'W B L'"),
        ({"omits": ("dy",)}, r"omits \['dy'\], which are not gradients of scan"),
        ({"passes": ("forward", "backward")}, "numpy has no autodiff: pass backward="),
    ],
)
def test_bad_declarations_name_the_problem(kwargs, message):
    with pytest.raises(ValueError, match=message):
        scancheck.backend("scan", framework="numpy", **kwargs)(lambda a, b: b)


def test_a_parameter_that_is_no_input_is_refused():
    with pytest.raises(ValueError, match=r"\['decay'\] are not inputs of scan"):
        scancheck.backend("scan", framework="numpy")(lambda decay, b: b)


def test_the_command_line_serves_a_file_and_keeps_stdout_for_the_protocol(tmp_path):
    noisy = tmp_path / "noisy.py"
    noisy.write_text(
        "import scancheck\nprint('loading kernels')\n"
        "@scancheck.backend('scan', framework='numpy', passes=('forward',))\n"
        "def quiet(a, b):\n    return b\n"
    )
    done = _serve_hello(noisy)
    assert json.loads(done.stdout)["provider"] == "noisy"
    assert "loading kernels" in done.stderr


def test_a_file_that_cannot_load_is_one_line_and_exit_2(tmp_path):
    broken = tmp_path / "broken.py"
    broken.write_text("import nonexistent_kernels\n")
    done = subprocess.run(
        [sys.executable, "-m", "scancheck.worker", str(broken)], input="", capture_output=True, text=True, check=False
    )
    assert done.returncode == 2
    assert "ModuleNotFoundError: No module named 'nonexistent_kernels'" in done.stderr.splitlines()[-1]


def test_load_module_reads_files_and_dotted_names():
    assert backends_of(load_module(str(KERNELS / "numpy_scans.py")))
    assert load_module("json") is json


# Provenance: the hello's optional `provenance` (package, version, commit), detected or declared.


def _git(folder, *args):
    return subprocess.run(["git", "-C", str(folder), *args], capture_output=True, text=True, check=True).stdout.strip()


def _kernel_file(folder, name="mykernels_file", extra=""):
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{name}.py"
    path.write_text(
        f"import scancheck\n{extra}\n"
        "@scancheck.backend('scan', framework='numpy', passes=('forward',))\n"
        "def quiet(a, b):\n    return b\n"
    )
    return path


def _serve_hello(path, env=None):
    """`python -m scancheck.worker PATH` answering one hello."""
    command = [sys.executable, "-m", "scancheck.worker", str(path)]
    return subprocess.run(command, input='{"op": "hello"}\n', capture_output=True, text=True, check=False, env=env)


def _hello_of(path, *, site=None):
    env = dict(os.environ)
    if site is not None:  # an installed distribution for the worker to find
        env["PYTHONPATH"] = os.pathsep.join([str(site), *sys.path])
    done = _serve_hello(path, env)
    return done.returncode, (json.loads(done.stdout) if done.returncode == 0 else done.stderr)


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_hello_names_the_package_and_the_commit_of_a_file_in_a_repository(tmp_path):
    repo = tmp_path / "repo"
    path = _kernel_file(repo / "tests")
    _git(repo.parent, "init", "-q", str(repo))
    _git(repo, "add", ".")
    _git(repo, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "kernels")
    code, hello = _hello_of(path)
    assert code == 0, hello
    assert hello["provenance"] == {"package": "mykernels_file", "commit": _git(repo, "rev-parse", "HEAD")}


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_a_file_git_ignores_has_no_commit(tmp_path):
    """A package installed into a virtual environment inside a checkout is not the checkout's commit."""
    repo = tmp_path / "repo"
    _git(tmp_path, "init", "-q", str(repo))
    (repo / ".gitignore").write_text("/.venv/\n")
    _git(repo, "add", ".")
    _git(repo, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "ignore")
    path = _kernel_file(repo / ".venv" / "site-packages")
    assert provenance_of(load_module(str(path))) == {"package": "mykernels_file"}


def test_without_git_there_is_no_commit_and_no_error(tmp_path, monkeypatch):
    path = _kernel_file(tmp_path)
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    assert provenance_of(load_module(str(path))) == {"package": "mykernels_file"}

    def slow(*args, **kwargs):
        raise subprocess.TimeoutExpired(args[0], 2.0)

    monkeypatch.setattr(subprocess, "run", slow)
    assert provenance_of(load_module(str(path))) == {"package": "mykernels_file"}


def _installed(site, name, version, files):
    """A distribution `name` of `version` in the folder `site` whose RECORD lists `files`."""
    info = site / f"{name}-{version}.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n")
    (info / "RECORD").write_text("".join(f"{f},,\n" for f in [*files, f"{info.name}/METADATA"]))


def test_the_version_is_the_installed_distributions_that_holds_the_module(tmp_path, monkeypatch):
    site = tmp_path / "site"
    (site / "mykernels").mkdir(parents=True)
    _kernel_file(site / "mykernels", "scancheck_backends")
    (site / "mykernels" / "__init__.py").write_text("")
    _installed(site, "mykernels", "1.2.3", ["mykernels/__init__.py", "mykernels/scancheck_backends.py"])
    monkeypatch.syspath_prepend(str(site))
    module = load_module("mykernels.scancheck_backends")
    assert provenance_of(module) == {"package": "mykernels", "version": "1.2.3"}
    (hello,) = serve(Server("t", backends_of(module), provenance_of(module)), {"op": "hello"})
    assert hello["provenance"] == {"package": "mykernels", "version": "1.2.3"}


def test_a_distribution_that_only_shares_the_name_gives_no_version(tmp_path, monkeypatch):
    """A distribution that ships its own top-level `tests` is not the version of the user's tests/."""
    site = tmp_path / "site"
    _installed(site, "tests", "9.9", ["tests/__init__.py"])
    monkeypatch.syspath_prepend(str(site))
    module = types.ModuleType("tests.test_scan")  # as load_module names tests/test_scan.py in a package tests/
    module.__file__ = str(_kernel_file(tmp_path / "repo" / "tests", "test_scan"))
    provenance = provenance_of(module)
    assert provenance["package"] == "tests"
    assert "version" not in provenance


def test_a_declared_provenance_replaces_what_is_detected_key_by_key(tmp_path):
    site = tmp_path / "site"
    _installed(site, "mykernels", "2.0.1", [])
    path = _kernel_file(tmp_path, extra='SCANCHECK_PROVENANCE = {"package": "mykernels", "commit": "v2-rc1"}')
    code, hello = _hello_of(path, site=site)
    assert code == 0, hello
    # the declared package's version is looked up by its name
    assert hello["provenance"] == {"package": "mykernels", "version": "2.0.1", "commit": "v2-rc1"}
    path = _kernel_file(tmp_path, "quiet", extra='SCANCHECK_PROVENANCE = {"package": ""}')
    assert "provenance" not in _hello_of(path)[1]  # an empty string leaves a key out


@pytest.mark.parametrize(
    ("declared", "message"),
    [
        ('{"package": "k", "branch": "main"}', r"SCANCHECK_PROVENANCE: unknown key\(s\) \['branch'\]"),
        ('{"version": 2}', r"SCANCHECK_PROVENANCE\['version'\] is a int, not a str"),
        ('"mykernels 1.0"', "SCANCHECK_PROVENANCE is a str, not a dict"),
    ],
)
def test_a_bad_declared_provenance_is_one_line_and_exit_2(tmp_path, declared, message):
    code, stderr = _hello_of(_kernel_file(tmp_path, extra=f"SCANCHECK_PROVENANCE = {declared}"))
    assert code == 2
    assert re.search(message, stderr.splitlines()[-1])


def test_a_hello_without_provenance_has_no_such_field():
    (hello,) = serve(Server("t", backends_of(numpy_scans)), {"op": "hello"})
    assert "provenance" not in hello
    declared: scancheck.Provenance = {"package": "npscans", "version": "1.0"}
    (hello,) = serve(Server("t", backends_of(numpy_scans), declared), {"op": "hello"})
    assert hello["provenance"] == {"package": "npscans", "version": "1.0"}
