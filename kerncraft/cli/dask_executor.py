"""``kerncraft --dask ADDRESS``: the -D points of a sweep computed on a Dask cluster.

Dask is an optional extra (``pip install 'kerncraft[dask]'``); it is imported only
here, when the option is given. ``ADDRESS`` is a running scheduler's address, or
``local`` for a cluster of this machine's cores started for the run and stopped after
it. The points travel as :class:`kerncraft.runner.scatter.PointTask` (kernel text,
machine file path, options), so the workers need kerncraft installed and the machine
file at the same path (a shared file system, as on a cluster).
"""
from __future__ import annotations

import contextlib
from concurrent.futures import Executor
from typing import Iterator, Sequence

from kerncraft.errors import KerncraftError
from kerncraft.runner.table import model_entry

__all__ = ["check_dask_run", "dask_executor"]


def check_dask_run(models: Sequence[str], plot: object) -> None:
    """Refuse what a cluster cannot do: pictures need the typed results here, and a
    measuring model needs this machine, quiet."""
    if plot is not None:
        raise KerncraftError("--dask cannot be combined with --plot (the picture needs the "
                             "results in this process); run the sweep without --plot")
    measuring = [m for m in models if model_entry(m).measures]
    if measuring:
        raise KerncraftError(f"--dask cannot run -p {measuring[0]}: it measures this machine")


@contextlib.contextmanager
def dask_executor(address: str) -> Iterator[Executor]:
    """A concurrent.futures executor on the Dask cluster at ``address`` (or ``local``)."""
    try:
        from distributed import Client, LocalCluster
    except ImportError:
        raise KerncraftError("--dask needs Dask: pip install 'kerncraft[dask]' "
                             "(dask.distributed)") from None
    with contextlib.ExitStack() as stack:
        try:
            if address == "local":
                cluster = stack.enter_context(LocalCluster(threads_per_worker=1,
                                                           dashboard_address=None))
                client = stack.enter_context(Client(cluster))
            else:
                client = stack.enter_context(Client(address, timeout="20s"))
        except (OSError, TimeoutError) as exc:
            raise KerncraftError(f"--dask {address}: cannot reach the scheduler: "
                                 f"{exc}") from None
        yield client.get_executor()
