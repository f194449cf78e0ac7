"""The worker's launch hides the parent's ``__main__`` script from ``spawn`` and puts back exactly what it found."""

from __future__ import annotations

import sys
import types

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bpe_desktop.gui.training.process import main_module_hidden

MISSING = object()


@given(file=st.sampled_from([MISSING, None, "/x/script.py"]), spec=st.sampled_from([MISSING, None, "spec"]),
       raises=st.booleans())
def test_main_is_hidden_during_the_launch_and_restored_as_found(file: object, spec: object, raises: bool) -> None:
    main = types.ModuleType("__main__")
    for name, value in (("__file__", file), ("__spec__", spec)):
        if value is MISSING:
            main.__dict__.pop(name, None)
        else:
            main.__dict__[name] = value
    before = dict(main.__dict__)
    saved = sys.modules["__main__"]
    sys.modules["__main__"] = main
    try:
        with pytest.raises(RuntimeError) if raises else _nothing():
            with main_module_hidden():
                assert "__file__" not in main.__dict__ and main.__spec__ is None  # what spawn looks at
                if raises:
                    raise RuntimeError("the launch failed")
    finally:
        sys.modules["__main__"] = saved
    assert main.__dict__ == before


class _nothing:
    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc: object) -> None:
        return None
