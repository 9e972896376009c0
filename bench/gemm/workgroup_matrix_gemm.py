#!/usr/bin/env python3
"""Writes a SPIR-V GEMM (MLIR spirv dialect text) whose matrices have
workgroup scope (VK_NV_cooperative_matrix2's cooperativeMatrixWorkgroupScope):
C (MxN, f32) = A (MxK, f16) * B (KxN, f16), all row-major, one BMxBN block of
C per workgroup, A and B loaded straight from the storage buffers in a K loop
of BK (the driver stages them through shared memory). Sizes are baked in;
bench/gemm/vulkan_gemm_probe.cpp runs the result. It is an experiment: does
workgroup scope lift the Vulkan tier past the subgroup 16x16x16 ceiling?

  workgroup_matrix_gemm.py --m 4096 --n 4096 --k 4096 --bm 128 --bn 128 \
      --bk 32 --wg 256 [--unroll 2] > g.mlir
  mlir-translate --no-implicit-module --serialize-spirv g.mlir -o g.spv
"""
import argparse


def main():
    p = argparse.ArgumentParser()
    for name, default in (("m", 4096), ("n", 4096), ("k", 4096), ("bm", 128),
                          ("bn", 128), ("bk", 32), ("wg", 256), ("unroll", 1)):
        p.add_argument("--" + name, type=int, default=default)
    p.add_argument("--stages", type=int, default=0,
                   help="1 or 2: stage A and B through shared memory ourselves "
                        "(16-byte copies prefetched into registers one K step ahead, "
                        "1 or 2 shared buffers) instead of loading the matrices from "
                        "the storage buffers")
    p.add_argument("--pad", type=int, default=1,
                   help="with --stages: 16-byte words of padding per shared row")
    p.add_argument("--prefetch", action="store_true",
                   help="load the next K step's matrices before this step's multiply-add "
                        "(matrices carried across iterations)")
    p.add_argument("--no-traffic", action="store_true",
                   help="load A and B once before the K loop: the multiply-add ceiling "
                        "(the result is wrong by design)")
    p.add_argument("--scalar", action="store_true",
                   help="one element of C per invocation, no matrices (block 1 x wg): "
                        "checks the runner on a device without cooperative matrices")
    a = p.parse_args()
    if a.scalar:
        print(scalar(a))
        return
    if a.stages:
        print(staged(a))
        return
    if a.prefetch:
        print(prefetched(a))
        return
    assert a.m % a.bm == 0 and a.n % a.bn == 0 and a.k % (a.bk * a.unroll) == 0
    mat_a = f"!spirv.coopmatrix<{a.bm}x{a.bk}xf16, Workgroup, MatrixA>"
    mat_b = f"!spirv.coopmatrix<{a.bk}x{a.bn}xf16, Workgroup, MatrixB>"
    mat_c = f"!spirv.coopmatrix<{a.bm}x{a.bn}xf32, Workgroup, MatrixAcc>"
    buf = lambda t, s: (f"!spirv.ptr<!spirv.struct<(!spirv.rtarray<{t}, stride={s}> [0])>,"
                        " StorageBuffer>")
    body = []
    emit = body.append
    # One K step: load A[row0, k], B[k, col0], accumulate.
    for u in range(a.unroll):
        emit(f"      %ku{u} = spirv.IAdd %k, %cu{u} : i32")
        emit(f"      %ai{u} = spirv.IAdd %arow, %ku{u} : i32")
        emit(f"      %ap{u} = spirv.AccessChain %A[%c0, %ai{u}] : {buf('f16', 2)}, i32, i32"
             " -> !spirv.ptr<f16, StorageBuffer>")
        emit(f"      %ma{u} = spirv.KHR.CooperativeMatrixLoad %ap{u}, %ck, <RowMajor> :"
             f" !spirv.ptr<f16, StorageBuffer>, i32 -> {mat_a}")
        emit(f"      %bk{u} = spirv.IMul %ku{u}, %cn : i32")
        emit(f"      %bi{u} = spirv.IAdd %bk{u}, %col0 : i32")
        emit(f"      %bp{u} = spirv.AccessChain %B[%c0, %bi{u}] : {buf('f16', 2)}, i32, i32"
             " -> !spirv.ptr<f16, StorageBuffer>")
        emit(f"      %mb{u} = spirv.KHR.CooperativeMatrixLoad %bp{u}, %cn, <RowMajor> :"
             f" !spirv.ptr<f16, StorageBuffer>, i32 -> {mat_b}")
    hoisted = ""
    if a.no_traffic:
        hoisted = "\n".join(l.replace("%k,", "%c0,")[2:] for l in body)
        body.clear()
    emit("      %acc0 = spirv.Load \"Function\" %accv : " + mat_c)
    for u in range(a.unroll):
        emit(f"      %acc{u + 1} = spirv.KHR.CooperativeMatrixMulAdd %ma{u}, %mb{u}, %acc{u} :"
             f" {mat_a}, {mat_b} -> {mat_c}")
    emit(f"      spirv.Store \"Function\" %accv, %acc{a.unroll} : {mat_c}")
    unrolled = "\n".join(body)
    cu = "\n".join(f"    %cu{u} = spirv.Constant {u * a.bk} : i32" for u in range(a.unroll))
    print(f"""spirv.module Logical GLSL450 requires #spirv.vce<v1.6,
    [Shader, Float16, StorageBuffer16BitAccess, CooperativeMatrixKHR],
    [SPV_KHR_cooperative_matrix, SPV_KHR_16bit_storage]> {{
  spirv.GlobalVariable @A bind(0, 0) : {buf('f16', 2)}
  spirv.GlobalVariable @B bind(0, 1) : {buf('f16', 2)}
  spirv.GlobalVariable @C bind(0, 2) : {buf('f32', 4)}
  spirv.GlobalVariable @wgid built_in("WorkgroupId") : !spirv.ptr<vector<3xi32>, Input>
  spirv.func @main() "None" {{
    %accv = spirv.Variable : !spirv.ptr<{mat_c}, Function>
    %kv = spirv.Variable : !spirv.ptr<i32, Function>
    %A = spirv.mlir.addressof @A : {buf('f16', 2)}
    %B = spirv.mlir.addressof @B : {buf('f16', 2)}
    %C = spirv.mlir.addressof @C : {buf('f32', 4)}
    %idp = spirv.mlir.addressof @wgid : !spirv.ptr<vector<3xi32>, Input>
    %id = spirv.Load "Input" %idp : vector<3xi32>
    %bx = spirv.CompositeExtract %id[0 : i32] : vector<3xi32>
    %by = spirv.CompositeExtract %id[1 : i32] : vector<3xi32>
    %c0 = spirv.Constant 0 : i32
    %ck = spirv.Constant {a.k} : i32
    %cn = spirv.Constant {a.n} : i32
    %cbm = spirv.Constant {a.bm} : i32
    %cbn = spirv.Constant {a.bn} : i32
    %step = spirv.Constant {a.bk * a.unroll} : i32
{cu}
    %row0 = spirv.IMul %by, %cbm : i32
    %col0 = spirv.IMul %bx, %cbn : i32
    %arow = spirv.IMul %row0, %ck : i32
    %zero = spirv.Constant 0.0 : f32
    %acci = spirv.CompositeConstruct %zero : (f32) -> {mat_c}
    spirv.Store "Function" %accv, %acci : {mat_c}
    spirv.Store "Function" %kv, %c0 : i32
{hoisted}
    spirv.mlir.loop {{
      spirv.Branch ^header
    ^header:
      %k = spirv.Load "Function" %kv : i32
      %more = spirv.SLessThan %k, %ck : i32
      spirv.BranchConditional %more, ^body, ^merge
    ^body:
{unrolled}
      %kn = spirv.IAdd %k, %step : i32
      spirv.Store "Function" %kv, %kn : i32
      spirv.Branch ^continue
    ^continue:
      spirv.Branch ^header
    ^merge:
      spirv.mlir.merge
    }}
    %accf = spirv.Load "Function" %accv : {mat_c}
    %crow = spirv.IMul %row0, %cn : i32
    %ci = spirv.IAdd %crow, %col0 : i32
    %cp = spirv.AccessChain %C[%c0, %ci] : {buf('f32', 4)}, i32, i32 -> !spirv.ptr<f32, StorageBuffer>
    spirv.KHR.CooperativeMatrixStore %cp, %accf, %cn, <RowMajor> :
      !spirv.ptr<f32, StorageBuffer>, {mat_c}, i32
    spirv.Return
  }}
  spirv.EntryPoint "GLCompute" @main, @wgid, @A, @B, @C
  spirv.ExecutionMode @main "LocalSize", {a.wg}, 1, 1
}}""")


def prefetched(a):
    """The direct kernel with the loads of step k+1 issued before the
    multiply-add of step k."""
    mat_a = f"!spirv.coopmatrix<{a.bm}x{a.bk}xf16, Workgroup, MatrixA>"
    mat_b = f"!spirv.coopmatrix<{a.bk}x{a.bn}xf16, Workgroup, MatrixB>"
    mat_c = f"!spirv.coopmatrix<{a.bm}x{a.bn}xf32, Workgroup, MatrixAcc>"
    fbuf = "!spirv.ptr<!spirv.struct<(!spirv.rtarray<f16, stride=2> [0])>, StorageBuffer>"
    cbuf = "!spirv.ptr<!spirv.struct<(!spirv.rtarray<f32, stride=4> [0])>, StorageBuffer>"

    def loads(k, tag, indent):
        return "\n".join(indent + l for l in (
            f"%ai{tag} = spirv.IAdd %arow, {k} : i32",
            f"%ap{tag} = spirv.AccessChain %A[%c0, %ai{tag}] : {fbuf}, i32, i32 -> !spirv.ptr<f16, StorageBuffer>",
            f"%ma{tag} = spirv.KHR.CooperativeMatrixLoad %ap{tag}, %ck, <RowMajor> : !spirv.ptr<f16, StorageBuffer>, i32 -> {mat_a}",
            f"%bk{tag} = spirv.IMul {k}, %cn : i32",
            f"%bi{tag} = spirv.IAdd %bk{tag}, %col0 : i32",
            f"%bp{tag} = spirv.AccessChain %B[%c0, %bi{tag}] : {fbuf}, i32, i32 -> !spirv.ptr<f16, StorageBuffer>",
            f"%mb{tag} = spirv.KHR.CooperativeMatrixLoad %bp{tag}, %cn, <RowMajor> : !spirv.ptr<f16, StorageBuffer>, i32 -> {mat_b}"))

    return f"""spirv.module Logical GLSL450 requires #spirv.vce<v1.6,
    [Shader, Float16, StorageBuffer16BitAccess, CooperativeMatrixKHR],
    [SPV_KHR_cooperative_matrix, SPV_KHR_16bit_storage]> {{
  spirv.GlobalVariable @A bind(0, 0) : {fbuf}
  spirv.GlobalVariable @B bind(0, 1) : {fbuf}
  spirv.GlobalVariable @C bind(0, 2) : {cbuf}
  spirv.GlobalVariable @wgid built_in("WorkgroupId") : !spirv.ptr<vector<3xi32>, Input>
  spirv.func @main() "None" {{
    %accv = spirv.Variable : !spirv.ptr<{mat_c}, Function>
    %mav = spirv.Variable : !spirv.ptr<{mat_a}, Function>
    %mbv = spirv.Variable : !spirv.ptr<{mat_b}, Function>
    %kv = spirv.Variable : !spirv.ptr<i32, Function>
    %A = spirv.mlir.addressof @A : {fbuf}
    %B = spirv.mlir.addressof @B : {fbuf}
    %C = spirv.mlir.addressof @C : {cbuf}
    %idp = spirv.mlir.addressof @wgid : !spirv.ptr<vector<3xi32>, Input>
    %id = spirv.Load "Input" %idp : vector<3xi32>
    %bx = spirv.CompositeExtract %id[0 : i32] : vector<3xi32>
    %by = spirv.CompositeExtract %id[1 : i32] : vector<3xi32>
    %c0 = spirv.Constant 0 : i32
    %ck = spirv.Constant {a.k} : i32
    %cn = spirv.Constant {a.n} : i32
    %cbk = spirv.Constant {a.bk} : i32
    %clast = spirv.Constant {a.k - a.bk} : i32
    %cbm = spirv.Constant {a.bm} : i32
    %cbn = spirv.Constant {a.bn} : i32
    %row0 = spirv.IMul %by, %cbm : i32
    %col0 = spirv.IMul %bx, %cbn : i32
    %arow = spirv.IMul %row0, %ck : i32
    %zero = spirv.Constant 0.0 : f32
    %acci = spirv.CompositeConstruct %zero : (f32) -> {mat_c}
    spirv.Store "Function" %accv, %acci : {mat_c}
    spirv.Store "Function" %kv, %c0 : i32
{loads("%c0", "p", "    ")}
    spirv.Store "Function" %mav, %map : {mat_a}
    spirv.Store "Function" %mbv, %mbp : {mat_b}
    spirv.mlir.loop {{
      spirv.Branch ^header
    ^header:
      %k = spirv.Load "Function" %kv : i32
      %more = spirv.SLessThan %k, %ck : i32
      spirv.BranchConditional %more, ^body, ^merge
    ^body:
      %kn = spirv.IAdd %k, %cbk : i32
      %knc = spirv.GL.UMin %kn, %clast : i32
{loads("%knc", "n", "      ")}
      %ma = spirv.Load "Function" %mav : {mat_a}
      %mb = spirv.Load "Function" %mbv : {mat_b}
      %acc = spirv.Load "Function" %accv : {mat_c}
      %accn = spirv.KHR.CooperativeMatrixMulAdd %ma, %mb, %acc : {mat_a}, {mat_b} -> {mat_c}
      spirv.Store "Function" %accv, %accn : {mat_c}
      spirv.Store "Function" %mav, %man : {mat_a}
      spirv.Store "Function" %mbv, %mbn : {mat_b}
      spirv.Store "Function" %kv, %kn : i32
      spirv.Branch ^continue
    ^continue:
      spirv.Branch ^header
    ^merge:
      spirv.mlir.merge
    }}
    %accf = spirv.Load "Function" %accv : {mat_c}
    %crow = spirv.IMul %row0, %cn : i32
    %ci = spirv.IAdd %crow, %col0 : i32
    %cp = spirv.AccessChain %C[%c0, %ci] : {cbuf}, i32, i32 -> !spirv.ptr<f32, StorageBuffer>
    spirv.KHR.CooperativeMatrixStore %cp, %accf, %cn, <RowMajor> :
      !spirv.ptr<f32, StorageBuffer>, {mat_c}, i32
    spirv.Return
  }}
  spirv.EntryPoint "GLCompute" @main, @wgid, @A, @B, @C
  spirv.ExecutionMode @main "LocalSize", {a.wg}, 1, 1
}}"""


def staged(a):
    """C = A*B with A and B copied to shared memory in 16-byte words (8 f16),
    the next K step's words loaded into registers before this step's
    multiply; with two stages one barrier per step, with one two."""
    V = "vector<4xi32>"
    gbuf = f"!spirv.ptr<!spirv.struct<(!spirv.rtarray<{V}, stride=16> [0])>, StorageBuffer>"
    cbuf = "!spirv.ptr<!spirv.struct<(!spirv.rtarray<f32, stride=4> [0])>, StorageBuffer>"
    pa, pb = a.bk // 8 + a.pad, a.bn // 8 + a.pad  # shared row pitch, in words
    sa, sb = a.bm * pa, a.bk * pb                   # words per stage
    na, nb = a.bm * a.bk // 8, a.bk * a.bn // 8     # words copied per step
    assert na % a.wg == 0 and nb % a.wg == 0 and a.stages in (1, 2)
    ca, cb = na // a.wg, nb // a.wg
    shA = f"!spirv.ptr<!spirv.array<{a.stages * sa} x {V}>, Workgroup>"
    shB = f"!spirv.ptr<!spirv.array<{a.stages * sb} x {V}>, Workgroup>"
    mat_a = f"!spirv.coopmatrix<{a.bm}x{a.bk}xf16, Workgroup, MatrixA>"
    mat_b = f"!spirv.coopmatrix<{a.bk}x{a.bn}xf16, Workgroup, MatrixB>"
    mat_c = f"!spirv.coopmatrix<{a.bm}x{a.bn}xf32, Workgroup, MatrixAcc>"
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

    # Per copied word: its row and word column within the tile (constants of tid).
    def words(count, per_row):
        out = []
        for i in range(count):
            v = op("IAdd", "%tid", const(i * a.wg))
            out.append((op("UDiv", v, const(per_row)), op("UMod", v, const(per_row))))
        return out

    def gload(k):  # this thread's words of the A and B tiles at K offset k, to registers
        for i, (r, c) in enumerate(wa):
            row = op("IAdd", "%row0", r)
            g = op("IAdd", op("IMul", row, const(a.k // 8)), op("IAdd", op("UDiv", k, const(8)), c))
            p = t()
            e(f"    {p} = spirv.AccessChain %A[%c0, {g}] : {gbuf}, i32, i32 -> !spirv.ptr<{V}, StorageBuffer>")
            x = t()
            e(f"    {x} = spirv.Load \"StorageBuffer\" {p} : {V}")
            e(f"    spirv.Store \"Function\" %ra{i}, {x} : {V}")
        for i, (r, c) in enumerate(wb):
            row = op("IAdd", k, r)
            g = op("IAdd", op("IMul", row, const(a.n // 8)), op("IAdd", "%col0w", c))
            p = t()
            e(f"    {p} = spirv.AccessChain %B[%c0, {g}] : {gbuf}, i32, i32 -> !spirv.ptr<{V}, StorageBuffer>")
            x = t()
            e(f"    {x} = spirv.Load \"StorageBuffer\" {p} : {V}")
            e(f"    spirv.Store \"Function\" %rb{i}, {x} : {V}")

    def sstore(stage):  # registers to shared stage `stage` (an i32 value)
        for regs, tiles, sh, pitch, size, typ in (("ra", wa, "%As", pa, sa, shA),
                                                   ("rb", wb, "%Bs", pb, sb, shB)):
            for i, (r, c) in enumerate(tiles):
                at = op("IAdd", op("IMul", stage, const(size)), op("IAdd", op("IMul", r, const(pitch)), c))
                x = t()
                e(f"    {x} = spirv.Load \"Function\" %{regs}{i} : {V}")
                p = t()
                e(f"    {p} = spirv.AccessChain {sh}[{at}] : {typ}, i32 -> !spirv.ptr<{V}, Workgroup>")
                e(f"    spirv.Store \"Workgroup\" {p}, {x} : {V}")

    e(f"    %tid = spirv.CompositeExtract %lidv[0 : i32] : vector<3xi32>")
    wa, wb = words(ca, a.bk // 8), words(cb, a.bn // 8)
    e(f"    %col0w = spirv.UDiv %col0, {const(8)} : i32")
    gload("%c0")
    sstore("%c0")
    barrier()
    prologue = "\n".join(lines)
    lines.clear()
    # The loop body, at K offset %k in stage %s.
    kn = op("IAdd", "%k", const(a.bk))
    last = const(a.k - a.bk)
    knc = t()
    e(f"    {knc} = spirv.GL.UMin {kn}, {last} : i32")  # the last step reloads a valid tile
    gload(knc)
    pa_at = op("IMul", "%s", const(sa))
    pb_at = op("IMul", "%s", const(sb))
    p1, p2 = t(), t()
    e(f"    {p1} = spirv.AccessChain %As[{pa_at}] : {shA}, i32 -> !spirv.ptr<{V}, Workgroup>")
    e(f"    {p2} = spirv.AccessChain %Bs[{pb_at}] : {shB}, i32 -> !spirv.ptr<{V}, Workgroup>")
    e(f"    %ma = spirv.KHR.CooperativeMatrixLoad {p1}, {const(pa)}, <RowMajor> : !spirv.ptr<{V}, Workgroup>, i32 -> {mat_a}")
    e(f"    %mb = spirv.KHR.CooperativeMatrixLoad {p2}, {const(pb)}, <RowMajor> : !spirv.ptr<{V}, Workgroup>, i32 -> {mat_b}")
    e(f"    %acc = spirv.Load \"Function\" %accv : {mat_c}")
    e(f"    %accn = spirv.KHR.CooperativeMatrixMulAdd %ma, %mb, %acc : {mat_a}, {mat_b} -> {mat_c}")
    e(f"    spirv.Store \"Function\" %accv, %accn : {mat_c}")
    if a.stages == 2:
        other = op("ISub", const(1), "%s")
        sstore(other)
        barrier()
        e(f"    spirv.Store \"Function\" %sv, {other} : i32")
    else:
        barrier()
        sstore("%s")
        barrier()
    e(f"    spirv.Store \"Function\" %kv, {kn} : i32")
    body = "\n".join("  " + l for l in lines)
    regs = "\n".join([f"    %ra{i} = spirv.Variable : !spirv.ptr<{V}, Function>" for i in range(ca)] +
                     [f"    %rb{i} = spirv.Variable : !spirv.ptr<{V}, Function>" for i in range(cb)])
    return f"""spirv.module Logical GLSL450 requires #spirv.vce<v1.6,
    [Shader, Float16, CooperativeMatrixKHR], [SPV_KHR_cooperative_matrix]> {{
  spirv.GlobalVariable @A bind(0, 0) : {gbuf}
  spirv.GlobalVariable @B bind(0, 1) : {gbuf}
  spirv.GlobalVariable @C bind(0, 2) : {cbuf}
  spirv.GlobalVariable @As : {shA}
  spirv.GlobalVariable @Bs : {shB}
  spirv.GlobalVariable @wgid built_in("WorkgroupId") : !spirv.ptr<vector<3xi32>, Input>
  spirv.GlobalVariable @lid built_in("LocalInvocationId") : !spirv.ptr<vector<3xi32>, Input>
  spirv.func @main() "None" {{
    %accv = spirv.Variable : !spirv.ptr<{mat_c}, Function>
    %kv = spirv.Variable : !spirv.ptr<i32, Function>
    %sv = spirv.Variable : !spirv.ptr<i32, Function>
{regs}
    %A = spirv.mlir.addressof @A : {gbuf}
    %B = spirv.mlir.addressof @B : {gbuf}
    %C = spirv.mlir.addressof @C : {cbuf}
    %As = spirv.mlir.addressof @As : {shA}
    %Bs = spirv.mlir.addressof @Bs : {shB}
    %idp = spirv.mlir.addressof @wgid : !spirv.ptr<vector<3xi32>, Input>
    %id = spirv.Load "Input" %idp : vector<3xi32>
    %lidp = spirv.mlir.addressof @lid : !spirv.ptr<vector<3xi32>, Input>
    %lidv = spirv.Load "Input" %lidp : vector<3xi32>
    %bx = spirv.CompositeExtract %id[0 : i32] : vector<3xi32>
    %by = spirv.CompositeExtract %id[1 : i32] : vector<3xi32>
    %c0 = spirv.Constant 0 : i32
    %ck = spirv.Constant {a.k} : i32
    %cn = spirv.Constant {a.n} : i32
    %cbm = spirv.Constant {a.bm} : i32
    %cbn = spirv.Constant {a.bn} : i32
    %row0 = spirv.IMul %by, %cbm : i32
    %col0 = spirv.IMul %bx, %cbn : i32
    %zero = spirv.Constant 0.0 : f32
    %acci = spirv.CompositeConstruct %zero : (f32) -> {mat_c}
    spirv.Store "Function" %accv, %acci : {mat_c}
    spirv.Store "Function" %kv, %c0 : i32
    spirv.Store "Function" %sv, %c0 : i32
{prologue}
    spirv.mlir.loop {{
      spirv.Branch ^header
    ^header:
      %k = spirv.Load "Function" %kv : i32
      %s = spirv.Load "Function" %sv : i32
      %more = spirv.SLessThan %k, %ck : i32
      spirv.BranchConditional %more, ^body, ^merge
    ^body:
{body}
      spirv.Branch ^continue
    ^continue:
      spirv.Branch ^header
    ^merge:
      spirv.mlir.merge
    }}
    %accf = spirv.Load "Function" %accv : {mat_c}
    %crow = spirv.IMul %row0, %cn : i32
    %ci = spirv.IAdd %crow, %col0 : i32
    %cp = spirv.AccessChain %C[%c0, %ci] : {cbuf}, i32, i32 -> !spirv.ptr<f32, StorageBuffer>
    spirv.KHR.CooperativeMatrixStore %cp, %accf, %cn, <RowMajor> :
      !spirv.ptr<f32, StorageBuffer>, {mat_c}, i32
    spirv.Return
  }}
  spirv.EntryPoint "GLCompute" @main, @wgid, @lid, @A, @B, @C, @As, @Bs
  spirv.ExecutionMode @main "LocalSize", {a.wg}, 1, 1
}}"""


def scalar(a):
    buf = lambda t, s: (f"!spirv.ptr<!spirv.struct<(!spirv.rtarray<{t}, stride={s}> [0])>,"
                        " StorageBuffer>")
    return f"""spirv.module Logical GLSL450 requires #spirv.vce<v1.6,
    [Shader, Float16, StorageBuffer16BitAccess], [SPV_KHR_16bit_storage]> {{
  spirv.GlobalVariable @A bind(0, 0) : {buf('f16', 2)}
  spirv.GlobalVariable @B bind(0, 1) : {buf('f16', 2)}
  spirv.GlobalVariable @C bind(0, 2) : {buf('f32', 4)}
  spirv.GlobalVariable @wgid built_in("WorkgroupId") : !spirv.ptr<vector<3xi32>, Input>
  spirv.GlobalVariable @lid built_in("LocalInvocationId") : !spirv.ptr<vector<3xi32>, Input>
  spirv.func @main() "None" {{
    %accv = spirv.Variable : !spirv.ptr<f32, Function>
    %kv = spirv.Variable : !spirv.ptr<i32, Function>
    %A = spirv.mlir.addressof @A : {buf('f16', 2)}
    %B = spirv.mlir.addressof @B : {buf('f16', 2)}
    %C = spirv.mlir.addressof @C : {buf('f32', 4)}
    %idp = spirv.mlir.addressof @wgid : !spirv.ptr<vector<3xi32>, Input>
    %id = spirv.Load "Input" %idp : vector<3xi32>
    %lp = spirv.mlir.addressof @lid : !spirv.ptr<vector<3xi32>, Input>
    %l = spirv.Load "Input" %lp : vector<3xi32>
    %bx = spirv.CompositeExtract %id[0 : i32] : vector<3xi32>
    %row = spirv.CompositeExtract %id[1 : i32] : vector<3xi32>
    %lx = spirv.CompositeExtract %l[0 : i32] : vector<3xi32>
    %c0 = spirv.Constant 0 : i32
    %c1 = spirv.Constant 1 : i32
    %ck = spirv.Constant {a.k} : i32
    %cn = spirv.Constant {a.n} : i32
    %cwg = spirv.Constant {a.wg} : i32
    %colb = spirv.IMul %bx, %cwg : i32
    %col = spirv.IAdd %colb, %lx : i32
    %arow = spirv.IMul %row, %ck : i32
    %zero = spirv.Constant 0.0 : f32
    spirv.Store "Function" %accv, %zero : f32
    spirv.Store "Function" %kv, %c0 : i32
    spirv.mlir.loop {{
      spirv.Branch ^header
    ^header:
      %k = spirv.Load "Function" %kv : i32
      %more = spirv.SLessThan %k, %ck : i32
      spirv.BranchConditional %more, ^body, ^merge
    ^body:
      %ai = spirv.IAdd %arow, %k : i32
      %ap = spirv.AccessChain %A[%c0, %ai] : {buf('f16', 2)}, i32, i32 -> !spirv.ptr<f16, StorageBuffer>
      %av = spirv.Load "StorageBuffer" %ap : f16
      %bkn = spirv.IMul %k, %cn : i32
      %bi = spirv.IAdd %bkn, %col : i32
      %bp = spirv.AccessChain %B[%c0, %bi] : {buf('f16', 2)}, i32, i32 -> !spirv.ptr<f16, StorageBuffer>
      %bv = spirv.Load "StorageBuffer" %bp : f16
      %af = spirv.FConvert %av : f16 to f32
      %bf = spirv.FConvert %bv : f16 to f32
      %p = spirv.FMul %af, %bf : f32
      %acc = spirv.Load "Function" %accv : f32
      %accn = spirv.FAdd %acc, %p : f32
      spirv.Store "Function" %accv, %accn : f32
      %kn = spirv.IAdd %k, %c1 : i32
      spirv.Store "Function" %kv, %kn : i32
      spirv.Branch ^continue
    ^continue:
      spirv.Branch ^header
    ^merge:
      spirv.mlir.merge
    }}
    %accf = spirv.Load "Function" %accv : f32
    %crow = spirv.IMul %row, %cn : i32
    %ci = spirv.IAdd %crow, %col : i32
    %cp = spirv.AccessChain %C[%c0, %ci] : {buf('f32', 4)}, i32, i32 -> !spirv.ptr<f32, StorageBuffer>
    spirv.Store "StorageBuffer" %cp, %accf : f32
    spirv.Return
  }}
  spirv.EntryPoint "GLCompute" @main, @wgid, @lid, @A, @B, @C
  spirv.ExecutionMode @main "LocalSize", {a.wg}, 1, 1
}}"""


if __name__ == "__main__":
    main()
