"""The wheel of tarock_engine: the package with its compiled extension
(tarock_engine/_core*.so), built by CMake (target tarock_engine_wheel) from a
staged copy of the package; see sdk/python/engine/CMakeLists.txt. Not for
building the extension: CMake does that.

    pip install --no-index build/dist/tarock_engine-*.whl
"""

from __future__ import annotations

import re
from pathlib import Path

from setuptools import Distribution, setup

HERE = Path(__file__).resolve().parent
VERSION = re.search(r'^__version__ = "([^"]+)"', (HERE / "tarock_engine" / "__init__.py").read_text(),
                    re.M).group(1)


class BinaryDistribution(Distribution):
    """A wheel for this Python and platform (the extension is compiled)."""

    def has_ext_modules(self) -> bool:
        return True


setup(
    name="tarock-engine",
    version=VERSION,
    description="Tarock Arena's engine in Python: the referee's own rules, for bots that search and learn",
    packages=["tarock_engine"],
    package_data={"tarock_engine": ["_core*.so", "*.json"]},
    include_package_data=True,
    python_requires=">=3.9",
    distclass=BinaryDistribution,
    zip_safe=False,
)
