"""The public names as users see them: defined by their public module (help(), pickling by name, the
API reference), with evaluated annotations, and reachable as attributes after ``import paperkernels``."""

import importlib
import inspect
import pickle
import subprocess
import sys

import pytest

import paperkernels

PUBLIC = ["paperkernels", *(f"paperkernels.{name}" for name in paperkernels.MODULES), "paperkernels.distributed"]


def _public_callables():
    for module_name in PUBLIC:
        module = importlib.import_module(module_name)
        for name in module.__all__:
            obj = getattr(module, name)
            if inspect.isclass(obj) or inspect.isfunction(obj):
                yield module_name, name, obj


@pytest.mark.parametrize("module_name", PUBLIC)
def test_public_names_belong_to_a_public_module(module_name):
    module = importlib.import_module(module_name)
    for name in module.__all__:
        obj = getattr(module, name)
        if inspect.isclass(obj) or inspect.isfunction(obj):
            owner = obj.__module__
            assert not any(part.startswith("_") for part in owner.split(".")), f"{module_name}.{name}: {owner}"
            assert getattr(importlib.import_module(owner), obj.__name__) is obj


@pytest.mark.skipif(sys.version_info < (3, 10), reason="`X | None` annotations evaluate from Python 3.10")
def test_signatures_show_types_not_strings():
    quoted = []
    for module_name, name, obj in _public_callables():
        functions = (
            [obj]
            if inspect.isfunction(obj)
            else [m for m in vars(obj).values() if inspect.isfunction(m) and not m.__name__.startswith("_")]
        )
        for function in functions:
            try:
                signature = inspect.signature(function)
            except (TypeError, ValueError):
                continue
            annotations = [p.annotation for p in signature.parameters.values()] + [signature.return_annotation]
            if any(isinstance(a, str) for a in annotations):
                quoted.append(f"{module_name}.{name}.{function.__name__}")
    assert not quoted, quoted


def test_public_classes_pickle_by_their_public_path():
    from paperkernels.greedy import EnsembleForwardSelection

    data = pickle.dumps(EnsembleForwardSelection(k=2))
    assert b"paperkernels.greedy" in data and b"greedy._estimator" not in data
    assert pickle.loads(data).k == 2


def test_every_module_is_an_attribute_after_import():
    code = "import paperkernels as p; print([type(getattr(p, m)).__name__ for m in p.MODULES + ('distributed',)])"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == str(["module"] * 6)


def test_available_modules_is_deprecated():
    with pytest.warns(DeprecationWarning, match="MODULES"):
        assert paperkernels.available_modules() == list(paperkernels.MODULES)


def test_only_documented_submodules_are_public():
    import pkgutil

    public = set()
    for module_name in PUBLIC[1:]:
        module = importlib.import_module(module_name)
        if hasattr(module, "__path__"):
            public |= {
                f"{module_name}.{m.name}" for m in pkgutil.iter_modules(module.__path__) if not m.name.startswith("_")
            }
    assert public == {"paperkernels.relu.moves"}


def test_pickles_naming_the_former_shapes_submodules_still_load():
    from paperkernels import shapes

    encoder = shapes.XShapeEncoder(encode_len=64)
    data = pickle.dumps(encoder, protocol=0)
    assert b"cpaperkernels.shapes\nXShapeEncoder" in data
    old = data.replace(b"cpaperkernels.shapes\nXShapeEncoder", b"cpaperkernels.shapes.encoder\nXShapeEncoder")
    restored = pickle.loads(old)
    assert type(restored) is shapes.XShapeEncoder and restored.length == encoder.length
