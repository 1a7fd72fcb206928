"""What an AArch64 instruction reads and writes (dependency keys).

The default rule, applied to every instruction not handled otherwise:

* the **first operand is the destination** (written, not read), all other
  operands are sources -- A64 writes whole registers: a ``w`` write zero-extends
  into ``x``, a scalar ``d``/``s`` or 64-bit vector write zeroes the rest of the
  SIMD register, so no partial-write merge exists (except the lane inserts and
  accumulators of ``tables.READS_DEST``, which also read the destination);
* **stores** (``str``, ``stp``, ``st1`` ...) read every register operand and write
  memory; exclusive stores write their status register;
* **loads** write every register before the memory operand (``ldp``: two
  destinations, ``ld1 {v0.2d, v1.2d}``: two) -- except SVE governing predicates
  (``p0/z``), which are read -- and read memory; a lane load merges;
* **compares** read all operands and write the flags only; ``b.cond`` / gcc's
  ``bcond`` and ``csel``-like instructions read the flags their condition needs,
  ``cbz``/``cbnz``/``tbz`` read their register, ``bl`` writes ``x30``, ``ret``
  reads it.

Keys are alias roots (``w0``/``x0`` -> ``'x0'``, ``b0``..``q0``/``v0``/``z0`` ->
``'v0'``) and one key per NZCV flag (``flag.n``, ``flag.z``, ``flag.c``,
``flag.v``). ``xzr``/``wzr`` are no key at all: reading them yields 0, writing them
is discarded.

Memory: base and index registers are ``address_sources``. A **writeback**
(pre-index ``[x0, #16]!``, post-index ``[x0], #16``) also makes the base a
*destination* computed from the old base only -- a separate result
(``DataFlow.separate_results``): the new ``x0`` does not wait for the stored data
of ``str d5, [x0], #8`` nor for the loaded value of ``ldr``; a register increment
(``ld1 {v0.2d}, [x0], x2``) is a source of that result only. The dependency
graph gives the separate result its own node with the writeback latency the
database assigns (see ``aarch64.portmodel``), so a post-increment chain costs
what the hardware needs to advance the pointer, while loaded data still waits
for the full load latency from the old base.

SVE merging predication (``p0/m``) reads the destination (inactive elements keep
their value). Zero idioms (``eor v0.16b, v0.16b, v0.16b``) read nothing.
Not modelled: calls clobbering caller-saved registers, system registers.
"""
from __future__ import annotations


from kerncraft.incore.aarch64 import operands as ops
from kerncraft.incore.aarch64 import tables as T
from kerncraft.incore.aarch64.operands import A64Register, Condition
from kerncraft.incore.model import DataFlow, DataFlowBuilder, Instruction, Memory, Register

__all__ = ["dataflow", "operand_access", "condition_of", "is_load", "is_store",
           "has_writeback", "flags_of_condition"]

_ZERO_ROOTS = frozenset({"xzr"})
_LINK = "x30"


def is_load(mnemonic: str) -> bool:
    return bool(T.LOAD_RE.match(mnemonic)) and mnemonic not in T.PREFETCHES


def is_store(mnemonic: str) -> bool:
    return bool(T.STORE_RE.match(mnemonic))


def has_writeback(instr: Instruction) -> bool:
    """True if a memory operand writes its base back (pre- or post-index)."""
    return any(isinstance(op, Memory) and (op.pre_index or op.post_index is not None)
               for op in instr.operands)


def condition_of(instr: Instruction) -> str | None:
    """Condition code an instruction tests (``b.ne``/``bne`` -> 'ne', the
    condition operand of ``csel``/``ccmp``), else None."""
    m = instr.mnemonic
    if m.startswith("b.") and m[2:] in T.CONDITION_FLAGS:
        return m[2:]
    if m.startswith("b") and m[1:] in T.BASE_CONDITIONS:
        return m[1:]
    for op in instr.operands:
        if isinstance(op, Condition):
            return op.code
    return None


def flags_of_condition(code: str) -> frozenset[str]:
    """NZCV keys a condition code reads (``ne`` -> {flag.z})."""
    return T.CONDITION_FLAGS.get(code, T.ALL_FLAGS)


def _root(reg: Register) -> str | None:
    root = ops.alias_root(reg.name)
    return None if root in _ZERO_ROOTS else root


class _Flow(DataFlowBuilder):
    """The data flow of one instruction, built operand by operand."""

    def reg(self, reg: Register, role: str) -> None:
        root = _root(reg)
        if root is None:
            return
        if "r" in role:
            self.sources.add(root)
        if "w" in role:
            self.destinations.add(root)

    def memory(self, mem: Memory, role: str) -> None:
        """Address registers, the access itself and a writeback of the base."""
        if not role:
            return
        wb = mem.pre_index or mem.post_index is not None
        for part, is_base in ((mem.base, True), (mem.index, False)):
            if part is None or (root := _root(part)) is None:
                continue
            self.address.add(root)
            if is_base and wb:
                self.separate_result(root, {root})
        if "r" in role:              # role 'a' (prefetch): the address only
            self.reads.append(mem)
        if "w" in role:
            self.writes.append(mem)



# ------------------------------------------------------------------------- roles
def _memory_roles(instr: Instruction, load: bool) -> list[str]:
    """Roles of a load's or store's operands."""
    operands = instr.operands
    mem_at = next((i for i, op in enumerate(operands) if isinstance(op, Memory)), None)
    roles: list[str] = []
    for i, op in enumerate(operands):
        if isinstance(op, Memory):
            roles.append("r" if load else "w")
        elif not load or mem_at is None or i > mem_at:
            roles.append("r")
        elif _is_governing_predicate(op):
            roles.append("r")
        elif instr.mnemonic in T.LANE_LOADS and op.lane and "[" in op.lane:
            roles.append("rw")
        else:
            roles.append("w")
    if not load and instr.mnemonic in T.STORE_STATUS and roles:
        roles[0] = "w"
    return roles


def _is_governing_predicate(op) -> bool:
    return isinstance(op, A64Register) and bool(op.lane) and op.lane.startswith("/")


def _atomic_roles(instr: Instruction) -> list[str]:
    """LSE atomics: ``ld<op>/swp Rs, Rt, [Xn]`` read Rs and write Rt; ``cas Rs,
    Rt, [Xn]`` reads and writes Rs (the old value) and reads Rt; ``casp`` does so
    for register pairs. Memory is read and written."""
    regs = [op for op in instr.operands if not isinstance(op, Memory)]
    half = max(len(regs) // 2, 1)
    if instr.mnemonic.startswith("cas"):
        reg_roles = ["rw"] * half + ["r"] * (len(regs) - half)
    else:
        reg_roles = ["r"] * half + ["w"] * (len(regs) - half)
    it = iter(reg_roles)
    return ["rw" if isinstance(op, Memory) else next(it, "r") for op in instr.operands]


def _default_roles(instr: Instruction) -> list[str]:
    """First operand written, the rest read (with the READS_DEST exceptions)."""
    n = len(instr.operands)
    if n == 0:
        return []
    first = "w"
    if instr.mnemonic in T.READS_DEST:
        first = "rw"
    elif any(isinstance(op, A64Register) and op.lane == "/m" for op in instr.operands[1:]):
        first = "rw"                 # SVE merging predication keeps inactive elements
    elif _is_lane_insert(instr):
        first = "rw"
    return [first] + ["r"] * (n - 1)


def _is_lane_insert(instr: Instruction) -> bool:
    """``mov v0.d[1], x1`` / ``mov v0.d[1], v1.d[0]`` (alias of ``ins``) merge."""
    dst = instr.operands[0]
    return (instr.mnemonic in ("mov", "fmov") and isinstance(dst, A64Register)
            and bool(dst.lane) and "[" in dst.lane)


def operand_access(instr: Instruction) -> tuple[str, ...]:
    """Access role of each operand: 'r', 'w', 'rw' or '' (unused)."""
    m = instr.mnemonic
    n = len(instr.operands)
    if m in T.NO_EFFECT:
        return ("",) * n
    if m in T.PREFETCHES:
        return tuple("a" if isinstance(op, Memory) else "" for op in instr.operands)
    if T.ATOMIC_RE.match(m):
        return tuple(_atomic_roles(instr))
    if is_store(m) or is_load(m):
        return tuple(_memory_roles(instr, is_load(m)))
    if m in T.COMPARES or m in T.BRANCHES or condition_of(instr) is not None \
            and m not in T.CONDITIONAL:
        return ("r",) * n
    return tuple(_default_roles(instr))


# ------------------------------------------------------------------------- flags etc.
def _apply_implicit(instr: Instruction, flow: _Flow) -> None:
    """Flags, link register and condition reads."""
    m = instr.mnemonic
    if m in T.FLAG_WRITES:
        flow.destinations |= T.ALL_FLAGS
    if m in T.CARRY_READERS:
        flow.sources.add(T.C)
    code = condition_of(instr)
    if code is not None:
        flow.sources |= flags_of_condition(code)
    if m in ("bl", "blr", "blraa", "blrab"):
        flow.destinations.add(_LINK)
    if m in ("ret", "retaa", "retab") and not instr.operands:
        flow.sources.add(_LINK)


def _apply_idioms(instr: Instruction, flow: _Flow) -> None:
    """``eor/sub/bic x, y, y``: the result is 0 whatever y holds."""
    if instr.mnemonic not in T.ZERO_IDIOMS or len(instr.operands) != 3:
        return
    a, b = instr.operands[1], instr.operands[2]
    if isinstance(a, Register) and isinstance(b, Register) and a.name == b.name \
            and a.lane == b.lane:
        root = _root(a)
        if root is not None:
            flow.sources.discard(root)
        flow.breaks = True


def dataflow(instr: Instruction) -> DataFlow:
    """Sources, destinations and memory accesses of one AArch64 instruction
    (rules in the module docstring)."""
    flow = _Flow()
    for op, role in zip(instr.operands, operand_access(instr)):
        if isinstance(op, Register):
            flow.reg(op, role)
        elif isinstance(op, Memory):
            flow.memory(op, role)
    _register_increment(instr, flow)
    _apply_implicit(instr, flow)
    _apply_idioms(instr, flow)
    return flow.freeze()


def _register_increment(instr: Instruction, flow: _Flow) -> None:
    """``ld1 {v0.2d}, [x0], x2``: the register after a post-indexed memory operand
    is the increment, a source of the written-back base only."""
    mem_at = next((i for i, op in enumerate(instr.operands)
                   if isinstance(op, Memory) and op.post_index is not None), None)
    if mem_at is None or not (is_load(instr.mnemonic) or is_store(instr.mnemonic)):
        return
    base = instr.operands[mem_at].base
    root = _root(base) if base is not None else None
    for op in instr.operands[mem_at + 1:]:
        if isinstance(op, Register) and root is not None and (inc := _root(op)) is not None:
            flow.separate_result(root, {inc})
