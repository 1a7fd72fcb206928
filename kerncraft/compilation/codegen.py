"""C code generation: turn a kernel model into a program a compiler optimises
like real code.

The kernel file is only a loop nest with declarations; to get the assembly a
compiler would really produce for it, we wrap it into a complete program:

* **Arrays live on the heap**, 64-byte aligned (``aligned_alloc``; glibc
  declares it with the ``malloc`` attribute, so the compiler knows that two
  arrays never overlap and needs no run-time alias checks, exactly as for
  separately allocated arrays in an application). Stack arrays would limit
  the sizes and let the compiler see their (lack of) contents. Each array
  starts at a chosen offset after a page boundary (:func:`page_offsets`): the
  written arrays at 0, 64, ..., then the read-only ones, one cache line
  further each. A load whose address matches an *earlier* store to another
  array in the low 12 bits waits for it ("4K aliasing"), which happens when a
  read array starts a little below a written one modulo 4 KiB, as the
  allocator may place them: triad at N=1000 measured 4.7 instead of 2.8 cy/CL
  on the development host. Reads above writes never match an earlier store;
  spreading the arrays further apart (2 KiB) made a zmm copy loop 30 % slower
  there (1.89 -> 2.4-2.7 cy/CL, measured), one line apart did not.
* **Everything is opaque.** Arrays and scalars are initialised by
  ``kc_init_<type>()`` and all variables are handed to ``dummy(void *)``
  after the nest; both are external functions defined in a separate
  translation unit (:data:`SUPPORT_C`), so the compiler can neither
  constant-fold the inputs nor delete the nest as dead code, and scalar
  results (reductions such as ``s += a[i]``) stay live. Initialisation loops
  are not in this translation unit, so the assembly contains the kernel's
  loops and nothing else that could be mistaken for them.
* **The nest is kept as written**: the user's statements are re-emitted from
  the pycparser AST by pycparser's own C generator; only multi-dimensional
  accesses ``a[k][j][i]`` of heap arrays are linearised in Horner form,
  ``a[(((k * M) + j) * N) + i]``, with the declared dimensions.
* No ``#pragma`` and no compiler-specific extension is emitted.

Constants: literal or run-time
------------------------------
A constant such as ``N`` either becomes a literal (``const long N = 1000;``)
or is read at run time (``const long N = kc_constant(argc, argv, 1);``).
Run-time constants make the program text independent of the -D values, so a
whole -D sweep compiles once (the compile cache is keyed by the text, see
:mod:`kerncraft.compilation.compiler`). The price is that the compiler cannot specialise
for the value. For large values that changes the vector width, the unroll
factor and the arithmetic of the main loop nowhere (checked with gcc 12 at
-O1 and -O3 for all bundled kernels with sizes of 1000), but it does change
the address arithmetic of multi-dimensional arrays: a literal row or plane
size becomes a displacement, a run-time one needs a register per row, so
3D stencils run short of registers (3d-long-range at -O3: 113 instructions
with run-time sizes, 91 with literal ones, the difference being reloads of
row pointers). That is what real code with run-time sizes gets as well. For
*small* values specialisation changes everything: with a trip count known to
be short gcc completely unrolls the loop (``-O3`` peels up to 16 iterations,
after vectorisation up to 16 vectors), so no loop is left to analyse, or it
skips vectorisation.

Decision: the default ``'auto'`` reads every constant at run time, except
constants that appear in a non-unit innermost stride (``a[i][j]`` with ``i``
innermost moves ``N`` elements per iteration; :func:`stride_constants`).
Those are literals, because a run-time stride lives in a register whose
value the assembly does not show, so the pointer increment of the loop block
could not be checked, and special strides may change the compiler's strategy.
Small sizes are deliberately *not* specialised: the in-core model describes
the steady-state loop, which a fully unrolled tiny loop no longer has, real
codes mostly read their sizes at run time, and a sweep should not recompile
for every small point. ``'literal'`` (every constant a literal, as in code
whose sizes are compile-time constants) and ``'runtime'`` (none, not even
strides) force one way.

Constants are ``long`` so that linearised indices and allocation sizes of
large 3D/4D arrays do not overflow (with 32-bit constants a 4x1000^3 array
index would wrap; signed overflow is undefined and the compiler would assume
it away). With ``int`` loop indices gcc 12 emits the same inner loops for
``int`` and ``long`` sizes (checked for the bundled kernels; at most one sign
extension differs), since signed index overflow is undefined.
"""
from __future__ import annotations

import copy
import os
from typing import Literal, Mapping, Sequence

from pycparser import c_ast, c_generator

from kerncraft.compilation.kernelfunc import ALIASING_CHOICES, KernelParameter, kernel_function
from kerncraft.errors import KernelError, SourceLocation
from kerncraft.kernel import parser as kernel_parser
from kerncraft.kernel import source as kernel_source
from kerncraft.kernel.model import KernelModel

__all__ = ["generate_c", "constant_values", "stride_constants", "program_arguments", "ConstantMode",
           "ALIGNMENT", "PAGE", "SUPPORT_C", "RESERVED_NAMES", "page_offsets"]

ConstantMode = Literal["auto", "runtime", "literal"]

#: Byte alignment of every array (one cache line; also the widest x86 vector).
ALIGNMENT = 64
PAGE = 4096

#: Names the generated program uses itself; a kernel may not use them.
RESERVED_NAMES = frozenset({"main", "argc", "argv", "dummy"})
_RESERVED_PREFIX = "kc_"

_C_TYPES = {"double": "double", "float": "float", "int": "int", "long": "long"}

#: The external functions of the generated program. For an assembly-only
#: compile they stay undefined; benchmarks link this translation unit.
SUPPORT_C = r"""/* Support functions of kerncraft's generated programs (separate translation
 * unit so that the compiler cannot see through them). */
#define _POSIX_C_SOURCE 200112L
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

void dummy(void *p) { (void)p; }

long kc_constant(int argc, char **argv, int position)
{
    if (position >= argc) {
        fprintf(stderr, "missing command-line argument %d (the run-time constants, "
                "then the repetition count)\n", position);
        exit(2);
    }
    return strtol(argv[position], NULL, 10);
}

static void kc_check(const void *p, long n)
{
    if (p == NULL && n > 0) {
        fprintf(stderr, "out of memory allocating %ld elements\n", n);
        exit(3);
    }
}

/* Values in [1, 2): non-zero, no denormals, no overflow over many sweeps. */
void kc_init_double(double *p, long n)
{ kc_check(p, n); for (long i = 0; i < n; ++i) p[i] = 1.0 + (double)(i % 1009) / 1024.0; }
void kc_init_float(float *p, long n)
{ kc_check(p, n); for (long i = 0; i < n; ++i) p[i] = 1.0f + (float)(i % 1009) / 1024.0f; }
void kc_init_int(int *p, long n)
{ kc_check(p, n); for (long i = 0; i < n; ++i) p[i] = (int)(i % 7) + 1; }
void kc_init_long(long *p, long n)
{ kc_check(p, n); for (long i = 0; i < n; ++i) p[i] = i % 7 + 1; }

static struct timespec kc_start_time;

void kc_timer_start(void) { clock_gettime(CLOCK_MONOTONIC, &kc_start_time); }

void kc_timer_stop(long repetitions)
{
    struct timespec end;
    clock_gettime(CLOCK_MONOTONIC, &end);
    double seconds = (double)(end.tv_sec - kc_start_time.tv_sec)
                     + 1e-9 * (double)(end.tv_nsec - kc_start_time.tv_nsec);
    printf("repetitions %ld\nseconds %.9e\n", repetitions, seconds);
}
"""

_PROLOGUE = """/* aligned_alloc is C11; make glibc declare it under -std=c99 as well. */
#ifndef _ISOC11_SOURCE
#define _ISOC11_SOURCE 1
#endif
#include <stdlib.h>

/* External, defined in another translation unit: the compiler must assume
 * they read and write everything they are given. */
extern void dummy(void *);
extern long kc_constant(int argc, char **argv, int position);
extern void kc_init_double(double *, long);
extern void kc_init_float(float *, long);
extern void kc_init_int(int *, long);
extern void kc_init_long(long *, long);
"""

_BENCHMARK_DECLS = """extern void kc_timer_start(void);
extern void kc_timer_stop(long repetitions);
"""


def constant_values(kernel: KernelModel, bindings: Mapping[str, int] | None = None,
                    constants: ConstantMode = "auto") -> dict[str, int | None]:
    """Value to emit as literal for each constant, ``None`` for run-time ones.

    ``bindings`` default to the kernel's own (``KernelModel.bindings``).
    In ``'literal'`` mode every constant must be bound; in ``'auto'`` mode an
    unbound stride constant stays a run-time one.
    """
    values = dict(kernel.bindings if bindings is None else bindings)
    strided = stride_constants(kernel) if constants == "auto" else frozenset()
    out: dict[str, int | None] = {}
    for const in kernel.constants:
        value = values.get(const.name)
        if constants == "runtime":
            out[const.name] = None
        elif constants == "literal":
            if value is None:
                raise KernelError(f"constant '{const.name}' has no value; pass -D "
                                  f"{const.name} VALUE",
                                  SourceLocation(kernel.filename, const.line, const.col))
            out[const.name] = int(value)
        elif constants == "auto":
            literal = value is not None and const.name in strided
            out[const.name] = int(value) if literal else None
        else:
            raise ValueError(f"unknown constant mode {constants!r}")
    return out


def stride_constants(kernel: KernelModel) -> frozenset[str]:
    """Constants in the innermost-loop stride of some access.

    ``a[i][j]`` with ``i`` innermost in ``double a[M][N]`` moves ``N``
    elements per iteration. With a literal ``N`` the compiler steps the
    pointer by an immediate (and may pick another strategy for special
    strides); with a run-time ``N`` it adds a register, and the pointer
    increment of the loop block can no longer be read from the assembly.
    Such constants are therefore literals in ``'auto'`` mode.
    """
    items = _kernel_items(kernel)
    heap = {d.name: _dims(d) for d in items if isinstance(d, c_ast.Decl) and _dims(d)}
    inner = kernel.loops[-1].index if kernel.loops else None
    names: set[str] = set()

    def visit(node) -> None:
        if isinstance(node, c_ast.ArrayRef):
            subs, root = [], node
            while isinstance(root, c_ast.ArrayRef):
                subs.append(root.subscript)
                root = root.name
            subs.reverse()
            dims = heap.get(root.name, []) if isinstance(root, c_ast.ID) else []
            for pos, sub in enumerate(subs[:-1]):
                if inner in _ids(sub):
                    for dim in dims[pos + 1:]:
                        names.update(_ids(dim))
        for _slot, child in _child_slots(node):
            visit(child)

    for item in items:
        visit(item)
    return frozenset(names & set(kernel.constant_names))


def _ids(node) -> set[str]:
    """Identifier names used in an expression."""
    found = {node.name} if isinstance(node, c_ast.ID) else set()
    for _slot, child in _child_slots(node):
        found |= _ids(child)
    return found


def program_arguments(kernel: KernelModel, bindings: Mapping[str, int] | None = None,
                      constants: ConstantMode = "auto",
                      repetitions: int | None = None) -> list[str]:
    """Command-line arguments for the compiled program: the run-time constants
    in declaration order, then (benchmarks) the repetition count."""
    values = dict(kernel.bindings if bindings is None else bindings)
    args = []
    for name, literal in constant_values(kernel, bindings, constants).items():
        if literal is None:
            if name not in values:
                const = next(c for c in kernel.constants if c.name == name)
                raise KernelError(f"constant '{name}' has no value; pass -D {name} VALUE",
                                  SourceLocation(kernel.filename, const.line, const.col))
            args.append(str(int(values[name])))
    if repetitions is not None:
        args.append(str(int(repetitions)))
    return args


def generate_c(kernel: KernelModel, *, bindings: Mapping[str, int] | None = None,
               for_benchmark: bool = False, constants: ConstantMode = "auto",
               aliasing: str = "distinct") -> str:
    """Complete C99 program for ``kernel`` (see the module docstring).

    ``for_benchmark`` wraps the nest into a repetition loop whose count is the
    last command-line argument, bracketed by ``kc_timer_start()`` /
    ``kc_timer_stop(repetitions)``; without it the output is the program
    compiled for the in-core analysis. The two share the nest's code.
    ``aliasing="pointers"`` puts the nest into a function of pointer arguments
    that may overlap, as Kerncraft compiles it (:mod:`kerncraft.compilation.kernelfunc`).
    """
    if aliasing not in ALIASING_CHOICES:
        raise KernelError(f"unknown aliasing {aliasing!r} (choose {', '.join(ALIASING_CHOICES)})")
    literals = constant_values(kernel, bindings, constants)
    items = _kernel_items(kernel)
    decls = [it for it in items if isinstance(it, c_ast.Decl)]
    # swap(a, b) after the nest exchanges the arrays of a time step; one sweep (or
    # repeated sweeps of the benchmark) moves the same data without it
    others = [it for it in items if not isinstance(it, c_ast.Decl)
              and kernel_parser.swap_arguments(it) is None]
    heap = {d.name: _dims(d) for d in decls if _dims(d)}
    _check_names(kernel)
    gen = c_generator.CGenerator()

    body: list[str] = []
    position = 1
    for name, literal in literals.items():
        if literal is None:
            body.append(f"const long {name} = kc_constant(argc, argv, {position});")
            position += 1
        else:
            body.append(f"const long {name} = {literal};")
    offsets = page_offsets(list(heap), {a.array for a in kernel.accesses if a.kind == "write"})
    for decl in decls:
        body.extend(_declaration(decl, kernel, heap.get(decl.name), gen,
                                 offsets.get(decl.name, 0)))

    nest = []
    for stmt in others:
        stmt = _brace_loops(_linearize(copy.deepcopy(stmt), heap, kernel.filename))
        nest.extend(ln.rstrip() for ln in gen.visit(stmt).splitlines() if ln.strip())
    live = [f"dummy({_address(d, heap)});" for d in decls]
    function: list[str] = []
    if aliasing == "pointers":
        function, nest = kernel_function(nest, _parameters(kernel, literals, decls, heap, gen))
    if for_benchmark:
        body.append(f"const long kc_repetitions = kc_constant(argc, argv, {position});")
        body.append("kc_timer_start();")
        body.append("for (long kc_rep = 0; kc_rep < kc_repetitions; ++kc_rep) {")
        body.extend("    " + line for line in nest)
        body.extend("    " + line for line in live)   # keeps every repetition necessary
        body.append("}")
        body.append("kc_timer_stop(kc_repetitions);")
    else:
        body.extend(nest)
        body.extend(live)
    body.extend(f"free(kc_{d.name}_base);" for d in decls if d.name in heap)
    body.append("return 0;")

    header = (_PROLOGUE + ("#include <math.h>\n" if kernel.math_calls else "")
              + (_BENCHMARK_DECLS if for_benchmark else ""))
    # Only the base name: the program text (and so the compile cache key) does
    # not depend on where the kernel file lives.
    name = os.path.basename(kernel.filename or "kernel").replace("*/", "* /")
    text = [f"/* Generated by kerncraft from {name}. */", header, *function,
            "int main(int argc, char **argv)", "{"]
    text.extend("    " + line if line else "" for line in body)
    text.append("}")
    return "\n".join(text) + "\n"


# --- helpers -------------------------------------------------------------------
def _kernel_items(kernel: KernelModel) -> list:
    """Top-level items of the kernel (declarations, the nest) from pycparser.

    The model does not keep the AST (it is frozen and AST nodes are mutable),
    so the source is parsed again with the front end's own preparation. A
    fresh parser per call (cheap in pycparser 3) keeps this thread-safe.
    """
    from pycparser import c_parser

    _text, wrapped, _pragmas = kernel_source.prepare(kernel.source, kernel.filename)
    ast = c_parser.CParser().parse(wrapped, filename=kernel_source._LINE_FILE)
    for ext in ast.ext:
        if isinstance(ext, c_ast.FuncDef) and ext.decl.name == kernel_source.WRAPPER_NAME:
            return list(ext.body.block_items or [])
    raise KernelError("internal error: kernel wrapper not found")  # pragma: no cover


def _dims(decl: c_ast.Decl) -> list:
    """Dimension nodes of an array declaration (outermost first); [] for scalars."""
    dims = []
    node = decl.type
    while isinstance(node, c_ast.ArrayDecl):
        dims.append(node.dim)
        node = node.type
    return dims


def _check_names(kernel: KernelModel) -> None:
    """Reject user names that would clash with the generated program's own."""
    names = [*kernel.arrays, *kernel.constant_names, *(lp.index for lp in kernel.loops)]
    for name in names:
        if name in RESERVED_NAMES or name.startswith(_RESERVED_PREFIX):
            arr = kernel.arrays.get(name)
            loc = SourceLocation(kernel.filename, arr.line, arr.col) if arr else \
                SourceLocation(kernel.filename)
            raise KernelError(f"name '{name}' is reserved by the generated program "
                              f"('main', 'argc', 'argv', 'dummy' and names starting with "
                              f"'{_RESERVED_PREFIX}'); rename it", loc)


def page_offsets(names: Sequence[str], written: Sequence[str] = (),
                 page: int = PAGE) -> dict[str, int]:
    """Offset of every heap array from a page boundary (module doc): the written
    arrays first, then the read-only ones, one cache line (``ALIGNMENT``) apart,
    so every array that is only read starts a little *above* every written one
    modulo the page."""
    order = [n for n in names if n in written] + [n for n in names if n not in written]
    return {name: (k * ALIGNMENT) % page for k, name in enumerate(order)}


def _declaration(decl: c_ast.Decl, kernel: KernelModel, dims: list | None,
                 gen: c_generator.CGenerator, offset: int = 0) -> list[str]:
    """Heap allocation + opaque initialisation of one top-level variable (the array
    starts ``offset`` bytes after a page boundary, see the module doc)."""
    ctype = _C_TYPES[kernel.arrays[decl.name].ctype]
    name = decl.name
    if not dims:
        if decl.init is not None:   # keep the user's value (visible to the compiler)
            return [f"{ctype} {name} = {gen.visit(decl.init)};"]
        return [f"{ctype} {name};", f"kc_init_{ctype}(&{name}, 1);"]
    count = " * ".join(f"(size_t)({gen.visit(d)})" for d in dims)
    size = f"kc_{name}_n"
    # aligned_alloc wants a multiple of the alignment: round the byte count up.
    return [f"const size_t {size} = {count};",
            f"char *kc_{name}_base = aligned_alloc({PAGE}, "
            f"({size} * sizeof({ctype}) + {2 * PAGE - 1}) / {PAGE} * {PAGE});",
            f"{ctype} *{name} = ({ctype} *)(kc_{name}_base + {offset});",
            f"kc_init_{ctype}({name}, (long){size});"]


def _parameters(kernel: KernelModel, literals: Mapping[str, object], decls: list,
                heap: Mapping[str, list], gen: c_generator.CGenerator) -> list[KernelParameter]:
    """The nest's variables for :func:`~kerncraft.compilation.kernelfunc.kernel_function`."""
    params = [KernelParameter(name, "long", "runtime" if value is None else "literal",
                              None if value is None else str(value))
              for name, value in literals.items()]
    for decl in decls:
        ctype = _C_TYPES[kernel.arrays[decl.name].ctype]
        if decl.name in heap:
            params.append(KernelParameter(decl.name, ctype, "array"))
        else:
            init = gen.visit(decl.init) if decl.init is not None else None
            params.append(KernelParameter(decl.name, ctype, "scalar", init))
    return params


def _address(decl: c_ast.Decl, heap: Mapping[str, list]) -> str:
    return decl.name if decl.name in heap else f"&{decl.name}"


def _linearize(node, heap: Mapping[str, list], filename: str | None):
    """Rewrite ``a[i0][i1]..`` of multi-dimensional heap arrays into one
    subscript, in place (the caller passes a copy); returns the node."""
    if isinstance(node, c_ast.ArrayRef):
        subscripts = []
        root = node
        while isinstance(root, c_ast.ArrayRef):
            subscripts.append(root.subscript)
            root = root.name
        subscripts.reverse()
        if isinstance(root, c_ast.ID) and root.name in heap:
            dims = heap[root.name]
            if len(subscripts) != len(dims):
                coord = node.coord
                raise KernelError(
                    f"array '{root.name}' has {len(dims)} dimensions but is accessed "
                    f"with {len(subscripts)} subscripts",
                    # pycparser's coordinates differ between versions (kernel/cnodes.py)
                    SourceLocation(filename, getattr(coord, "line", None),
                                   getattr(coord, "column", None)))
            subscripts = [_linearize(s, heap, filename) for s in subscripts]
            index = subscripts[0]
            for sub, dim in zip(subscripts[1:], dims[1:]):
                # Horner form ((i0)*(d1) + (i1))*(d2) + (i2): one multiply per level.
                index = c_ast.BinaryOp("+", c_ast.BinaryOp("*", index, copy.deepcopy(dim)), sub)
            return c_ast.ArrayRef(root, index, node.coord)
    for slot, child in _child_slots(node):
        _replace_child(node, slot, _linearize(child, heap, filename))
    return node


def _brace_loops(node):
    """Give every loop body braces (layout only: the generator indents a bare
    nested ``for`` confusingly)."""
    if isinstance(node, c_ast.For) and not isinstance(node.stmt, c_ast.Compound):
        node.stmt = c_ast.Compound([node.stmt], node.stmt.coord)
    for _slot, child in _child_slots(node):
        _brace_loops(child)
    return node


def _child_slots(node) -> list[tuple[tuple[str, int | None], object]]:
    """(attribute, list position) of every child, so it can be replaced."""
    slots = []
    # pycparser nodes name their children in __slots__ (no typed list of fields)
    for attr in getattr(node, "__slots__", ()):
        if attr in ("coord", "__weakref__"):
            continue
        value = getattr(node, attr, None)
        if isinstance(value, c_ast.Node):
            slots.append(((attr, None), value))
        elif isinstance(value, list):
            slots.extend(((attr, i), v) for i, v in enumerate(value)
                         if isinstance(v, c_ast.Node))
    return slots


def _replace_child(node, slot: tuple[str, int | None], value) -> None:
    attr, pos = slot
    if pos is None:
        setattr(node, attr, value)
    else:
        getattr(node, attr)[pos] = value
