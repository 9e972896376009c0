#!/usr/bin/env python3
"""Writes a SPIR-V GEMM (MLIR spirv dialect text) for xpu-vulkan-gemm-probe
(bench/gemm/vulkan_gemm_probe.cpp): C (MxN, f32) = A (MxK, f16) * B (KxN,
f16), all row-major, one BMxBN block of C per workgroup, sizes baked in
(--sizes push|spec: K and N read at run time, as the library reads them). The
matrices have workgroup scope (VK_NV_cooperative_matrix2's
cooperativeMatrixWorkgroupScope): an experiment in what the driver can reach
before the library lowers to them (bench/results/h200-2026-12-04.md).

Kernels: by default A and B are loaded from the storage buffers in a K loop
of BK (--unroll U: U steps' loads before their multiply-adds; the driver
stages them through shared memory); --tensor loads them through NV2 tensor
layouts instead (stub calls that spirv_tensor_loads.py rewrites after
mlir-translate, since MLIR 22 has no such ops); --prefetch loads the next
step's matrices before this step's multiply-add; --stages 1|2 copies A and B into
shared memory ourselves (--depth D: each step's copies loaded D steps ahead);
--vulkan-memory-model declares the model xpujit's modules use, reads
NonPrivatePointer; --no-traffic loads them once (the multiply-add
ceiling, wrong by design); --scalar uses no matrices at all (for devices
without them).

  workgroup_matrix_gemm.py --m 4096 --n 4096 --k 4096 --bm 128 --bn 128 \\
      --bk 32 --wg 256 [--unroll 2] > g.mlir
  mlir-translate --no-implicit-module --serialize-spirv g.mlir -o g.spv
"""
import argparse

F16 = "f16"
WORD = "vector<4xi32>"  # 16 bytes: 8 f16


def buffer(elem, stride):
    return (f"!spirv.ptr<!spirv.struct<(!spirv.rtarray<{elem}, stride={stride}> [0])>,"
            " StorageBuffer>")


def matrices(a):
    return (f"!spirv.coopmatrix<{a.bm}x{a.bk}xf16, Workgroup, MatrixA>",
            f"!spirv.coopmatrix<{a.bk}x{a.bn}xf16, Workgroup, MatrixB>",
            f"!spirv.coopmatrix<{a.bm}x{a.bn}xf32, Workgroup, MatrixAcc>")


def block_ids(a):
    """%bx, %by: the block column and row of this workgroup. With --group G
    the workgroups in launch order take G block rows at a time, column by
    column (Triton's grouped order), so that neighbours in time share rows
    of A and columns of B in the L2 cache."""
    plain = ("    %bx = spirv.CompositeExtract %id[0 : i32] : vector<3xi32>\n"
             "    %by = spirv.CompositeExtract %id[1 : i32] : vector<3xi32>\n")
    if not a.group:
        return plain
    bm, bn = (1, a.wg) if a.scalar else (a.bm, a.bn)
    cols, rows = a.n // bn, a.m // bm
    if rows % a.group:
        raise SystemExit(f"--group {a.group} must divide the {rows} block rows")
    return f"""    %wx = spirv.CompositeExtract %id[0 : i32] : vector<3xi32>
    %wy = spirv.CompositeExtract %id[1 : i32] : vector<3xi32>
    %gcols = spirv.Constant {cols} : i32
    %gsize = spirv.Constant {a.group} : i32
    %gspan = spirv.Constant {a.group * cols} : i32
    %glin0 = spirv.IMul %wy, %gcols : i32
    %glin = spirv.IAdd %glin0, %wx : i32
    %gidx = spirv.UDiv %glin, %gspan : i32
    %gin = spirv.UMod %glin, %gspan : i32
    %gfirst = spirv.IMul %gidx, %gsize : i32
    %gry = spirv.UMod %gin, %gsize : i32
    %by = spirv.IAdd %gfirst, %gry : i32
    %bx = spirv.UDiv %gin, %gsize : i32
"""


def size_values(a):
    """Module-level declarations and the function's lines that give %ck and
    %cn (K and N: the loop bound, the offsets and the strides). baked:
    constants; push: read from push constants in xpujit's argument block
    (A's, B's and C's counts, then m, n, k; run with the probe's --xpujit);
    spec: specialization constants 4 (n) and 5 (k), which the probe sets
    with --xpujit. push and spec name the entry point gemm, as the
    library's modules do."""
    if a.sizes == "baked":
        return "", f"    %ck = spirv.Constant {a.k} : i32\n    %cn = spirv.Constant {a.n} : i32\n"
    if a.sizes == "spec":
        return (f"  spirv.SpecConstant @sc_n spec_id(4) = {a.n} : i32\n"
                f"  spirv.SpecConstant @sc_k spec_id(5) = {a.k} : i32\n",
                "    %ck = spirv.mlir.referenceof @sc_k : i32\n"
                "    %cn = spirv.mlir.referenceof @sc_n : i32\n")
    block = ("!spirv.ptr<!spirv.struct<(i32 [0], i32 [4], i32 [8], i32 [12], i32 [16], i32 [20]),"
             " Block>, PushConstant>")
    lines = f"    %argsp = spirv.mlir.addressof @args : {block}\n"
    for name, field in (("ck", 5), ("cn", 4)):
        lines += (f"    %{name}i = spirv.Constant {field} : i32\n"
                  f"    %{name}p = spirv.AccessChain %argsp[%{name}i] : {block}, i32 ->"
                  " !spirv.ptr<i32, PushConstant>\n"
                  f"    %{name} = spirv.Load \"PushConstant\" %{name}p : i32\n")
    return f"  spirv.GlobalVariable @args : {block}\n", lines


def shell(a, *, operand=F16, acc, shared="", variables="", prologue="", body,
          loop_vars="", epilogue, invocation=False, functions="",
          caps="Shader, Float16, StorageBuffer16BitAccess, CooperativeMatrixKHR",
          exts="SPV_KHR_cooperative_matrix, SPV_KHR_16bit_storage"):
    """The module every kernel shares: bindings A, B (`operand` elements),
    C (f32); the workgroup (and, with `invocation`, invocation) id; %c0, %ck,
    %cn, %row0 and %col0 (this block's first row and column); the
    accumulator %accv of type `acc` set to 0 (`acc` f32: a scalar); the K
    loop over %k (and `loop_vars`), running `body`, which stores the next
    %k into %kv; then `epilogue`."""
    op_buf = buffer(operand, 16 if operand == WORD else 2)
    c_buf = buffer("f32", 4)
    shared += dead_shared_decl(a)
    lid = ('  spirv.GlobalVariable @lid built_in("LocalInvocationId") :'
           ' !spirv.ptr<vector<3xi32>, Input>\n') if invocation else ""
    lid_load = ('    %lidp = spirv.mlir.addressof @lid : !spirv.ptr<vector<3xi32>, Input>\n'
                '    %lidv = spirv.Load "Input" %lidp : vector<3xi32>\n') if invocation else ""
    names = ["@wgid"] + (["@lid"] if invocation else []) + ["@A", "@B", "@C"]
    names += [line.split()[1] for line in shared.splitlines() if "GlobalVariable" in line]
    sizes_decl, sizes = size_values(a)
    entry = "main" if a.sizes == "baked" else "gemm"
    if a.sizes == "push":
        names.append("@args")
    init = ("    %acci = spirv.Constant 0.0 : f32\n" if acc == "f32" else
            f"    %zero = spirv.Constant 0.0 : f32\n"
            f"    %acci = spirv.CompositeConstruct %zero : (f32) -> {acc}\n")
    model = "GLSL450"
    if a.vulkan_memory_model:
        model, caps = "Vulkan", caps + ", VulkanMemoryModel"
    return f"""spirv.module Logical {model} requires #spirv.vce<v1.6, [{caps}], [{exts}]> {{
  spirv.GlobalVariable @A bind(0, 0) : {op_buf}
  spirv.GlobalVariable @B bind(0, 1) : {op_buf}
  spirv.GlobalVariable @C bind(0, 2) : {c_buf}
{shared}{sizes_decl}  spirv.GlobalVariable @wgid built_in("WorkgroupId") : !spirv.ptr<vector<3xi32>, Input>
{lid}{functions}  spirv.func @{entry}() "None" {{
    %accv = spirv.Variable : !spirv.ptr<{acc}, Function>
    %kv = spirv.Variable : !spirv.ptr<i32, Function>
{variables}    %A = spirv.mlir.addressof @A : {op_buf}
    %B = spirv.mlir.addressof @B : {op_buf}
    %C = spirv.mlir.addressof @C : {c_buf}
    %idp = spirv.mlir.addressof @wgid : !spirv.ptr<vector<3xi32>, Input>
    %id = spirv.Load "Input" %idp : vector<3xi32>
{lid_load}{block_ids(a)}    %c0 = spirv.Constant 0 : i32
{sizes}    %cbm = spirv.Constant {a.bm} : i32
    %cbn = spirv.Constant {a.bn} : i32
    %row0 = spirv.IMul %by, %cbm : i32
    %col0 = spirv.IMul %bx, %cbn : i32
    %arow = spirv.IMul %row0, %ck : i32
{init}    spirv.Store "Function" %accv, %acci : {acc}
    spirv.Store "Function" %kv, %c0 : i32
{dead_shared_use(a)}{prologue}
    spirv.mlir.loop {{
      spirv.Branch ^header
    ^header:
      %k = spirv.Load "Function" %kv : i32
{loop_vars}      %more = spirv.SLessThan %k, %ck : i32
      spirv.BranchConditional %more, ^body, ^merge
    ^body:
{body}
      spirv.Branch ^continue
    ^continue:
      spirv.Branch ^header
    ^merge:
      spirv.mlir.merge
    }}
{epilogue}
    spirv.Return
  }}
  spirv.EntryPoint "GLCompute" @{entry}, {", ".join(names)}
  spirv.ExecutionMode @{entry} "LocalSize", {a.wg}, 1, 1
}}"""


def dead_shared_decl(a):
    """--dead-shared BYTES: a workgroup array of that size (dead_shared_use)."""
    if not a.dead_shared:
        return ""
    spec = "  spirv.SpecConstant @sc_dead spec_id(9) = false\n" if a.dead_when == "spec" else ""
    return spec + f"  spirv.GlobalVariable @dead : !spirv.ptr<!spirv.array<{a.dead_shared // 4} x f32>, Workgroup>\n"


def dead_shared_use(a):
    """The --dead-shared array, used only by workgroups with a z id of 7, which no launch has: the
    driver must keep the array (the branch is not foldable), and no
    workgroup runs it. Does shared memory beside the workgroup-scope
    matrices slow their loads (the library's kernels have some, for their
    copying path)?"""
    if not a.dead_shared:
        return ""
    arr = f"!spirv.ptr<!spirv.array<{a.dead_shared // 4} x f32>, Workgroup>"
    never = {"runtime": """    %dz = spirv.CompositeExtract %id[2 : i32] : vector<3xi32>
    %d7 = spirv.Constant 7 : i32
    %never = spirv.IEqual %dz, %d7 : i32
""", "literal": "    %never = spirv.Constant false\n",
             "spec": "    %never = spirv.mlir.referenceof @sc_dead : i1\n"}[a.dead_when]
    return never + f"""    spirv.mlir.selection {{
      spirv.BranchConditional %never, ^dead, ^live
    ^dead:
      %dp = spirv.mlir.addressof @dead : {arr}
      %dfirst = spirv.AccessChain %dp[%c0] : {arr}, i32 -> !spirv.ptr<f32, Workgroup>
      %done = spirv.Constant 1.0 : f32
      spirv.Store "Workgroup" %dfirst, %done : f32
      spirv.ControlBarrier <Workgroup>, <Workgroup>, <AcquireRelease|WorkgroupMemory>
      %dlasti = spirv.Constant {a.dead_shared // 4 - 1} : i32
      %dlast = spirv.AccessChain %dp[%dlasti] : {arr}, i32 -> !spirv.ptr<f32, Workgroup>
      %dv = spirv.Load "Workgroup" %dlast : f32
      %dc = spirv.AccessChain %C[%c0, %c0] : {buffer("f32", 4)}, i32, i32 -> !spirv.ptr<f32, StorageBuffer>
      spirv.Store "StorageBuffer" %dc, %dv : f32
      spirv.Branch ^live
    ^live:
      spirv.mlir.merge
    }}
"""


def store_matrix(a):
    """The accumulator into C at this block."""
    acc = matrices(a)[2]
    return f"""    %accf = spirv.Load "Function" %accv : {acc}
    %crow = spirv.IMul %row0, %cn : i32
    %ci = spirv.IAdd %crow, %col0 : i32
    %cp = spirv.AccessChain %C[%c0, %ci] : {buffer('f32', 4)}, i32, i32 -> !spirv.ptr<f32, StorageBuffer>
    spirv.KHR.CooperativeMatrixStore %cp, %accf, %cn, <RowMajor> :
      !spirv.ptr<f32, StorageBuffer>, {acc}, i32"""


def store_tensor(a):
    """The accumulator through a call to the stub @tensor_c, which
    spirv_tensor_loads.py turns into an NV2 tensor-layout store
    over M x N: the parts of the block past M or N are not written."""
    acc = matrices(a)[2]
    return f"""    %accf = spirv.Load "Function" %accv : {acc}
    spirv.FunctionCall @tensor_c(%row0, %col0, %accf) : (i32, i32, {acc}) -> ()"""


def load_matrices(a, k, tag, indent):
    """A's block at K offset `k` as %ma<tag>, B's as %mb<tag>. With --tensor,
    calls to the stubs @tensor_a and @tensor_b that spirv_tensor_loads.py
    turns into NV2 tensor-layout loads of the same blocks."""
    mat_a, mat_b, _ = matrices(a)
    if a.tensor:
        return "\n".join(indent + line for line in (
            f"%ma{tag} = spirv.FunctionCall @tensor_a(%row0, {k}) : (i32, i32) -> {mat_a}",
            f"%mb{tag} = spirv.FunctionCall @tensor_b({k}, %col0) : (i32, i32) -> {mat_b}"))
    f16_buf = buffer(F16, 2)
    access = ", <NonPrivatePointer>" if a.vulkan_memory_model else ""
    return "\n".join(indent + line for line in (
        f"%ai{tag} = spirv.IAdd %arow, {k} : i32",
        f"%ap{tag} = spirv.AccessChain %A[%c0, %ai{tag}] : {f16_buf}, i32, i32 -> !spirv.ptr<f16, StorageBuffer>",
        f"%ma{tag} = spirv.KHR.CooperativeMatrixLoad %ap{tag}, %ck, <RowMajor>{access} : !spirv.ptr<f16, StorageBuffer>, i32 -> {mat_a}",
        f"%bk{tag} = spirv.IMul {k}, %cn : i32",
        f"%bi{tag} = spirv.IAdd %bk{tag}, %col0 : i32",
        f"%bp{tag} = spirv.AccessChain %B[%c0, %bi{tag}] : {f16_buf}, i32, i32 -> !spirv.ptr<f16, StorageBuffer>",
        f"%mb{tag} = spirv.KHR.CooperativeMatrixLoad %bp{tag}, %cn, <RowMajor>{access} : !spirv.ptr<f16, StorageBuffer>, i32 -> {mat_b}"))


def direct(a):
    """A and B loaded from the buffers, `unroll` K steps at a time (or once,
    before the loop, with --no-traffic)."""
    # A tensor store may leave M and N off the block (the runner pads A and
    # B to whole blocks); every other store needs whole blocks.
    assert a.tensor_store or (a.m % a.bm == 0 and a.n % a.bn == 0)
    assert a.k % (a.bk * a.unroll) == 0
    mat_a, mat_b, mat_c = matrices(a)
    consts = "\n".join(f"    %cu{u} = spirv.Constant {u * a.bk} : i32" for u in range(a.unroll))
    loads = "\n".join(f"      %ku{u} = spirv.IAdd %k, %cu{u} : i32\n" +
                      load_matrices(a, f"%ku{u}", u, "      ") for u in range(a.unroll))
    hoisted = ""
    if a.no_traffic:
        hoisted, loads = loads.replace("%k,", "%c0,").replace("\n      ", "\n    ")[2:], ""
    steps = [f'      %acc0 = spirv.Load "Function" %accv : {mat_c}']
    steps += [f"      %acc{u + 1} = spirv.KHR.CooperativeMatrixMulAdd %ma{u}, %mb{u}, %acc{u} :"
              f" {mat_a}, {mat_b} -> {mat_c}" for u in range(a.unroll)]
    steps += [f'      spirv.Store "Function" %accv, %acc{a.unroll} : {mat_c}',
              f"      %kn = spirv.IAdd %k, %step : i32",
              f'      spirv.Store "Function" %kv, %kn : i32']
    stubs = "".join(f"""  spirv.func @tensor_{x}(%r: i32, %c: i32) -> {m} "None" {{
    %u = spirv.Undef : {m}
    spirv.ReturnValue %u : {m}
  }}
""" for x, m in (("a", mat_a), ("b", mat_b))) if a.tensor else ""
    if a.tensor_store:
        stubs += f"""  spirv.func @tensor_c(%r: i32, %c: i32, %v: {mat_c}) "None" {{
    spirv.Return
  }}
"""
    return shell(a, acc=mat_c, functions=stubs,
                 prologue=f"    %step = spirv.Constant {a.bk * a.unroll} : i32\n{consts}\n{hoisted}",
                 body="\n".join(([loads] if loads else []) + steps),
                 epilogue=store_tensor(a) if a.tensor_store else store_matrix(a))


def prefetched(a):
    """The next K step's matrices loaded before this step's multiply-add,
    carried across iterations in variables."""
    mat_a, mat_b, mat_c = matrices(a)
    return shell(
        a, acc=mat_c,
        variables=(f"    %mav = spirv.Variable : !spirv.ptr<{mat_a}, Function>\n"
                   f"    %mbv = spirv.Variable : !spirv.ptr<{mat_b}, Function>\n"),
        prologue=f"""    %cbk = spirv.Constant {a.bk} : i32
    %clast = spirv.Constant {a.k - a.bk} : i32
{load_matrices(a, "%c0", "p", "    ")}
    spirv.Store "Function" %mav, %map : {mat_a}
    spirv.Store "Function" %mbv, %mbp : {mat_b}""",
        body=f"""      %kn = spirv.IAdd %k, %cbk : i32
      %knc = spirv.GL.UMin %kn, %clast : i32
{load_matrices(a, "%knc", "n", "      ")}
      %ma = spirv.Load "Function" %mav : {mat_a}
      %mb = spirv.Load "Function" %mbv : {mat_b}
      %acc = spirv.Load "Function" %accv : {mat_c}
      %accn = spirv.KHR.CooperativeMatrixMulAdd %ma, %mb, %acc : {mat_a}, {mat_b} -> {mat_c}
      spirv.Store "Function" %accv, %accn : {mat_c}
      spirv.Store "Function" %mav, %man : {mat_a}
      spirv.Store "Function" %mbv, %mbn : {mat_b}
      spirv.Store "Function" %kv, %kn : i32""",
        epilogue=store_matrix(a))


def staged(a):
    """A and B copied to shared memory in 16-byte words. The words of the
    K step `depth` steps ahead are loaded into registers before this step's
    multiply-add (depth register sets, the loop unrolled by depth), so that
    many steps' global loads are in flight; with two shared stages one
    barrier per step, with one stage two (depth 1 only)."""
    word_buf = buffer(WORD, 16)
    pa, pb = a.bk // 8 + a.pad, a.bn // 8 + a.pad  # shared row pitch, in words
    sa, sb = a.bm * pa, a.bk * pb                   # words per stage
    na, nb = a.bm * a.bk // 8, a.bk * a.bn // 8     # words copied per step
    depth = a.depth
    assert na % a.wg == 0 and nb % a.wg == 0 and a.stages in (1, 2)
    assert depth >= 1 and (a.stages == 2 or depth == 1) and a.k % (a.bk * depth) == 0
    ca, cb = na // a.wg, nb // a.wg
    sh_a = f"!spirv.ptr<!spirv.array<{a.stages * sa} x {WORD}>, Workgroup>"
    sh_b = f"!spirv.ptr<!spirv.array<{a.stages * sb} x {WORD}>, Workgroup>"
    mat_a, mat_b, mat_c = matrices(a)
    lines = []
    e = lines.append
    n = [0]

    def t():
        n[0] += 1
        return f"%t{n[0]}"

    def const(v):
        r = t()
        e(f"    {r} = spirv.Constant {v} : i32")
        return r

    def op(name, x, y):
        r = t()
        e(f"    {r} = spirv.{name} {x}, {y} : i32")
        return r

    def barrier():
        e("    spirv.ControlBarrier <Workgroup>, <Workgroup>, <AcquireRelease|WorkgroupMemory>")

    def words(count, per_row):  # each copied word's row and word column in the tile
        out = []
        for i in range(count):
            v = op("IAdd", "%tid", const(i * a.wg))
            out.append((op("UDiv", v, const(per_row)), op("UMod", v, const(per_row))))
        return out

    def gload(k, d):  # this thread's words of the tiles at K offset k into register set d
        for regs, tiles, buf, first_row, ld, col in (("ra", wa, "%A", "%row0", a.k, None),
                                                     ("rb", wb, "%B", k, a.n, "%col0w")):
            for i, (r, c) in enumerate(tiles):
                row = op("IAdd", first_row, r)
                start = op("IAdd", op("UDiv", k, const(8)), c) if col is None else \
                    op("IAdd", col, c)
                g = op("IAdd", op("IMul", row, const(ld // 8)), start)
                p, x = t(), t()
                e(f"    {p} = spirv.AccessChain {buf}[%c0, {g}] : {word_buf}, i32, i32 -> !spirv.ptr<{WORD}, StorageBuffer>")
                e(f'    {x} = spirv.Load "StorageBuffer" {p} : {WORD}')
                e(f'    spirv.Store "Function" %{regs}{d}_{i}, {x} : {WORD}')

    def sstore(stage, d):  # register set d into shared stage `stage` (an i32 value)
        for regs, tiles, sh, pitch, size, typ in (("ra", wa, "%As", pa, sa, sh_a),
                                                   ("rb", wb, "%Bs", pb, sb, sh_b)):
            for i, (r, c) in enumerate(tiles):
                at = op("IAdd", op("IMul", stage, const(size)),
                        op("IAdd", op("IMul", r, const(pitch)), c))
                x, p = t(), t()
                e(f'    {x} = spirv.Load "Function" %{regs}{d}_{i} : {WORD}')
                e(f"    {p} = spirv.AccessChain {sh}[{at}] : {typ}, i32 -> !spirv.ptr<{WORD}, Workgroup>")
                e(f'    spirv.Store "Workgroup" {p}, {x} : {WORD}')

    def clamped(k):  # steps past the end reload the last one (valid, unused)
        r = t()
        e(f"    {r} = spirv.GL.UMin {k}, {const(a.k - a.bk)} : i32")
        return r

    e("    %As = spirv.mlir.addressof @As : " + sh_a)
    e("    %Bs = spirv.mlir.addressof @Bs : " + sh_b)
    e("    %tid = spirv.CompositeExtract %lidv[0 : i32] : vector<3xi32>")
    e('    spirv.Store "Function" %sv, %c0 : i32')
    wa, wb = words(ca, a.bk // 8), words(cb, a.bn // 8)
    e(f"    %col0w = spirv.UDiv %col0, {const(8)} : i32")
    for d in range(depth):
        gload(clamped(const(d * a.bk)), d)
    sstore("%c0", 0)
    barrier()
    prologue = "\n".join(lines)
    lines.clear()
    # The loop body: `depth` steps from K offset %k, the first in stage %s.
    other = op("ISub", const(1), "%s") if a.stages == 2 else None  # the other stage
    for j in range(depth):
        kk = op("IAdd", "%k", const(j * a.bk))
        cur, nxt = ("%s", other) if j % 2 == 0 else (other, "%s")
        gload(clamped(op("IAdd", kk, const(depth * a.bk))), j)
        p1, p2 = t(), t()
        e(f"    {p1} = spirv.AccessChain %As[{op('IMul', cur, const(sa))}] : {sh_a}, i32 -> !spirv.ptr<{WORD}, Workgroup>")
        e(f"    {p2} = spirv.AccessChain %Bs[{op('IMul', cur, const(sb))}] : {sh_b}, i32 -> !spirv.ptr<{WORD}, Workgroup>")
        e(f"    %ma{j} = spirv.KHR.CooperativeMatrixLoad {p1}, {const(pa)}, <RowMajor> : !spirv.ptr<{WORD}, Workgroup>, i32 -> {mat_a}")
        e(f"    %mb{j} = spirv.KHR.CooperativeMatrixLoad {p2}, {const(pb)}, <RowMajor> : !spirv.ptr<{WORD}, Workgroup>, i32 -> {mat_b}")
        e(f'    %acc{j} = spirv.Load "Function" %accv : {mat_c}')
        e(f"    %accn{j} = spirv.KHR.CooperativeMatrixMulAdd %ma{j}, %mb{j}, %acc{j} : {mat_a}, {mat_b} -> {mat_c}")
        e(f'    spirv.Store "Function" %accv, %accn{j} : {mat_c}')
        if a.stages == 2:
            sstore(nxt, (j + 1) % depth)
            barrier()
        else:
            barrier()
            sstore("%s", 0)
            barrier()
    if a.stages == 2 and depth % 2 == 1:
        e(f'    spirv.Store "Function" %sv, {other} : i32')
    e(f'    spirv.Store "Function" %kv, {op("IAdd", "%k", const(depth * a.bk))} : i32')
    regs = "".join(f"    %{r}{d}_{i} = spirv.Variable : !spirv.ptr<{WORD}, Function>\n"
                   for d in range(depth) for r, count in (("ra", ca), ("rb", cb))
                   for i in range(count))
    return shell(a, operand=WORD, acc=mat_c, invocation=True,
                 caps="Shader, Float16, CooperativeMatrixKHR", exts="SPV_KHR_cooperative_matrix",
                 shared=f"  spirv.GlobalVariable @As : {sh_a}\n"
                        f"  spirv.GlobalVariable @Bs : {sh_b}\n",
                 variables="    %sv = spirv.Variable : !spirv.ptr<i32, Function>\n" + regs,
                 prologue=prologue,
                 loop_vars='      %s = spirv.Load "Function" %sv : i32\n',
                 body="\n".join("  " + line for line in lines), epilogue=store_matrix(a))


def scalar(a):
    """One element of C per invocation (block 1 x wg), no matrices."""
    f16_buf = buffer(F16, 2)
    return shell(
        a, acc="f32", invocation=True, caps="Shader, Float16, StorageBuffer16BitAccess",
        exts="SPV_KHR_16bit_storage",
        prologue="""    %c1 = spirv.Constant 1 : i32
    %cwg = spirv.Constant {wg} : i32
    %lx = spirv.CompositeExtract %lidv[0 : i32] : vector<3xi32>
    %colb = spirv.IMul %bx, %cwg : i32
    %col = spirv.IAdd %colb, %lx : i32
    %srow = spirv.IMul %by, %ck : i32""".format(wg=a.wg),
        body=f"""      %ai = spirv.IAdd %srow, %k : i32
      %ap = spirv.AccessChain %A[%c0, %ai] : {f16_buf}, i32, i32 -> !spirv.ptr<f16, StorageBuffer>
      %av = spirv.Load "StorageBuffer" %ap : f16
      %bkn = spirv.IMul %k, %cn : i32
      %bi = spirv.IAdd %bkn, %col : i32
      %bp = spirv.AccessChain %B[%c0, %bi] : {f16_buf}, i32, i32 -> !spirv.ptr<f16, StorageBuffer>
      %bv = spirv.Load "StorageBuffer" %bp : f16
      %af = spirv.FConvert %av : f16 to f32
      %bf = spirv.FConvert %bv : f16 to f32
      %p = spirv.FMul %af, %bf : f32
      %acc = spirv.Load "Function" %accv : f32
      %accn = spirv.FAdd %acc, %p : f32
      spirv.Store "Function" %accv, %accn : f32
      %kn = spirv.IAdd %k, %c1 : i32
      spirv.Store "Function" %kv, %kn : i32""",
        epilogue=f"""    %accf = spirv.Load "Function" %accv : f32
    %crow = spirv.IMul %by, %cn : i32
    %ci = spirv.IAdd %crow, %col : i32
    %cp = spirv.AccessChain %C[%c0, %ci] : {buffer('f32', 4)}, i32, i32 -> !spirv.ptr<f32, StorageBuffer>
    spirv.Store "StorageBuffer" %cp, %accf : f32""")


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    for name, default in (("m", 4096), ("n", 4096), ("k", 4096), ("bm", 128),
                          ("bn", 128), ("bk", 32), ("wg", 256), ("unroll", 1)):
        p.add_argument("--" + name, type=int, default=default)
    p.add_argument("--group", type=int, default=0,
                   help="G > 0: workgroups in launch order take G block rows at a time, "
                        "column by column (G must divide M/BM)")
    p.add_argument("--stages", type=int, default=0,
                   help="1 or 2: stage A and B through shared memory ourselves "
                        "(16-byte copies prefetched into registers one K step ahead, "
                        "1 or 2 shared buffers)")
    p.add_argument("--depth", type=int, default=1,
                   help="with --stages 2: load each K step's words this many steps ahead "
                        "(register sets; the K loop unrolled as many times)")
    p.add_argument("--pad", type=int, default=1,
                   help="with --stages: 16-byte words of padding per shared row")
    p.add_argument("--tensor", action="store_true",
                   help="load A and B through NV2 tensor layouts: writes stub calls that "
                        "bench/gemm/spirv_tensor_loads.py rewrites after serialization")
    p.add_argument("--tensor-store", action="store_true",
                   help="store C through an NV2 tensor layout over M x N (a stub call that "
                        "spirv_tensor_loads.py rewrites): M and N need not be "
                        "multiples of the block")
    p.add_argument("--sizes", choices=("baked", "push", "spec"), default="baked",
                   help="K and N (loop bound, offsets, strides) as constants, read from "
                        "push constants or as specialization constants; push and spec "
                        "follow xpujit's ABI (entry gemm; run with the probe's --xpujit)")
    p.add_argument("--prefetch", action="store_true",
                   help="load the next K step's matrices before this step's multiply-add")
    p.add_argument("--vulkan-memory-model", action="store_true",
                   help="the Vulkan memory model, A and B read NonPrivatePointer (as xpujit's "
                        "SPIR-V read them before 2026-12-07)")
    p.add_argument("--dead-shared", type=int, default=0, metavar="BYTES",
                   help="declare a shared array of BYTES that a branch no workgroup takes "
                        "uses (shared memory beside the matrices, as the library's copying "
                        "path has)")
    p.add_argument("--dead-when", choices=("runtime", "literal", "spec"), default="runtime",
                   help="the --dead-shared branch's condition: a workgroup id no launch has, "
                        "a literal false, or a specialization constant (id 9) left false: "
                        "does the driver drop an array whose only use folds away?")
    p.add_argument("--no-traffic", action="store_true",
                   help="load A and B once before the K loop: the multiply-add ceiling "
                        "(the result is wrong by design)")
    p.add_argument("--scalar", action="store_true",
                   help="one element of C per invocation, no matrices (block 1 x wg): "
                        "checks the runner on a device without cooperative matrices")
    a = p.parse_args()
    if a.scalar:
        print(scalar(a))
    elif a.stages:
        print(staged(a))
    elif a.prefetch:
        print(prefetched(a))
    else:
        print(direct(a))


if __name__ == "__main__":
    main()
