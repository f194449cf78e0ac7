"""Package discovery and the compiled training kernel for setuptools.

Packages: every package under ``bpe_desktop/`` (``find_packages``), plus the top-level ``resources/`` folder
shipped as ``bpe_desktop.resources`` (the mapping is ``package-dir`` in pyproject.toml;
``[tool.setuptools.packages.find]`` cannot add a package that lives outside its tree).

The kernel (``bpe_desktop/core/training/_kernel.c``, a C extension against the CPython API), the compiled
counting loop (``core/counting/_accumulate.c``) and the rank encoder (``core/tokenizers/_rank_bpe.c``) are
*optional*: where no compiler or no Python headers exist their build failure is reported and skipped, the
package installs as pure Python and runs its pure-Python paths (the trainer says so once; see
``bpe_desktop/core/training/kernel_trainer.py``).  A checkout builds them in place with
``python setup.py build_ext --inplace``.
"""

from setuptools import Extension, find_packages, setup

KERNEL = Extension(
    "bpe_desktop.core.training._kernel",
    sources=["bpe_desktop/core/training/_kernel.c"],
    optional=True,  # no compiler: install pure Python instead of failing
)

COUNTING = Extension(  # the counting loop of core/counting/word_first.py, compiled; optional likewise
    "bpe_desktop.core.counting._accumulate",
    sources=["bpe_desktop/core/counting/_accumulate.c"],
    optional=True,
)

RANK_BPE = Extension(  # tiktoken's rank rule on one piece (core/tokenizers/rank_bpe.py), compiled; optional
    "bpe_desktop.core.tokenizers._rank_bpe",
    sources=["bpe_desktop/core/tokenizers/_rank_bpe.c"],
    optional=True,
)

setup(
    packages=[*find_packages(include=["bpe_desktop", "bpe_desktop.*"]), "bpe_desktop.resources"],
    ext_modules=[KERNEL, COUNTING, RANK_BPE],
)
