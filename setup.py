"""Package list for setuptools: every package under the repository root, as ``kiln.<name>``.

pyproject.toml maps the import name ``kiln`` to the root (``package-dir``); setuptools'
declarative ``find`` cannot prefix what it finds, so the prefix is added here, and a new
package (e.g. ``backends/c/isa``) ships without anyone listing it. This file, being in the
root, would otherwise ship too, as ``kiln.setup``.
"""

from setuptools import find_packages, setup
from setuptools.command.build_py import build_py


class _BuildPy(build_py):
    def find_package_modules(self, package: str, package_dir: str) -> list[tuple[str, str, str]]:
        return [m for m in super().find_package_modules(package, package_dir) if m[:2] != ("kiln", "setup")]


setup(
    packages=["kiln", *(f"kiln.{name}" for name in find_packages(exclude=("tests", "tests.*", "build", "build.*")))],
    cmdclass={"build_py": _BuildPy},
)
