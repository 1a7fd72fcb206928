"""Machine-file loading, name resolution, errors and bandwidth selection."""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from kerncraft.errors import MachineFileError
from kerncraft.machine import loader
from kerncraft.machine.bandwidth import mix_distance, select_bandwidth, stream_classes
from kerncraft.machine.loader import list_bundled_machines, load_machine, resolve_machine_path
from kerncraft.machine.model import MachineModel
from support.published import HOW_TO_GET, PUBLISHED_DIR

HERE = Path(__file__).parent
FIXTURES = HERE / "data" / "machines"
REFERENCE_DIR = PUBLISHED_DIR
REFERENCE_FILES = sorted(REFERENCE_DIR.glob("*.yml")) if REFERENCE_DIR.is_dir() else []
needs_reference = pytest.mark.skipif(
    not REFERENCE_FILES, reason=HOW_TO_GET)
CSX_REFERENCE = REFERENCE_DIR / "CascadelakeSP_Gold-6248_SNC.yml"


def load_with(path: Path, backend: str) -> MachineModel:
    """Load through one specific YAML composer."""
    text = path.read_text()
    root = loader._compose(loader._blank_unused_blocks(text), str(path), backend)
    return loader._build_machine(loader._Field(root, "", str(path)), str(path))


@pytest.fixture(scope="module")
def csx() -> MachineModel:
    return load_machine("CSX")


# ---------------------------------------------------------------- every reference file

@needs_reference
@pytest.mark.parametrize("path", REFERENCE_FILES, ids=lambda p: p.stem)
def test_reference_file_loads(path):
    machine = load_machine(path)
    assert machine.clock > 1e9
    assert machine.memory_hierarchy[-1].is_memory
    assert all(not lvl.is_memory for lvl in machine.memory_hierarchy[:-1])
    assert machine.memory_hierarchy[0].name == "L1"
    assert machine.cacheline_size in (64, 256)
    for level in machine.cache_levels:
        assert level.size_per_group and level.size_per_group > 0
    assert set(machine.benchmark_kernels) == {"load", "copy", "update", "triad", "daxpy"}
    assert {m.level for m in machine.measurements} >= {"L1", "MEM"}


def test_reference_directory_has_all_files():
    if not REFERENCE_FILES:
        pytest.skip(HOW_TO_GET)
    assert len(REFERENCE_FILES) == 17


@needs_reference
def test_reference_csx_values():
    machine = load_machine(CSX_REFERENCE)
    assert machine.clock == 2.5e9
    assert machine.in_core_model == {"IACA": "SKX", "OSACA": "CSX",
                                     "LLVM-MCA": "-mcpu=cascadelake"}
    assert [c for c, _ in machine.compilers] == ["icc", "clang", "gcc"]
    assert machine.non_overlapping_ports["OSACA"] == ("2D", "3D")
    l2 = machine.level("L2").geometry
    assert (l2.load_from, l2.victims_to, l2.store_to) == (None, "L3", "L3")
    assert machine.level("L3").size_per_group == 14336 * 16 * 64
    mem = machine.measurements_for("MEM")[0]
    assert mem.results["copy"][0] == pytest.approx(14.56e9)
    assert mem.size_per_core[0] == pytest.approx(210 * 2**20)


@needs_reference
def test_reference_variants():
    by_name = {p.stem: p for p in REFERENCE_FILES}
    # 'INFORMATION_REQUIRED' placeholders: the precision is left out.
    assert load_machine(by_name["A64FX_qpace4"]).flops_per_cycle == {}
    a64fx = load_machine(by_name["A64FX_qpace4"])
    assert a64fx.cacheline_size == 256
    assert a64fx.memory_level.upstream_throughput.duplex == "full-duplex"
    # cl_size written as '64 B', and the misspelt store-penalty key of the TX2 file.
    tx2 = load_machine(by_name["ARMv8_ThunderX2-CN9980"])
    assert tx2.level("L1").geometry.cl_size == 64
    assert tx2.memory_level.penalty_cycles_per_cacheline_load == 2.56
    assert tx2.memory_level.penalty_cycles_per_cacheline_store == 2.56
    # Missing 'size per group': taken from the geometry (20480 sets * 20 ways * 64 B).
    ivb = load_machine(by_name["IvyBridgeEP_E5-2660v2"])
    assert ivb.level("L3").size_per_group == 20480 * 20 * 64
    assert ivb.flops_per_cycle["DP"].fma == 0 and ivb.flops_per_cycle["DP"].total == 8
    # Sizes in plain bytes, and 'cores per group: 1.0'.
    assert load_machine(by_name["IvyBridgeEP_E5-2690v2"]).level("L3").size_per_group == 22118400
    assert load_machine(by_name["BroadwellEP_E5-2697v4_CoD"]).level("L1").cores_per_group == 1
    zen2 = load_machine(by_name["Zen2_EPYC-7452"])
    assert zen2.level("L2").transfers_overlap is True
    assert zen2.memory_level.penalty_cycles_per_cacheline_store == 2.57


@needs_reference
def test_backends_agree_on_reference_csx():
    models = [load_with(CSX_REFERENCE, b) for b in loader.BACKENDS]
    assert all(m == models[0] for m in models)


def test_backends_agree_on_bundled_csx():
    path = resolve_machine_path("CSX")
    models = [load_with(path, b) for b in loader.BACKENDS]
    assert "ruamel" in loader.BACKENDS
    assert all(m == models[0] for m in models)


# ---------------------------------------------------------------- bundled CSX

def test_csx_topology(csx):
    assert csx.clock == 2.5e9
    assert (csx.sockets, csx.cores_per_socket, csx.threads_per_core) == (2, 20, 2)
    assert (csx.numa_domains_per_socket, csx.cores_per_numa_domain) == (2, 10)
    assert csx.cacheline_size == 64
    assert csx.model_name.startswith("Intel(R) Xeon(R) Gold 6248")


def test_csx_in_core_and_compilers(csx):
    assert list(csx.in_core_model) == ["kerncraft", "OSACA", "LLVM-MCA", "IACA"]
    assert csx.in_core_model["kerncraft"] == "CSX"
    assert [c for c, _ in csx.compilers] == ["gcc", "clang", "icc"]
    assert csx.compiler_flags("gcc") == "-O3 -march=cascadelake -ffreestanding"
    assert csx.non_overlapping_ports["OSACA"] == ("2D", "3D")
    assert csx.non_overlapping_ports["kerncraft"] == ("2D", "3D")
    assert csx.overlapping_ports["OSACA"][:3] == ("0", "0DV", "1")
    assert csx.isa == "x86"


def test_csx_flops(csx):
    dp, sp = csx.flops_per_cycle["DP"], csx.flops_per_cycle["SP"]
    assert (dp.add, dp.mul, dp.fma, dp.total) == (16, 16, 32, 32)
    assert (sp.add, sp.mul, sp.fma, sp.total) == (32, 32, 64, 64)
    assert csx.peak_flops_per_cycle("DP") == 32


def test_csx_hierarchy(csx):
    assert [lvl.name for lvl in csx.memory_hierarchy] == ["L1", "L2", "L3", "MEM"]
    l1, l2, l3, mem = csx.memory_hierarchy
    assert (l1.geometry.sets, l1.geometry.ways, l1.geometry.cl_size) == (64, 8, 64)
    assert l1.size_per_group == l1.geometry.size == 32768
    assert l1.upstream_throughput.ports == ("2D", "3D")
    assert l1.upstream_throughput.bytes_per_cycle is None
    assert l2.geometry.load_from is None
    assert l2.geometry.victims_to == "L3" and l2.geometry.store_to == "L3"
    assert l2.size_per_group == 1024 * 16 * 64
    assert l2.upstream_throughput.bytes_per_cycle == 64
    assert l2.upstream_throughput.duplex == "half-duplex"
    assert l3.geometry.write_allocate is False and l2.geometry.write_allocate is True
    assert l3.size_per_group == 14 * 2**20 and l3.groups == 4 and l3.cores_per_group == 10
    assert l3.upstream_throughput.duplex == "full-duplex"
    assert mem.is_memory and mem.size_per_group is None
    assert mem.upstream_throughput.from_benchmarks
    assert csx.cache_levels == (l1, l2, l3)


def test_csx_benchmarks(csx):
    daxpy = csx.benchmark_kernels["daxpy"]
    assert (daxpy.read_streams, daxpy.write_streams, daxpy.read_write_streams) == (2, 1, 1)
    assert daxpy.read_bytes == 16 and daxpy.flops_per_iteration == 2
    mem1, mem2 = csx.measurements_for("MEM")
    assert (mem1.threads_per_core, mem2.threads_per_core) == (1, 2)
    assert mem1.cores == tuple(range(1, 21))
    assert mem1.results["load"][0] == pytest.approx(12.96e9)
    assert mem2.results["update"][19] == pytest.approx(105.96e9)
    assert csx.measurements_for("L1")[0].size_per_core[0] == pytest.approx(21.12 * 1024)


@needs_reference
def test_csx_measurements_match_reference(csx):
    reference = load_machine(CSX_REFERENCE)
    for ours in csx.measurements:
        theirs = next(m for m in reference.measurements_for(ours.level)
                      if m.threads_per_core == ours.threads_per_core)
        assert ours.cores == theirs.cores
        assert ours.results == theirs.results


# ---------------------------------------------------------------- name resolution

def test_resolve_names(tmp_path):
    bundled = resolve_machine_path("CSX")
    assert bundled.name == "CSX.yml" and bundled.parent.name == "machine-files"
    assert resolve_machine_path("CSX.yml") == bundled
    assert resolve_machine_path("csx") == bundled.parent / "CSX.yml"
    assert resolve_machine_path(str(bundled)) == bundled
    assert "CSX" in list_bundled_machines()


def test_machine_path_env_searched_first(tmp_path, monkeypatch):
    shutil.copy(FIXTURES / "minimal.yml", tmp_path / "CSX.yml")
    shutil.copy(FIXTURES / "minimal.yml", tmp_path / "Custom.yml")
    monkeypatch.setenv(loader.MACHINE_PATH_ENV, f"/nonexistent{__import__('os').pathsep}{tmp_path}")
    assert resolve_machine_path("Custom") == tmp_path / "Custom.yml"
    assert load_machine("CSX").clock == 3e9      # the minimal file shadows the bundled CSX


def test_unknown_name_lists_bundled():
    with pytest.raises(MachineFileError) as info:
        load_machine("NoSuchMachine")
    message = str(info.value)
    assert "unknown machine 'NoSuchMachine'" in message
    assert "CSX" in message and "KERNCRAFT_MACHINE_PATH" in message


def test_missing_path_and_directory():
    with pytest.raises(MachineFileError, match="not found"):
        load_machine("no/such/file.yml")
    with pytest.raises(MachineFileError, match="is a directory"):
        load_machine(FIXTURES)


# ---------------------------------------------------------------- errors with locations

def test_minimal_file_defaults():
    machine = load_machine(FIXTURES / "minimal.yml")
    assert (machine.sockets, machine.threads_per_core) == (1, 1)
    assert machine.numa_domains_per_socket is None
    assert machine.flops_per_cycle == {} and machine.compilers == ()
    assert machine.benchmark_kernels == {} and machine.measurements == ()
    l1 = machine.level("L1")
    assert l1.size_per_group == 64 * 8 * 64
    assert l1.geometry.write_allocate and l1.geometry.replacement_policy == "LRU"
    assert l1.upstream_throughput is None and l1.transfers_overlap is False


@pytest.mark.parametrize("backend", list(loader.BACKENDS))
@pytest.mark.parametrize("fixture, yaml_path, line, text", [
    ("missing_ways.yml", "memory hierarchy[1].cache per group.ways", 15,
     "missing required field 'ways'"),
    ("malformed_ways.yml", "memory hierarchy[1].cache per group.ways", 16,
     "expected an integer, got 'eight'"),
    ("bad_clock_unit.yml", "clock", 3, "unknown unit 'GHzz'"),
    ("bad_level_reference.yml", "memory hierarchy[0].cache per group.store_to", 10,
     "unknown level 'L9'"),
    ("bad_measurement_length.yml", "benchmarks.measurements.MEM.1.results.copy", 26,
     "has 2 values but 'cores' lists 3"),
])
def test_error_location(backend, fixture, yaml_path, line, text):
    path = FIXTURES / fixture
    with pytest.raises(MachineFileError) as info:
        load_with(path, backend)
    error = info.value
    assert error.yaml_path == yaml_path
    assert error.location.line == line
    assert str(error).startswith(f"{path}:{line}:")
    assert f": {yaml_path}: " in str(error) and text in str(error)


def test_invalid_yaml_reports_line():
    with pytest.raises(MachineFileError) as info:
        load_machine(FIXTURES / "invalid_yaml.yml")
    assert "invalid YAML" in str(info.value)
    assert info.value.location.line in (3, 4)


HEAD = "clock: 1 GHz\ncores per socket: 2\ncacheline size: 64 B\n"


@pytest.mark.parametrize("text, yaml_path, message", [
    ("", None, "empty"),
    ("- a\n- b\n", "<top level>", "must be a mapping"),
    (HEAD + "memory hierarchy: []\n", "memory hierarchy", "at least the main memory"),
    # The last level must be main memory, i.e. have no 'cache per group'.
    (HEAD + "memory hierarchy:\n  - level: L1\n    cache per group: {sets: 1, ways: 1, cl_size: 64}\n",
     "memory hierarchy[0].cache per group", "must not have"),
    # A cache level before the last one needs its geometry.
    (HEAD + "memory hierarchy:\n  - level: L1\n  - level: MEM\n",
     "memory hierarchy[0].cache per group", "missing required field"),
    (HEAD + "memory hierarchy:\n  - level: MEM\n    upstream throughput: [64 B/cy, quarter-duplex]\n",
     "memory hierarchy[0].upstream throughput[1]", "expected one of half-duplex, full-duplex"),
    (HEAD + "memory hierarchy:\n  - level: MEM\n  - level: MEM\n",
     "memory hierarchy[1].level", "appears twice"),
])
def test_structural_errors(text, yaml_path, message):
    with pytest.raises(MachineFileError) as info:
        loader.parse_machine_text(text, "inline.yml")
    assert message in str(info.value)
    assert info.value.yaml_path == yaml_path


def test_missing_clock_and_empty_required():
    with pytest.raises(MachineFileError) as info:
        loader.parse_machine_text("cores per socket: 2\n", "x.yml")
    assert info.value.yaml_path == "clock" and info.value.location.line == 1
    with pytest.raises(MachineFileError) as info:
        loader.parse_machine_text("cores per socket: 2\nclock:\n", "x.yml")
    assert "is empty" in str(info.value) and info.value.location.line == 2


def test_omap_order_and_yaml12_scalars():
    text = ("clock: 1 GHz\ncores per socket: 2\ncacheline size: 64\n"
            "compiler: !!omap\n  - zz: -O1\n  - aa: -O2\n  - mm:\n"
            "in-core model: !!omap\n  - B: yes\n  - A: 'x'\n"
            "memory hierarchy:\n  - level: MEM\n")
    machine = loader.parse_machine_text(text)
    assert machine.compilers == (("zz", "-O1"), ("aa", "-O2"), ("mm", ""))
    assert machine.in_core_model == {"B": "yes", "A": "x"}   # YAML 1.2: 'yes' is a string
    assert machine.cacheline_size == 64


def test_legacy_and_variant_fields():
    text = (HEAD + "in-core model: {IACA: HSW, OSACA: HSW}\n"
            "non-overlapping ports: [2D, 3D]\n"
            "memory hierarchy:\n"
            "  - level: L1\n"
            "    cache per group: {sets: 64, ways: 8, cl_size: 64 B, load_from: L2}\n"
            "    upstream throughput: 32 B/cy\n"
            "  - level: L2\n"
            "    cache per group: {sets: 512, ways: 8, cl_size: 64, write_allocate: false}\n"
            "    size per group: 256 kB\n"
            "  - level: MEM\n"
            "    penalty cycles per read stream: 1.5\n"
            "    upstream throughput: [full socket memory bandwidth, full-duplex]\n")
    machine = loader.parse_machine_text(text)
    assert machine.non_overlapping_ports == {"IACA": ("2D", "3D"), "OSACA": ("2D", "3D")}
    assert machine.overlapping_ports == {}
    l1 = machine.level("L1")
    assert l1.upstream_throughput.bytes_per_cycle == 32 and l1.upstream_throughput.duplex is None
    assert machine.level("L2").size_per_group == 256 * 1024
    assert machine.level("L2").geometry.load_from is None      # served by main memory
    mem = machine.memory_level
    assert mem.penalty_cycles_per_read_stream == 1.5
    assert mem.upstream_throughput.from_benchmarks and mem.upstream_throughput.duplex == "full-duplex"


def test_duplicate_key_is_an_error():
    with pytest.raises(MachineFileError, match="duplicate key") as info:
        loader.parse_machine_text("clock: 1 GHz\nclock: 2 GHz\n", "d.yml")
    assert info.value.location.line == 2


def test_blanking_keeps_line_numbers():
    text = ("a:\n  b:\n    stats:\n      k:\n      - [1, 2,\n          3]\n"
            "    total size: [1 B,\n      2 B]\n    keep: 1\n")
    blanked = loader._blank_unused_blocks(text)
    assert blanked.count("\n") == text.count("\n")
    assert "stats" not in blanked and "total size" not in blanked
    assert blanked.splitlines()[8] == "    keep: 1"


# ---------------------------------------------------------------- bandwidth selection

@pytest.mark.parametrize("streams, kernel", [
    ((1, 1, 0), "copy"),      # b[i] = a[i]
    ((3, 1, 0), "triad"),     # a[i] = b[i] + c[i] * d[i]
    ((1, 0, 1), "daxpy"),     # a[i] = a[i] + s * b[i]
    ((0, 0, 1), "update"),    # a[i] = s * a[i]
    ((1, 0, 0), "load"),      # s += a[i]
    ((2, 0, 0), "load"),      # s += a[i] * b[i]
    ((2, 1, 0), "daxpy"),     # write share 1/3, like daxpy's
    ((0, 1, 0), "update"),    # store only: share 1 -> closest 1/2, with one stream
])
def test_kernel_selection(csx, streams, kernel):
    choice = select_bandwidth(csx, "MEM", *streams)
    assert choice.kernel == kernel
    assert choice.exact and choice.cores == 1 and choice.threads_per_core == 1


def test_benchmark_mixes_are_distinct(csx):
    classes = {name: stream_classes(mix) for name, mix in csx.benchmark_kernels.items()}
    assert classes == {"load": (1, 0, 0), "copy": (1, 1, 0), "update": (0, 0, 1),
                       "triad": (3, 1, 0), "daxpy": (1, 0, 1)}
    assert mix_distance((1, 1, 0), (1, 1, 0)) == (0, 0, 0)


# GB/s of the CSX reference file, benchmarks.measurements.MEM, 1 thread per core.
@pytest.mark.parametrize("streams, kernel, cores, gbs", [
    ((1, 1, 0), "copy", 1, 14.56), ((1, 1, 0), "copy", 10, 36.46),
    ((3, 1, 0), "triad", 1, 15.21), ((3, 1, 0), "triad", 10, 44.10),
    ((1, 0, 1), "daxpy", 1, 21.32), ((1, 0, 1), "daxpy", 10, 54.77),
    ((0, 0, 1), "update", 1, 24.27), ((0, 0, 1), "update", 10, 53.08),
    ((1, 0, 0), "load", 1, 12.96), ((1, 0, 0), "load", 10, 61.43),
])
def test_mem_bandwidth_values(csx, streams, kernel, cores, gbs):
    choice = select_bandwidth(csx, "MEM", *streams, cores=cores)
    assert (choice.kernel, choice.cores) == (kernel, cores)
    assert choice.bandwidth == pytest.approx(gbs * 1e9)
    assert kernel in choice.explanation and "MEM" in choice.explanation


@needs_reference
def test_reference_file_selection_matches(csx):
    reference = load_machine(CSX_REFERENCE)
    assert select_bandwidth(reference, "MEM", 1, 1, 0, cores=10).bandwidth == \
        pytest.approx(36.46e9)


def test_threads_per_core_and_fallbacks(csx):
    smt = select_bandwidth(csx, "MEM", 1, 1, 0, cores=1, threads_per_core=2)
    assert smt.bandwidth == pytest.approx(15.12e9) and smt.exact
    many = select_bandwidth(csx, "MEM", 1, 1, 0, cores=40)   # both sockets: not measured
    assert many.cores == 20 and not many.exact and many.requested_cores == 40
    assert "no measurement on 40 core(s), used 20" in many.explanation
    odd = select_bandwidth(csx, "L2", 1, 1, 0, threads_per_core=4)
    assert odd.threads_per_core == 2 and "used 2" in odd.explanation


def test_traffic_bandwidth_write_allocate(csx):
    copy = select_bandwidth(csx, "MEM", 1, 1, 0)
    # copy moves 8 B read + 8 B written + 8 B write-allocate per 16 counted bytes.
    assert copy.traffic_bandwidth(write_allocate=True) == pytest.approx(14.56e9 * 1.5)
    assert copy.traffic_bandwidth(write_allocate=False) == pytest.approx(14.56e9)
    update = select_bandwidth(csx, "MEM", 0, 0, 1)
    assert update.traffic_bandwidth(write_allocate=True) == pytest.approx(24.27e9)


def test_traffic_bandwidth_victim_cache(csx):
    # CSX L3 is L2's victims_to: copy with its data in L3 loads b and the write-allocate
    # of a from L3 (16 B) and sends both lines back as victims (16 B): 32 B per 16 nominal.
    copy = select_bandwidth(csx, "L3", 1, 1, 0)
    assert copy.traffic_bandwidth(write_allocate=True, victim=True) == \
        pytest.approx(23.63e9 * 32 / 16)
    # daxpy (a read and written, b read): loads a, b (16 B), victims a, b (16 B) per
    # 24 nominal bytes (16 read + 8 written).
    daxpy = select_bandwidth(csx, "L3", 1, 0, 1)
    assert daxpy.traffic_bandwidth(write_allocate=True, victim=True) == \
        pytest.approx(35.62e9 * 32 / 24)
    # update (one read+write stream): 8 B in, 8 B back = nominal, victim or not
    update = select_bandwidth(csx, "L3", 0, 0, 1)
    assert update.traffic_bandwidth(write_allocate=True, victim=True) == \
        pytest.approx(update.bandwidth)


def test_bandwidth_errors(csx):
    with pytest.raises(ValueError):
        select_bandwidth(csx, "MEM", 0, 0, 0)
    with pytest.raises(ValueError):
        select_bandwidth(csx, "MEM", 1, 0, 0, cores=0)
    with pytest.raises(MachineFileError, match="no benchmark measurements for level 'L7'"):
        select_bandwidth(csx, "L7", 1, 0, 0)
    minimal = load_machine(FIXTURES / "minimal.yml")
    with pytest.raises(MachineFileError, match="measured levels: none"):
        select_bandwidth(minimal, "MEM", 1, 0, 0)
