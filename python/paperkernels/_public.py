"""How each public module presents its names: as its own (``paperkernels.greedy.X``, not the private
submodule that defines it) and with annotations evaluated, so that ``help()``, ``inspect.signature``
and Sphinx show types instead of quoted strings (the sources use ``from __future__ import annotations``)."""

from __future__ import annotations

import inspect
import typing
from collections.abc import Iterable
from typing import Any


def _resolve_annotations(function: Any) -> None:
    wrapped = getattr(function, "__wrapped__", None)  # functools.wraps: signature() reads the original
    if wrapped is not None and wrapped is not function:
        _resolve_annotations(wrapped)
    annotations = getattr(function, "__annotations__", None)
    if not annotations or not any(isinstance(a, str) for a in annotations.values()):
        return
    try:
        hints = typing.get_type_hints(function)
    except Exception:  # an annotation this Python cannot evaluate (e.g. `X | None` before 3.10)
        return
    function.__annotations__ = {name: hints.get(name, value) for name, value in annotations.items()}


def _present(obj: Any, module_name: str) -> None:
    if inspect.isclass(obj):
        for member in vars(obj).values():
            if isinstance(member, property):
                for accessor in (member.fget, member.fset):
                    if accessor is not None:
                        _resolve_annotations(accessor)
            elif isinstance(member, (staticmethod, classmethod)):
                _resolve_annotations(member.__func__)
            elif inspect.isfunction(member):
                _resolve_annotations(member)
    elif inspect.isfunction(obj):
        _resolve_annotations(obj)
    else:
        return  # constants, modules and instances keep their own identity
    if obj.__module__.startswith("paperkernels.") and obj.__module__ != module_name:
        # Only names defined in a private submodule move (a public submodule such as relu.moves keeps its own).
        if obj.__module__.rsplit(".", 1)[-1].startswith("_"):
            obj.__module__ = module_name


def export(module_name: str, namespace: dict[str, Any], names: Iterable[str]) -> None:
    """Present ``names`` of ``namespace`` as defined by ``module_name`` (call at the end of a public
    module: ``export(__name__, globals(), __all__)``)."""
    for name in names:
        if name in namespace:
            _present(namespace[name], module_name)
