"""``kerncraft cache info|clear``: what the on-disk cache holds, and emptying it.

The cache itself is :mod:`kerncraft.diskstore`; this module only shows and clears it.
Reached as ``kerncraft cache ...`` (the first word of the command line), so it never
competes with a kernel file argument: a kernel named ``cache`` is ``./cache``.
"""
from __future__ import annotations

import argparse
import sys
from typing import Sequence, TextIO

from kerncraft.errors import KerncraftError
from kerncraft.diskstore import (DEFAULT_LIMIT_MB, CacheUsage, cache_directory, cache_usage,
                                 clear_cache)

__all__ = ["build_parser", "format_usage", "main"]

_KINDS_HELP = """kinds of entries: asm (compiled kernels' assembly), incore (in-core analyses), incore-db
(parsed port-model databases), incore-models (built port models), machines (parsed
machine files), plans (what a new -D point is computed from), points (finished reports
per run), outputs (finished kerncraft-incore outputs), bench (benchmark executables)"""


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="kerncraft cache",
        description="Show or empty kerncraft's on-disk cache. Location: KERNCRAFT_CACHE_DIR, "
                    "else XDG_CACHE_HOME/kerncraft, else ~/.cache/kerncraft, else (no usable "
                    "HOME) the temporary directory's kerncraft-cache-UID. Bound: "
                    f"KERNCRAFT_CACHE_MAX_MB (default {DEFAULT_LIMIT_MB:g}, 0 = unbounded), "
                    "least recently used entries go first. KERNCRAFT_NO_CACHE=1 disables it.",
        epilog=_KINDS_HELP)
    commands = parser.add_subparsers(dest="command", required=True, metavar="{info,clear}")
    commands.add_parser("info", help="location, bound, and size per kind of entry")
    clear = commands.add_parser("clear", help="delete the cache's entries")
    clear.add_argument("kinds", nargs="*", metavar="KIND",
                       help="only these kinds (default: all); see 'kerncraft cache info'")
    return parser


def _megabytes(size: int) -> str:
    return f"{size / 1e6:.1f} MB"


def format_usage(usage: CacheUsage) -> str:
    """The text of ``kerncraft cache info``."""
    bound = "none" if usage.limit is None else _megabytes(usage.limit)
    lines = [f"cache directory: {usage.directory}",
             f"bound: {bound} (KERNCRAFT_CACHE_MAX_MB), least recently used entries evicted",
             f"total: {_megabytes(usage.total_bytes)} in {usage.total_files} file(s)"]
    if usage.kinds:
        width = max(len(kind) for kind, _size, _files in usage.kinds)
        lines += [f"  {kind:<{width}}  {_megabytes(size):>10}  {files:>6} file(s)"
                  for kind, size, files in usage.kinds]
    return "\n".join(lines)


def run(args: argparse.Namespace, out: TextIO) -> int:
    base = cache_directory()
    if base is None:
        print("caching is off (KERNCRAFT_NO_CACHE is set): nothing to show or clear", file=out)
        return 0
    if args.command == "info":
        print(format_usage(cache_usage(base)), file=out)
        return 0
    freed = clear_cache(base, tuple(args.kinds))
    what = ", ".join(args.kinds) if args.kinds else "all entries"
    print(f"cleared {what} of {base}: {_megabytes(freed)} freed", file=out)
    return 0


def main(argv: Sequence[str] | None = None, out: TextIO | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return run(args, out or sys.stdout)
    except KerncraftError as exc:
        print(f"kerncraft cache: error: {exc}", file=sys.stderr)
        return exc.exit_code
    except OSError as exc:
        print(f"kerncraft cache: error: {exc.filename or 'cache'}: {exc.strerror or exc}",
              file=sys.stderr)
        return 1
