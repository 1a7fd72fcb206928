"""Cycle-level scheduling simulation of a loop body: the second in-core engine.

The static bounds (:mod:`kerncraft.incore.analysis`) take the worst of port
throughput, loop-carried dependencies and the front end, each on its own. This
engine runs the loop for many iterations through a simple out-of-order core and
measures cycles per iteration in the steady state, so resources that interfere
(a dependency chain that keeps a port idle, a scheduler that fills up) show up.
It is built after the scheduling simulation of the SUACA thesis (seed 002,
Sect. 3): front-end width, scheduler capacity, greedy port choice, divider
blocking, per-instruction waiting times and bottleneck variants.

Machine (all from the port-model database, see ``databases/README.md``):

* **Front end**: ``frontend_width`` fused-domain uops per cycle are allocated in
  program order (the same fused-uop counts as the static front-end bound,
  :func:`kerncraft.incore.analysis.fused_uops`; an instruction wider than what is
  left of a cycle borrows from the next, so the average rate is exactly
  ``width``). Retirement is in order at the same width.
* **Reorder buffer**: at most ``rob_size`` fused uops are in flight (allocated,
  not retired). **Scheduler**: at most ``scheduler_size`` unfused uops wait for
  a port (default ``rob_size // 2``, an assumption: no database has the value).
* **Dependencies**: the dependency graph of the static analysis
  (:func:`kerncraft.incore.depgraph.build_graph`: registers, flags, the
  load/arithmetic split, separate address results and store -> load
  dependencies through memory with the store-forwarding latency), per node and
  iteration: a node is ready ``weight`` cycles after its producer issued, the
  producer ``distance`` iterations back for loop-carried edges. Load latencies
  are the database's (edge load -> op).
* **Rows** (``row_length``, optional): loop-carried edges that cross a multiple of
  ``row_length`` iterations are dropped, so each row's chain starts afresh, as
  when an enclosing loop restarts a reduction (matvec's ``y[i]``) or a row-wise
  recurrence (Gauss-Seidel's ``a[j][i-1]``); consecutive rows then overlap as far
  as the reorder buffer and the scheduler reach.
* **Ports**: a uop needs one cycle on one of its ports; a uop with ``cycles: n``
  (divider pipes ``0DV``, ``FDIV``) occupies its port for ``n`` cycles, which is
  how divider occupancy is modelled. Loads' AGU and data uops belong to the load
  node of the instruction, all other uops to its op node -- except for a load with
  a separate address result (``ldr d0, [x1], #8``), whose other uop (the
  writeback) belongs to the address node.
* **Issue** (each cycle): ready nodes in age order (oldest first) issue their
  uops; where the model declares ``memory_issue`` (:mod:`kerncraft.incore.memissue`),
  a load, or a store's address, issues only among the ``window`` oldest waiting ones
  (a load waits once its address is ready, a store address at once) and within the
  cycle's load, store and total limits; the store's data may follow later.
  **Port choice**: among the uop's ports that are free this cycle, the one
  with the fewest cycles assigned so far in the run (ties: database port order)
  -- the least-used rule of SUACA. A node issues when its last uop got a port;
  its result is available ``latency`` cycles later.

Per instruction the run records the average *wait* (cycles from allocation to
issue of its last node that needs a port) split into the part spent waiting for operands (*dependency*, blamed on
the producer that arrived last) and the part spent waiting for a port with the
operands ready (*port*, blamed on the port it finally got).
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Mapping

from kerncraft.incore.memissue import LOAD, STORE, MemoryIssue
# the prepared body (re-exported: cycle_sim is where callers find the simulation's parts)
from kerncraft.incore.sim_program import (SimProgram, build_program,  # noqa: F401
                                          default_iterations)

__all__ = ["SimConfig", "SimRun", "InstructionWait", "SimProgram", "build_program",
           "run_simulation", "default_iterations"]

_EPS = 1e-9
_INF = math.inf


@dataclass(frozen=True)
class SimConfig:
    """Resources of one simulation run. ``None`` widths/sizes mean unlimited."""

    frontend_width: float | None = 4.0
    rob_size: int | None = 224
    scheduler_size: int | None = 112
    ports_limited: bool = True        # False: every uop issues as soon as it is ready
    dependencies: bool = True         # False: ignore every dependency edge
    iterations: int | None = None     # default: default_iterations(body size)
    row_length: int | None = None     # loop-carried edges restart every n iterations
    memory_issue: MemoryIssue | None = None   # oldest-first pick of loads and stores


@dataclass(frozen=True)
class InstructionWait:
    """Average waiting of one instruction of the body (cycles per dynamic instance)."""

    index: int
    wait: float                  # allocation -> issue of its last node
    dependency: float            # of which: operands not ready
    port: float                  # of which: operands ready, no free port
    waited_on: int | None        # instruction whose result arrived last (most often);
    #                              -1: the load part of the same instruction
    port_blamed: str | None      # port it waited for (most often)
    caused: float                # cycles it made other instructions wait for its result


@dataclass(frozen=True)
class SimRun:
    """Result of one simulation run (cycles per assembly iteration)."""

    cycles_per_iteration: float
    iterations: int
    measured_from: int                       # first measured iteration (warm-up before)
    total_cycles: float
    port_cycles: Mapping[str, float]         # port -> busy cycles per iteration
    uops_per_cycle: float
    waits: tuple[InstructionWait, ...] = ()
    frontend_stalls: Mapping[str, int] = field(default_factory=dict)  # cause -> cycles


class _Engine:
    """State of one run; see the module docstring for the rules."""

    def __init__(self, prog: SimProgram, cfg: SimConfig):
        self.p, self.cfg = prog, cfg
        self.iters = cfg.iterations or default_iterations(prog.size)
        self.nn = len(prog.nodes)
        total_nodes = self.nn * self.iters
        self.issue = [-1.0] * total_nodes            # issue cycle of each dynamic node
        self.ready = [-1.0] * total_nodes            # operands-ready cycle, once known
        self.why = [-1] * total_nodes                # producer node (gid) that came last
        self.left = [0] * total_nodes                # uops still without a port
        self.pending = [0] * total_nodes             # producers not issued yet
        self.waiters: dict[int, list[tuple[int, float]]] = {}   # producer -> (consumer, w)
        self.blocked: set[tuple[str, ...]] = set()   # port sets found full this cycle
        self.port_got = [""] * total_nodes
        self.alloc = [0.0] * (prog.size * self.iters)  # allocation cycle per instruction
        self.port_free = {p: 0.0 for p in prog.ports}
        self.usage = {p: 0.0 for p in prog.ports}
        self.rs: list[int] = []                      # dispatched, not issued (age order)
        self.rs_uops = 0
        self.rob: list[int] = []                     # dispatched, not retired (age order)
        self.rob_head = 0
        self.rob_fill = 0
        self.next_instr = 0
        self.credit = 0.0
        self.retire_credit = 0.0
        self.retired_at: list[float] = []            # per retired instruction (global id)
        self.stalls = {"reorder buffer": 0, "scheduler": 0}
        self.now = 0.0
        # memory issue order: the pick among the oldest waiting loads and stores
        limits = cfg.memory_issue if cfg.ports_limited else None
        self.mem_limits = limits if any(node.memory for node in prog.nodes) else None
        self.address_issued = [False] * total_nodes  # a store's address has its turn

    # ------------------------------------------------------------------ stages
    def dispatch(self) -> bool:
        """Allocate instructions in program order into ROB and scheduler."""
        p, cfg, width = self.p, self.cfg, self.cfg.frontend_width
        total = p.size * self.iters
        if width is None:
            self.credit = _INF
        else:
            self.credit = min(self.credit + width, width)
        moved = False
        while self.next_instr < total and self.credit > _EPS:
            g = self.next_instr
            i = g % p.size
            f, u = p.fused[i], p.unfused[i]
            if cfg.rob_size is not None and self.rob_fill + f > cfg.rob_size and self.rob_fill:
                self.stalls["reorder buffer"] += 1
                break
            if cfg.scheduler_size is not None and self.rs_uops + u > cfg.scheduler_size \
                    and self.rs_uops:
                self.stalls["scheduler"] += 1
                break
            self.credit -= f
            self.rob.append(g)
            self.rob_fill += f
            self.rs_uops += u
            self.alloc[g] = self.now
            base = (g // p.size) * self.nn
            for n in p.nodes_of[i]:
                self.left[base + n] = len(p.nodes[n].uops)
                self._link(base + n, g // p.size, n)
                self.rs.append(base + n)
            self.next_instr += 1
            moved = True
        return moved

    def _link(self, gid: int, k: int, n: int) -> None:
        """Operand readiness of a new node: known now, or once its producers issue
        (then :meth:`_wake` completes it)."""
        self.ready[gid] = self.now
        if not self.cfg.dependencies:
            return
        row = self.cfg.row_length
        for src, weight, dist in self.p.nodes[n].producers:
            if k - dist < 0 or (row and dist and k // row != (k - dist) // row):
                continue
            pg = (k - dist) * self.nn + src
            if self.issue[pg] < 0:
                self.pending[gid] += 1
                self.waiters.setdefault(pg, []).append((gid, weight))
            elif self.issue[pg] + weight > self.ready[gid]:
                self.ready[gid], self.why[gid] = self.issue[pg] + weight, pg

    def _wake(self, pg: int) -> None:
        """Producer ``pg`` issued now: its consumers learn when its result arrives."""
        for gid, weight in self.waiters.pop(pg, ()):
            self.pending[gid] -= 1
            if self.now + weight > self.ready[gid]:
                self.ready[gid], self.why[gid] = self.now + weight, pg

    def _operands_ready(self, gid: int) -> bool:
        return not self.pending[gid] and self.ready[gid] <= self.now + _EPS

    def _take_port(self, ports: tuple[str, ...], cycles: float) -> str | None:
        if not self.cfg.ports_limited:
            self.usage[ports[0]] += cycles
            return ports[0]
        if ports in self.blocked:          # ports only fill up within a cycle
            return None
        best = None
        limit = self.now + 1 - _EPS
        for port in ports:
            if self.port_free[port] < limit and (best is None
                                                  or self.usage[port] < self.usage[best] - _EPS):
                best = port
        if best is None:
            self.blocked.add(ports)
        else:
            self.port_free[best] = max(self.port_free[best], self.now) + cycles
            self.usage[best] += cycles
        return best

    def _memory_turn(self, gid: int, pick: list[int]) -> bool:
        """Whether a waiting load or store address may issue this cycle: it must be among
        the ``window`` oldest waiting ones and fit the cycle's limits (``pick``: loads,
        stores, both issued so far, and the waiting ones looked at). A load counts as
        waiting once its address is ready, a store address at once (its registers are
        loop counters and pointers, not the stored value)."""
        limits = self.mem_limits
        kind = 0 if self.p.nodes[gid % self.nn].memory == LOAD else 1
        pick[3] += 1
        if pick[3] > limits.window or pick[2] >= limits.total \
                or pick[kind] >= (limits.loads, limits.stores)[kind]:
            return False
        pick[kind] += 1
        pick[2] += 1
        return True

    def issue_ready(self) -> bool:
        """Give ports to ready nodes, oldest first."""
        moved, keep = False, []
        pick = [0, 0, 0, 0]            # memory issue rule: loads, stores, both, looked at
        memory_rule = self.mem_limits is not None
        blocked, pending, ready, left = self.blocked, self.pending, self.ready, self.left
        blocked.clear()
        nodes, nn, horizon = self.p.nodes, self.nn, self.now + _EPS
        for gid in self.rs:
            if memory_rule and nodes[gid % nn].memory == STORE and not self.address_issued[gid]:
                if not self._memory_turn(gid, pick):
                    keep.append(gid)                        # its address not picked yet
                    continue
                self.address_issued[gid] = True
            if pending[gid] or ready[gid] > horizon:       # operands not ready (inlined)
                keep.append(gid)
                continue
            uops = nodes[gid % nn].uops
            if memory_rule and nodes[gid % nn].memory == LOAD and left[gid] == len(uops) \
                    and not self._memory_turn(gid, pick):
                keep.append(gid)          # not its turn this cycle (once: a split load's
                continue                  # second uop follows without another turn)
            if left[gid] and uops[len(uops) - left[gid]][0] in blocked:
                keep.append(gid)                            # its ports are full this cycle
                continue
            while self.left[gid]:
                ports, cycles = uops[len(uops) - self.left[gid]]
                got = self._take_port(ports, cycles)
                if got is None:
                    break
                self.port_got[gid] = got
                self.left[gid] -= 1
                self.rs_uops -= 1
                moved = True
            if self.left[gid]:
                keep.append(gid)
            else:
                self.issue[gid] = self.now
                self._wake(gid)
                moved = True
        self.rs = keep
        return moved

    def _done_at(self, g: int) -> float:
        base = (g // self.p.size) * self.nn
        t = 0.0
        for n in self.p.nodes_of[g % self.p.size]:
            if self.issue[base + n] < 0:
                return _INF
            t = max(t, self.issue[base + n] + self.p.nodes[n].latency)
        return t

    def retire(self) -> bool:
        """In-order retirement at the front-end width."""
        width = self.cfg.frontend_width
        self.retire_credit = _INF if width is None else min(self.retire_credit + width, width)
        moved = False
        while self.rob_head < len(self.rob) and self.retire_credit > _EPS:
            g = self.rob[self.rob_head]
            if self._done_at(g) > self.now + _EPS:
                break
            f = self.p.fused[g % self.p.size]
            self.retire_credit -= f
            self.rob_fill -= f
            self.rob_head += 1
            self.retired_at.append(self.now)
            moved = True
        return moved

    # ------------------------------------------------------------------ loop
    def _next_event(self) -> float:
        """Earliest cycle after ``now`` at which something can change (nothing moved
        in this cycle, so only a result, a free port or a completion can)."""
        if self.next_instr < self.p.size * self.iters and self.credit <= _EPS:
            return self.now + 1                      # the front end refills each cycle
        later = [math.ceil(self.ready[g] - _EPS) for g in self.rs
                 if not self.pending[g] and self.ready[g] > self.now]
        free_at = (math.floor(t - 1 + _EPS) + 1 for t in self.port_free.values())
        later += [c for c in free_at if c > self.now]
        if self.rob_head < len(self.rob):
            done = self._done_at(self.rob[self.rob_head])
            if done < _INF:
                later.append(math.ceil(done - _EPS))
        return max(self.now + 1, min(later)) if later else self.now + 1

    def run(self) -> None:
        total = self.p.size * self.iters
        guard = 0
        while len(self.retired_at) < total:
            moved = self.retire()
            moved |= self.dispatch()
            moved |= self.issue_ready()
            self.now = self.now + 1 if moved else self._next_event()
            guard += 1
            if guard > 50_000_000:                        # pragma: no cover - safety net
                raise RuntimeError("simulation does not progress")


def _timed_nodes(eng: _Engine, k: int, i: int) -> tuple[int, ...]:
    """The node whose issue ends the instruction's wait: of the nodes that need a
    port (all if none does), the one issued last."""
    nodes = [n for n in eng.p.nodes_of[i] if eng.p.nodes[n].uops] or list(eng.p.nodes_of[i])
    return (max(nodes, key=lambda n: eng.issue[k * eng.nn + n]),)


def _waits(eng: _Engine, first: int) -> tuple[InstructionWait, ...]:
    """Per-instruction averages over the measured iterations."""
    p, nn = eng.p, eng.nn
    count = max(1, eng.iters - first)
    dep = [0.0] * p.size
    port = [0.0] * p.size
    caused = [0.0] * p.size
    on: list[dict[int, float]] = [dict() for _ in range(p.size)]
    blamed: list[dict[str, float]] = [dict() for _ in range(p.size)]
    for k in range(first, eng.iters):
        for i in range(p.size):
            alloc = eng.alloc[k * p.size + i]
            for n in _timed_nodes(eng, k, i):
                gid = k * nn + n
                ready, issued = max(eng.ready[gid], alloc), eng.issue[gid]
                d, w = ready - alloc, issued - ready
                dep[i] += d
                port[i] += w
                if d > _EPS and eng.why[gid] >= 0:
                    src = p.nodes[eng.why[gid] % nn].instruction
                    if src == i and eng.why[gid] // nn == k:
                        src = -1                                # its own load
                    else:
                        caused[src] += d
                    on[i][src] = on[i].get(src, 0.0) + d
                if w > _EPS and eng.port_got[gid]:
                    blamed[i][eng.port_got[gid]] = blamed[i].get(eng.port_got[gid], 0.0) + w
    out = []
    for i in range(p.size):
        top_on = max(on[i], key=on[i].get) if on[i] else None
        top_port = max(blamed[i], key=blamed[i].get) if blamed[i] else None
        out.append(InstructionWait(i, (dep[i] + port[i]) / count, dep[i] / count,
                                   port[i] / count, top_on, top_port, caused[i] / count))
    return tuple(out)


def run_simulation(prog: SimProgram, cfg: SimConfig, *, details: bool = True) -> SimRun:
    """Simulate ``cfg.iterations`` iterations and measure the steady state.

    Cycles per iteration are the slope of the retirement cycle of each
    iteration's last instruction over the second half of the run (the first
    half fills the reorder buffer and settles the port choice).
    """
    eng = _Engine(prog, cfg)
    if prog.size == 0:
        return SimRun(0.0, 0, 0, 0.0, {}, 0.0)
    eng.run()
    first = eng.iters // 2
    last_of = [eng.retired_at[(k + 1) * prog.size - 1] for k in range(eng.iters)]
    span = eng.iters - 1 - first
    cpi = (last_of[-1] - last_of[first - 1]) / (span + 1) if first >= 1 else \
        last_of[-1] / eng.iters
    uops = sum(prog.unfused) * eng.iters
    total = last_of[-1] + 1
    ports = {p: eng.usage[p] / eng.iters for p in prog.ports}
    waits = _waits(eng, first) if details else ()
    return SimRun(round(cpi, 6), eng.iters, first, total, ports, uops / total, waits,
                  dict(eng.stalls))
