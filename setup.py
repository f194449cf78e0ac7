"""Package discovery and the compiled training kernel for setuptools.

Packages: every package under ``bpe_desktop/`` (``find_packages``), plus the top-level ``resources/`` folder
shipped as ``bpe_desktop.resources`` (the mapping is ``package-dir`` in pyproject.toml;
``[tool.setuptools.packages.find]`` cannot add a package that lives outside its tree).

The kernel (``bpe_desktop/core/training/_kernel.c``, a C extension against the CPython API) is *optional*:
where no compiler or no Python headers exist its build failure is reported and skipped, the package installs
as pure Python and the trainer runs its pure-Python path (it says so once; see
``bpe_desktop/core/training/kernel_trainer.py``).  A checkout builds it in place with
``python setup.py build_ext --inplace``.
"""

from setuptools import Extension, find_packages, setup

KERNEL = Extension(
    "bpe_desktop.core.training._kernel",
    sources=["bpe_desktop/core/training/_kernel.c"],
    optional=True,  # no compiler: install pure Python instead of failing
)

setup(
    packages=[*find_packages(include=["bpe_desktop", "bpe_desktop.*"]), "bpe_desktop.resources"],
    ext_modules=[KERNEL],
)
