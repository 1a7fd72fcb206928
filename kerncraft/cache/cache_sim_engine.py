"""Generated fast engine of the cache simulator.

:class:`kerncraft.cache.cache_sim.CacheSimulator` keeps readable per-access
methods as the reference engine. For speed, this module writes, per hierarchy,
the Python source of one function that runs a whole sequence of line accesses
with every level's rules inlined (no attribute lookups or calls in the hot
loop), and compiles it once. A test compares both engines access by access.
"""
from __future__ import annotations

from typing import Sequence

from kerncraft.cache.sim_levels import LevelSpec

# --- the fast engine: generated, specialised source ---------------------------------
# Counters of the generated code, in the order the engine returns them per level:
# hits, misses, loads (only where not equal to misses), evictions, forwarded stores,
# loads from the victim level. The _Level counters follow from them (see _Level.add).
COUNTERS = ("h", "m", "ld", "ev", "fw", "fv")


class _EngineWriter:
    """Emit the source of ``feed`` for one hierarchy.

    Every engine method of :class:`CacheSimulator` (``_load``, ``_fill``,
    ``_insert``, ``_evict``, ``_put``, ``_forward``, ``_store``) has a
    counterpart here that writes the method's body, inlined, with the level's
    policies turned into constants. Operations only ever call levels *below* their own, so the
    unrolling terminates, and a level's temporaries (``s<k>``, ``v<k>``,
    ``vd<k>``, ``f<k>``) are never clobbered by the nested code of another
    level while still needed.
    """

    def __init__(self, specs: Sequence[LevelSpec], victim_exclusive: bool):
        self.specs = specs
        self.exclusive = victim_exclusive
        pos = {sp.name: i for i, sp in enumerate(specs)}
        self.load_from = [pos.get(sp.load_from) for sp in specs]
        self.store_to = [pos.get(sp.store_to) for sp in specs]
        self.victims_to = [pos.get(sp.victims_to) for sp in specs]
        self.victim_target = [any(v == k for v in self.victims_to) for k in range(len(specs))]
        self.lines: list[str] = []

    def loads_are_misses(self, k: int) -> bool:
        """Every miss of level ``k`` is a fill (so ``loads`` need no counter of its own)."""
        return self.specs[k].write_allocate and not self.victim_target[k]

    def emit(self, ind: int, text: str) -> None:
        self.lines.append("    " * ind + text)

    def block(self, ind: int, header: str, body) -> None:
        """``header:`` followed by ``body(ind + 1)`` (``pass`` if it wrote nothing)."""
        self.emit(ind, header)
        mark = len(self.lines)
        body(ind + 1)
        if len(self.lines) == mark:
            self.emit(ind + 1, "pass")

    # counterparts of CacheSimulator._load / _fill / _insert / _evict / _put / _forward / _store
    def load(self, k: int, x: str, ind: int, count_hit: bool = True) -> None:
        sp = self.specs[k]
        self.emit(ind, f"s{k} = S{k}[{x} % {sp.sets}]")

        def hit(i):
            if count_hit:
                self.emit(i, f"h{k} += 1")
            self.emit(i, f"s{k}[{x}] = s{k}.pop({x})")

        def miss(i):
            self.emit(i, f"m{k} += 1")
            dirty = self.fill(k, x, i)
            self.insert(k, x, dirty, i)
        self.block(ind, f"if {x} in s{k}:", hit)
        self.block(ind, "else:", miss)

    def fill(self, k: int, x: str, ind: int) -> str:
        """Write the fill; return the expression of the filled line's dirty state."""
        if not self.loads_are_misses(k):
            self.emit(ind, f"ld{k} += 1")
        src, vt = self.load_from[k], self.victims_to[k]
        if src is not None:
            self.load(src, x, ind)
            return "False"
        if vt is not None:
            self.emit(ind, f"s{vt} = S{vt}[{x} % {self.specs[vt].sets}]")

            def hit(i):
                self.emit(i, f"h{vt} += 1")
                self.emit(i, f"fv{k} += 1")
                if self.exclusive:
                    self.emit(i, f"f{k} = s{vt}.pop({x})")
                else:
                    self.emit(i, f"s{vt}[{x}] = s{vt}.pop({x})")
                    self.emit(i, f"f{k} = False")

            def miss(i):
                self.emit(i, f"m{vt} += 1")
                self.emit(i, "ml += 1")
                self.emit(i, f"f{k} = False")
            self.block(ind, f"if {x} in s{vt}:", hit)
            self.block(ind, "else:", miss)
            return f"f{k}"
        self.emit(ind, "ml += 1")
        return "False"

    def insert(self, k: int, x: str, dirty: str, ind: int) -> None:
        def replace(i):
            self.emit(i, f"for v{k} in s{k}: break")       # the LRU line
            self.emit(i, f"vd{k} = s{k}.pop(v{k})")
            if self.victims_to[k] is not None:
                self.evict(k, f"v{k}", f"vd{k}", i)
            else:
                self.block(i, f"if vd{k}:", lambda j: self.evict(k, f"v{k}", "True", j))
        self.block(ind, f"if len(s{k}) >= {self.specs[k].ways}:", replace)
        self.emit(ind, f"s{k}[{x}] = {dirty}")

    def evict(self, k: int, v: str, vd: str, ind: int) -> None:
        self.emit(ind, f"ev{k} += 1")
        vt = self.victims_to[k]
        if vt is not None:
            self.put(vt, v, vd, ind)
            return
        if self.store_to[k] is None:
            self.emit(ind, "ms += 1")
        else:
            self.put(self.store_to[k], v, "True", ind)

    def put(self, k: int, x: str, dirty: str, ind: int) -> None:
        sp = self.specs[k]

        def forward_if_dirty(i):
            if dirty == "True":
                self.forward(k, x, True, i)
            elif dirty != "False":
                self.block(i, f"if {dirty}:", lambda j: self.forward(k, x, True, j))

        def present(i):
            if sp.write_back:
                if dirty == "True":
                    self.emit(i, f"del s{k}[{x}]")
                    self.emit(i, f"s{k}[{x}] = True")
                elif dirty == "False":
                    self.emit(i, f"s{k}[{x}] = s{k}.pop({x})")
                else:
                    self.emit(i, f"s{k}[{x}] = s{k}.pop({x}) or {dirty}")
            else:
                self.emit(i, f"del s{k}[{x}]")
                self.emit(i, f"s{k}[{x}] = False")
                forward_if_dirty(i)

        def absent(i):
            if sp.write_allocate or self.victim_target[k]:
                self.insert(k, x, dirty if sp.write_back else "False", i)
                if not sp.write_back:
                    forward_if_dirty(i)
            else:
                forward_if_dirty(i)
        self.emit(ind, f"s{k} = S{k}[{x} % {sp.sets}]")
        self.block(ind, f"if {x} in s{k}:", present)
        self.block(ind, "else:", absent)

    def forward(self, k: int, x: str, full_line: bool, ind: int) -> None:
        self.emit(ind, f"fw{k} += 1")
        target = self.store_to[k]
        if target is None:
            self.emit(ind, "ms += 1")
        elif full_line:
            self.put(target, x, "True", ind)
        else:
            self.store(target, x, ind)

    def store(self, k: int, x: str, ind: int, count_hit: bool = True) -> None:
        sp = self.specs[k]

        def hit(i):
            if count_hit:
                self.emit(i, f"h{k} += 1")
            self.emit(i, f"del s{k}[{x}]")
            self.emit(i, f"s{k}[{x}] = {sp.write_back}")
            if not sp.write_back:
                self.forward(k, x, False, i)

        def miss(i):
            self.emit(i, f"m{k} += 1")
            if not sp.write_allocate:
                self.forward(k, x, False, i)
                return
            self.fill(k, x, i)
            self.insert(k, x, str(sp.write_back), i)
            if not sp.write_back:
                self.forward(k, x, False, i)
        self.emit(ind, f"s{k} = S{k}[{x} % {sp.sets}]")
        self.block(ind, f"if {x} in s{k}:", hit)
        self.block(ind, "else:", miss)

    def source(self) -> str:
        n = len(self.specs)
        names = [f"{c}{k}" for k in range(n) for c in COUNTERS] + ["ml", "ms"]
        self.emit(0, "def feed(seq, " + ", ".join(f"S{k}=S{k}" for k in range(n)) + "):")
        self.emit(1, " = ".join(names) + " = 0")
        self.emit(1, "for x in seq:")
        # L1 hits are not counted in the loop: hits = accesses - misses at L1
        self.block(2, "if x > 0:", lambda i: self.load(0, "x", i, count_hit=False))

        def write(i):
            self.emit(i, "x = -x")
            self.store(0, "x", i, count_hit=False)
        self.block(2, "else:", write)
        self.emit(1, "return (" + ", ".join(names) + ")")
        return "\n".join(self.lines) + "\n"


def engine_source(specs: Sequence[LevelSpec], victim_exclusive: bool = True) -> str:
    """Python source of the fast engine ``feed(seq)`` for this hierarchy (see module doc)."""
    return _EngineWriter(tuple(specs), victim_exclusive).source()


_ENGINE_CODE: dict[tuple, object] = {}


def make_engine(specs: Sequence[LevelSpec], victim_exclusive: bool, sets: Sequence[list]):
    """Compile (once per hierarchy) and bind the fast engine to a simulator's sets."""
    key = (tuple(specs), victim_exclusive)
    code = _ENGINE_CODE.get(key)
    if code is None:
        code = _ENGINE_CODE[key] = compile(engine_source(specs, victim_exclusive),
                                           "<kerncraft cache engine>", "exec")
    namespace = {f"S{k}": s for k, s in enumerate(sets)}
    exec(code, namespace)
    return namespace["feed"]


