"""The package version, at the bottom of the import graph so that any module can
name it (``kerncraft.__version__`` is this value).

>>> from kerncraft.version import __version__
>>> __version__.count(".")
2
"""
__version__ = "0.1.0"
