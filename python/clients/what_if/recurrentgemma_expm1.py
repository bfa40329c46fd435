"""RecurrentGemma's RG-LRU with one line changed: q = -expm1(2 log a) where it evaluates 1 - exp(2 log a).

Not a client but the evidence for cause A in docs/public-kernels.md: the two RecurrentGemma clients, unchanged,
served over the package's own modules with that one expression rewritten in their source (PyTorch
`RGLRU.forward`, JAX `RGLRU.__call__`) and nothing else. A case that fails the client and passes here fails
because of the literal q; one that fails both has another cause. The backends keep the clients' names under
the provider `recurrentgemma_expm1` (`rglru/rglru@fp32` is the PyTorch module, the rest the JAX layer's):

    scancheck check --worker 'python -m scancheck.worker python/clients/what_if/recurrentgemma_expm1.py' \
        --arch rglru --shape 1,1,2,1 --seed 7223893402148193352 --regime clip \
        --sqrt-gradient bounded --backend 'recurrentgemma_expm1:rglru/linear@fp32'
"""

import importlib.util
import inspect
import textwrap
from pathlib import Path
from types import ModuleType, SimpleNamespace

from recurrentgemma.jax import layers as jax_layers
from recurrentgemma.torch import layers as torch_layers

SCANCHECK_PROVIDER = "recurrentgemma_expm1"
CLIENTS = Path(__file__).parents[1]


def with_expression_rewritten(cls: type, method: str, literal: str, rewritten: str) -> type:
    """A subclass of `cls` whose `method` is the package's own source with `literal` replaced by `rewritten`."""
    source = textwrap.dedent(inspect.getsource(getattr(cls, method)))
    if source.count(literal) != 1:
        raise RuntimeError(f"{cls.__module__}.{cls.__name__}.{method} no longer holds `{literal}` once")
    namespace = dict(vars(inspect.getmodule(cls)))  # the method's own globals: complex_lib, torch, nn, ...
    exec(compile(source.replace(literal, rewritten), inspect.getsourcefile(cls), "exec"), namespace)
    return type(cls.__name__, (cls,), {method: namespace[method], "__module__": __name__})


def client_over(file: str, layers: type) -> ModuleType:
    """The client file loaded afresh (its own Backend objects), its `layers.RGLRU` being `layers`."""
    spec = importlib.util.spec_from_file_location(f"{SCANCHECK_PROVIDER}_{Path(file).stem}", CLIENTS / file)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    module.layers = SimpleNamespace(RGLRU=layers)
    return module


TORCH = client_over(
    "recurrentgemma_torch.py",
    with_expression_rewritten(torch_layers.RGLRU, "forward", "1 - a_square", "-torch.expm1(2 * log_a)"),
)
JAX = client_over(
    "recurrentgemma_jax.py",
    with_expression_rewritten(jax_layers.RGLRU, "__call__", "1 - a_squared", "-jnp.expm1(2 * log_a)"),
)
BACKENDS = [TORCH.rglru, *JAX.BACKENDS]
