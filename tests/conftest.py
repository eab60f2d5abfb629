import os

import pytest

# Statistical and property tests are sized for CI (2 cores, a few minutes for the whole suite).
os.environ.setdefault("PAPERKERNELS_TEST_PROFILE", "ci")


@pytest.fixture(params=[1, 2, 7], ids=lambda n: f"threads{n}")
def n_threads(request):
    return request.param
