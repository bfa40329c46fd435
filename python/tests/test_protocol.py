"""The worker side of protocol 1: hello, run and bye, conventions undone, errors as answers."""

import io
import json
import subprocess
import sys

import numpy as np
import pytest

import scancheck
from scancheck.protocol import PROTOCOL_VERSION, Server, backends_of, load_module, provider_of

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
        "loop", "loop_time_major", "loop_channels_first", "loop_native_complex", "loop_drops_dh_last"]
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

    answers = serve(Server("t", [raises]), {"op": "run", "id": 4, "backend": "raises@fp32",
                                            "case": str(make_case("scan", 1, 2, 1)), "out": str(tmp_path)})
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


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"constraints": {"max_len": 4}}, "unknown constraint"),
    ({"io_dtype": "float16"}, "io_dtype 'float16'"),
    ({"layout": "W B L"}, "layout 'W B L'"),
    ({"omits": ("dy",)}, r"omits \['dy'\], which are not gradients of scan"),
    ({"passes": ("forward", "backward")}, "numpy has no autodiff: pass backward="),
])
def test_bad_declarations_name_the_problem(kwargs, message):
    with pytest.raises(ValueError, match=message):
        scancheck.backend("scan", framework="numpy", **kwargs)(lambda a, b: b)


def test_a_parameter_that_is_no_input_is_refused():
    with pytest.raises(ValueError, match=r"\['decay'\] are not inputs of scan"):
        scancheck.backend("scan", framework="numpy")(lambda decay, b: b)


def test_the_command_line_serves_a_file_and_keeps_stdout_for_the_protocol(tmp_path):
    noisy = tmp_path / "noisy.py"
    noisy.write_text("import scancheck\nprint('loading kernels')\n"
                     "@scancheck.backend('scan', framework='numpy', passes=('forward',))\n"
                     "def quiet(a, b):\n    return b\n")
    done = subprocess.run([sys.executable, "-m", "scancheck.worker", str(noisy)], input='{"op": "hello"}\n',
                          capture_output=True, text=True, check=True)
    assert json.loads(done.stdout)["provider"] == "noisy"
    assert "loading kernels" in done.stderr


def test_a_file_that_cannot_load_is_one_line_and_exit_2(tmp_path):
    broken = tmp_path / "broken.py"
    broken.write_text("import nonexistent_kernels\n")
    done = subprocess.run([sys.executable, "-m", "scancheck.worker", str(broken)], input="",
                          capture_output=True, text=True, check=False)
    assert done.returncode == 2
    assert "ModuleNotFoundError: No module named 'nonexistent_kernels'" in done.stderr.splitlines()[-1]


def test_load_module_reads_files_and_dotted_names():
    assert backends_of(load_module(str(KERNELS / "numpy_scans.py")))
    assert load_module("json") is json
