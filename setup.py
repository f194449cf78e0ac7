"""Package discovery for setuptools: every package under ``bpe_desktop/`` (``find_packages``), plus the
top-level ``resources/`` folder shipped as ``bpe_desktop.resources`` (the mapping is ``package-dir`` in
pyproject.toml; ``[tool.setuptools.packages.find]`` cannot add a package that lives outside its tree)."""

from setuptools import find_packages, setup

setup(packages=[*find_packages(include=["bpe_desktop", "bpe_desktop.*"]), "bpe_desktop.resources"])
