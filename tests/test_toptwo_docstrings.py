"""The docstrings of paperkernels.toptwo: every public function, class, method and property shows a
runnable example, and every example prints what its docstring says (run as doctests, each in a fresh
namespace)."""

import doctest
import inspect

import pytest

from paperkernels import toptwo

FLAGS = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE


def _documented_objects():
    """(qualified name, object) of the module, its public names and their public members."""
    yield "paperkernels.toptwo", toptwo
    for name in toptwo.__all__:
        obj = getattr(toptwo, name)
        yield f"paperkernels.toptwo.{name}", obj
        if inspect.isclass(obj):
            for member, value in vars(obj).items():
                if not member.startswith("_") and (inspect.isfunction(value) or isinstance(value, property)):
                    yield f"paperkernels.toptwo.{name}.{member}", value


def _docstring_tests():
    finder = doctest.DocTestFinder(exclude_empty=True, recurse=False)
    tests = []
    for name, obj in _documented_objects():
        target = obj.fget if isinstance(obj, property) else obj
        tests += finder.find(target, name, module=False, globs={})
    return tests


TESTS = _docstring_tests()


def test_every_public_name_and_member_has_an_example():
    with_examples = {test.name for test in TESTS if test.examples}
    missing = [name for name, _ in _documented_objects() if name != "paperkernels.toptwo" and name not in with_examples]
    assert missing == []
    assert {"paperkernels.toptwo.TopTwo.update", "paperkernels.toptwo.Runs.mean_tau"} <= with_examples


@pytest.mark.parametrize(
    "test", [t for t in TESTS if t.examples], ids=lambda t: t.name.replace("paperkernels.toptwo.", "")
)
def test_docstring_examples_run(test):
    if "plot_comparison" in test.name:
        pytest.importorskip("matplotlib")
    report = []
    runner = doctest.DocTestRunner(optionflags=FLAGS)
    result = runner.run(test, out=report.append)
    assert result.attempted > 0
    assert result.failed == 0, "".join(report)
