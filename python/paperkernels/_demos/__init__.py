"""Demo entries: ``_demos/<module>.py`` defines ``run(report)`` for ``python -m paperkernels demo``."""
