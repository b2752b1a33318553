"""contio: measure and control the storage I/O of containerized applications."""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("contio")
except PackageNotFoundError:  # running from a source tree without installing
    __version__ = "0.0.0"
