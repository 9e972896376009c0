// Tiles and the matrix multiply-accumulate (issue 15; spec §17.5). Included
// at the end of XPUOps.td.
//
// A tile is a small matrix held *cooperatively by the whole workgroup*: every
// invocation of the workgroup takes part in every tile operation, and how the
// elements are spread over the invocations (registers of a warpgroup, a
// cooperative matrix of a subgroup, workgroup-shared memory) is the tier's
// business and never observable. Hence every tile operation:
//
//   - must be reached by every invocation of the workgroup (workgroup-uniform
//     control flow, as for xpu.barrier: XPU-UC001 otherwise);
//   - must be given the same offsets, strides and scalars in every
//     invocation (workgroup-uniform values: XPU-TILE001 otherwise);
//   - may only appear in a kernel body (not in device helpers), and a tile is
//     never a parameter, a result or an element of a buffer: it is
//     register-resident, never addressable and never a host value.
//
// Roles are never declared: `xpu.mac %c, %a, %b` computes c = a·b + c, and
// the accumulator and operand roles follow from the argument positions.
#ifndef XPU_TILE_OPS_TD
#define XPU_TILE_OPS_TD

def XPU_TileType : TypeDef<XPU_Dialect, "Tile"> {
  let mnemonic = "tile";
  let summary = "a rows x cols matrix fragment held by the workgroup";
  let description = [{
    `!xpu.tile<16x16xf32>`: element type and static shape. Element types:
    i8 and i32, f16, bf16, f32 and f64. Tiles live only inside kernel bodies
    (see the section comment in XPUTileOps.td).
  }];
  let parameters = (ins "int64_t":$rows, "int64_t":$cols,
                        "::mlir::Type":$elementType);
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    int64_t getNumElements() const { return getRows() * getCols(); }
  }];
}

def XPU_AnyTile : Type<CPred<"::llvm::isa<::xpu::TileType>($_self)">,
                       "xpu tile", "::xpu::TileType">;

// No memory effects are declared and none is Pure: like barriers, tile
// operations must not move across control flow.
class XPU_TileOp<string mnemonic, list<Trait> traits = []>
    : XPU_Op<mnemonic, traits # [XPU_RequiresWorkgroupUniformControl]> {
  let hasVerifier = 1;
}

def XPU_TileFillOp : XPU_TileOp<"tile_fill", [
    TypesMatchWith<"the value is the tile's element type", "result", "value",
                   "::llvm::cast<::xpu::TileType>($_self).getElementType()">]> {
  let summary = "a tile with every element set to one value";
  let description = [{
    ```mlir
    %zero = arith.constant 0.0 : f32
    %acc = xpu.tile_fill %zero : !xpu.tile<64x64xf32>
    ```
  }];
  let arguments = (ins AnyType:$value);
  let results = (outs XPU_AnyTile:$result);
  let assemblyFormat = "$value attr-dict `:` qualified(type($result))";
}

def XPU_TileLoadOp : XPU_TileOp<"tile_load"> {
  let summary = "read a tile from a global or shared buffer";
  let description = [{
    Element (i, j) of the tile is `buffer[offset + i * stride + j]`, or with
    `col_major` `buffer[offset + j * stride + i]`: the tile is a window at
    `offset` into a matrix whose rows (columns) are `stride` elements apart.
    Every element must be inside the buffer; under the portable profile an
    element outside it reads as 0 and the launch reports the access.

    ```mlir
    %a = xpu.tile_load %A[%off], %lda : !xpu.buffer<bf16, ro> -> !xpu.tile<128x64xbf16>
    %b = xpu.tile_load %B[%off], %ldb col_major : !xpu.buffer<bf16, ro> -> !xpu.tile<64x128xbf16>
    ```
  }];
  let arguments = (ins XPU_AnyBuffer:$buffer, Index:$offset, Index:$stride,
                       UnitAttr:$col_major, UnitAttr:$checked);
  let results = (outs XPU_AnyTile:$result);
  let assemblyFormat = [{
    $buffer `[` $offset `]` `,` $stride (`col_major` $col_major^)? attr-dict `:`
    qualified(type($buffer)) `->` qualified(type($result))
  }];
}

def XPU_TileStoreOp : XPU_TileOp<"tile_store"> {
  let summary = "write a tile to a global or shared buffer";
  let description = [{
    The inverse of `xpu.tile_load`, with the same addressing. The stride
    must be at least the tile's width (`cols`, or `rows` with `col_major`),
    so that no two elements land on one place; a smaller one is reported as
    an out-of-bounds access and nothing is written.

    ```mlir
    xpu.tile_store %acc, %C[%off], %ldc : !xpu.tile<64x64xf32>, !xpu.buffer<f32>
    ```
  }];
  let arguments = (ins XPU_AnyTile:$value, XPU_AnyBuffer:$buffer, Index:$offset,
                       Index:$stride, UnitAttr:$col_major, UnitAttr:$checked);
  let assemblyFormat = [{
    $value `,` $buffer `[` $offset `]` `,` $stride (`col_major` $col_major^)?
    attr-dict `:` qualified(type($value)) `,` qualified(type($buffer))
  }];
}

def XPU_MacOp : XPU_TileOp<"mac", [AllTypesMatch<["c", "result"]>]> {
  let summary = "matrix multiply-accumulate: c = a·b + c";
  let description = [{
    `c` is M x N, `a` M x K, `b` K x N. Element types (operands ->
    accumulator): f16 -> f32, bf16 -> f32, f32 -> f32, i8 -> i32 (exact,
    wrapping) and f64 -> f64. Float products and sums round as the tier
    does (tensor cores keep products exact and accumulate in at least the
    accumulator's precision); `tf32` lets f32 operands be rounded to TF32
    (10 explicit mantissa bits) where a tensor-core tier does so; without it
    an f32 mac is never computed in reduced precision.

    ```mlir
    %c2 = xpu.mac %c, %a, %b : !xpu.tile<64x64xf32>, !xpu.tile<64x32xbf16>, !xpu.tile<32x64xbf16>
    ```
  }];
  let arguments = (ins XPU_AnyTile:$c, XPU_AnyTile:$a, XPU_AnyTile:$b,
                       UnitAttr:$tf32);
  let results = (outs XPU_AnyTile:$result);
  let assemblyFormat = [{
    $c `,` $a `,` $b (`tf32` $tf32^)? attr-dict `:` qualified(type($c)) `,`
    qualified(type($a)) `,` qualified(type($b))
  }];
}

def XPU_TileScaleOp : XPU_TileOp<"tile_scale", [AllTypesMatch<["tile", "result"]>,
    TypesMatchWith<"the scale is the tile's element type", "tile", "scale",
                   "::llvm::cast<::xpu::TileType>($_self).getElementType()">]> {
  let summary = "every element multiplied by one scalar";
#ifdef XPU_DOC_EXAMPLES
  let description = [{
    ```mlir
    %s = xpu.tile_scale %acc, %alpha : !xpu.tile<64x64xf32>
    ```
  }];
#endif
  let arguments = (ins XPU_AnyTile:$tile, AnyType:$scale);
  let results = (outs XPU_AnyTile:$result);
  let assemblyFormat = "$tile `,` $scale attr-dict `:` qualified(type($tile))";
}

def XPU_TileAddOp : XPU_TileOp<"tile_add", [AllTypesMatch<["lhs", "rhs", "result"]>]> {
  let summary = "elementwise sum of two tiles of one type";
#ifdef XPU_DOC_EXAMPLES
  let description = [{
    ```mlir
    %r = xpu.tile_add %acc, %bias : !xpu.tile<64x64xf32>
    ```
  }];
#endif
  let arguments = (ins XPU_AnyTile:$lhs, XPU_AnyTile:$rhs);
  let results = (outs XPU_AnyTile:$result);
  let assemblyFormat = "$lhs `,` $rhs attr-dict `:` qualified(type($lhs))";
}

def XPU_TileConvertOp : XPU_TileOp<"tile_convert"> {
  let summary = "convert every element to another element type";
  let description = [{
    Between float types (rounding to nearest even when narrowing), and from
    i32 to a float type. The shape stays.

    ```mlir
    %h = xpu.tile_convert %acc : !xpu.tile<64x64xf32> -> !xpu.tile<64x64xbf16>
    ```
  }];
  let arguments = (ins XPU_AnyTile:$tile);
  let results = (outs XPU_AnyTile:$result);
  let assemblyFormat = [{
    $tile attr-dict `:` qualified(type($tile)) `->` qualified(type($result))
  }];
}

// Lowering only (made by xpu-lower-tiles on the LLVM GPU targets): whether
// an element's address is a multiple of `bytes`, so the tile copies may use
// wide loads and stores (which a GPU faults on when misaligned).
def XPU_AlignedOp : XPU_Op<"aligned", [XPU_LoweringOnly, Pure]> {
  let summary = "whether buffer[index] lies at a multiple of `bytes` (lowering only)";
#ifdef XPU_DOC_EXAMPLES
  let description = [{
    ```mlir
    %ok = xpu.aligned %buf[%i] {bytes = 16 : i64} : !xpu.buffer<f16, ro>
    ```
  }];
#endif
  let arguments = (ins XPU_AnyBuffer:$buffer, Index:$index, I64Attr:$bytes);
  let results = (outs I1:$result);
  let assemblyFormat = "$buffer `[` $index `]` attr-dict `:` qualified(type($buffer))";
  let builders = [OpBuilder<(ins "::mlir::Value":$buffer, "::mlir::Value":$index,
                                 "int64_t":$bytes), [{
    build($_builder, $_state, $_builder.getI1Type(), buffer, index,
          $_builder.getI64IntegerAttr(bytes));
  }]>];
}

// Lowering only (made by xpu-lower-tiles for the mma.sync tier): ldmatrix.
def XPU_MatrixLoadOp : XPU_Op<"matrix_load", [XPU_LoweringOnly]> {
  let summary = "a warp's ldmatrix of 8x8 16-bit matrices from shared memory (lowering only)";
#ifdef XPU_DOC_EXAMPLES
  let description = [{
    Every invocation of a warp executes it; lane l gives, at `index`, the
    first of the eight contiguous elements of row l % 8 of matrix l / 8,
    and receives one 32-bit word of each matrix: elements (l / 4, 2 (l % 4))
    and the next, or with `transpose` the matrix's elements (2 (l % 4),
    l / 4) and (2 (l % 4) + 1, l / 4). Two or four matrices.

    ```mlir
    %w = xpu.matrix_load %s[%i] transpose : !xpu.buffer<2048xbf16, shared> -> vector<4xi32>
    ```
  }];
#endif
  let arguments = (ins XPU_AnyBuffer:$buffer, Index:$index, UnitAttr:$transpose);
  let results = (outs VectorOfLengthAndType<[2, 4], [I32]>:$result);
  let assemblyFormat = [{
    $buffer `[` $index `]` (`transpose` $transpose^)? attr-dict `:` qualified(type($buffer))
    `->` type($result)
  }];
}

// Lowering only (made by xpu-lower-tiles for the wgmma tier): one
// warpgroup's wgmma.mma_async steps on operands in shared memory, issued
// and waited for as one unit, so nothing reads the sums while they are in
// flight (or, `no_wait`, waited for by an xpu.warpgroup_wait of its
// results).
def XPU_WarpgroupMmaOp : XPU_Op<"warpgroup_mma", [XPU_LoweringOnly, AttrSizedOperandSegments]> {
  let summary = "a warpgroup's D = A·B + D in m64nNk16 wgmma steps (lowering only)";
#ifdef XPU_DOC_EXAMPLES
  let description = [{
    The 128 invocations of a warpgroup execute it together. `acc` holds
    the invocation's `rows` x (n / 2) sums: block i (of `rows` 64-row
    blocks) in wgmma's D-fragment order. Step (i, s), for s < `steps`, is
    one `wgmma.mma_async...m64n<n>k16` on block i with A described at
    element `a_index[i * steps + s]` of `a` and B at `b_index[s]` of `b`,
    each operand's descriptor built from its attributes: `*_lbo` and
    `*_sbo` (bytes), `*_swizzle` (32, 64 or 128 bytes) and `*_transpose`
    (the operand's non-K dimension contiguous). The buffers must be
    aligned to 8 x swizzle bytes. With `no_wait` the steps are committed
    and left in flight: an `xpu.warpgroup_wait` of the results waits.

    ```mlir
    %r:4 = xpu.warpgroup_mma %d0, %d1, %d2, %d3, %a[%ai], %b[%bi] {n = 8 : i64,
        rows = 1 : i64, steps = 1 : i64, a_lbo = 16 : i64, a_sbo = 256 : i64,
        a_swizzle = 32 : i64, b_lbo = 16 : i64, b_sbo = 256 : i64, b_swizzle = 32 : i64}
        : !xpu.buffer<1024xbf16, shared>, !xpu.buffer<128xbf16, shared>
        -> f32, f32, f32, f32
    ```
  }];
#endif
  let arguments = (ins Variadic<F32>:$acc, XPU_AnyBuffer:$a, Variadic<Index>:$a_index,
                       XPU_AnyBuffer:$b, Variadic<Index>:$b_index, I64Attr:$n,
                       I64Attr:$rows, I64Attr:$steps, I64Attr:$a_lbo, I64Attr:$a_sbo,
                       I64Attr:$a_swizzle, UnitAttr:$a_transpose, I64Attr:$b_lbo,
                       I64Attr:$b_sbo, I64Attr:$b_swizzle, UnitAttr:$b_transpose,
                       UnitAttr:$no_wait);
  let results = (outs Variadic<F32>:$result);
  let assemblyFormat = [{
    $acc `,` $a `[` $a_index `]` `,` $b `[` $b_index `]` attr-dict `:`
    qualified(type($a)) `,` qualified(type($b)) `->` type($result)
  }];
  let hasVerifier = 1;
}

// Lowering only (made by xpu-lower-tiles): the wait that a `no_wait`
// xpu.warpgroup_mma leaves to later code.
def XPU_WarpgroupWaitOp : XPU_Op<"warpgroup_wait", [XPU_LoweringOnly, AllTypesMatch<["acc", "result"]>]> {
  let summary = "waits for a warpgroup's pending wgmma steps (lowering only)";
#ifdef XPU_DOC_EXAMPLES
  let description = [{
    `wgmma.wait_group pending`: all but the `pending` newest groups of the
    warpgroup's wgmma steps issued by `xpu.warpgroup_mma ... {no_wait}`
    are complete. With 0 its results are the sums they wrote (`acc`, the
    results of those ops); with 1 they are the sums of the newest group,
    still being written, which only a chained `xpu.warpgroup_mma` may take
    before a later wait. Code between runs while the tensor cores work and
    must not touch the sums (ptxas serializes the steps where it does).

    ```mlir
    %s:4 = xpu.warpgroup_wait %d0, %d1, %d2, %d3 : f32, f32, f32, f32
    ```
  }];
#endif
  let arguments = (ins Variadic<F32>:$acc, DefaultValuedAttr<I64Attr, "0">:$pending);
  let results = (outs Variadic<F32>:$result);
  let assemblyFormat = "$acc attr-dict `:` type($result)";
}

// Lowering only (made by xpu-lower-tiles for the int8 dot tier): the dot
// product of two vector<4xi8>, widened exactly, plus a wrapping i32 add.
def XPU_Dot4I8Op : XPU_Op<"dot4_i8", [XPU_LoweringOnly, Pure, AllTypesMatch<["a", "b"]>]> {
  let summary = "acc + a·b of four signed 8-bit lanes (lowering only)";
#ifdef XPU_DOC_EXAMPLES
  let description = [{
    ```mlir
    %r = xpu.dot4_i8 %a, %b, %acc : vector<4xi8>
    ```
  }];
#endif
  let arguments = (ins VectorOfLengthAndType<[4], [I8]>:$a,
                       VectorOfLengthAndType<[4], [I8]>:$b, I32:$acc);
  let results = (outs I32:$result);
  let assemblyFormat = "$a `,` $b `,` $acc attr-dict `:` type($a)";
}

// Lowering only (made by xpu-lower-tiles for the cooperative-matrix tier on
// SPIR-V): a subgroup's sums, `count` 16x16 f32 cooperative matrices that
// stay in registers from the first fill through the K loop to the store.
// The matrices form the subgroup's holder tile of `rows` x (count / rows)
// blocks, row-major; the ops below name the holder tile's first element in
// a row-major buffer with `ld` elements per row. `workgroup`: the sums are
// instead one (16 rows) x (16 cols) matrix of workgroup scope
// (VK_NV_cooperative_matrix2), held by the whole workgroup.
def XPU_CoopSumsType : TypeDef<XPU_Dialect, "CoopSums"> {
  let mnemonic = "coop_sums";
  let summary = "a subgroup's 16x16 f32 cooperative-matrix sums (lowering only)";
  let parameters = (ins "int64_t":$rows, "int64_t":$cols,
                        DefaultValuedParameter<"bool", "false">:$workgroup);
  let assemblyFormat = "`<` $rows `,` $cols (`,` `workgroup` `=` $workgroup^)? `>`";
  let extraClassDeclaration = [{
    int64_t getCount() const { return getRows() * getCols(); }
  }];
}

def XPU_CoopSums : Type<CPred<"::llvm::isa<::xpu::CoopSumsType>($_self)">,
                        "cooperative-matrix sums", "::xpu::CoopSumsType">;

// Lowering only: new sums, undefined until filled, loaded or copied.
def XPU_CoopSumsAllocOp : XPU_Op<"coop_sums_alloc", [XPU_LoweringOnly]> {
  let summary = "a subgroup's cooperative-matrix sums (lowering only)";
#ifdef XPU_DOC_EXAMPLES
  let description = [{
    ```mlir
    %s = xpu.coop_sums_alloc : !xpu.coop_sums<2, 2>
    ```
  }];
#endif
  let results = (outs XPU_CoopSums:$sums);
  let assemblyFormat = "attr-dict `:` qualified(type($sums))";
}

// Lowering only: every sum set to `value`.
def XPU_CoopSumsFillOp : XPU_Op<"coop_sums_fill", [XPU_LoweringOnly]> {
  let summary = "sets every element of a subgroup's sums (lowering only)";
#ifdef XPU_DOC_EXAMPLES
  let description = [{
    ```mlir
    xpu.coop_sums_fill %s, %zero : !xpu.coop_sums<2, 2>
    ```
  }];
#endif
  let arguments = (ins XPU_CoopSums:$sums, F32:$value);
  let assemblyFormat = "$sums `,` $value attr-dict `:` qualified(type($sums))";
}

// Lowering only: dest's matrices = src's.
def XPU_CoopSumsCopyOp : XPU_Op<"coop_sums_copy", [XPU_LoweringOnly, AllTypesMatch<["src", "dest"]>]> {
  let summary = "copies a subgroup's sums (lowering only)";
#ifdef XPU_DOC_EXAMPLES
  let description = [{
    ```mlir
    xpu.coop_sums_copy %s -> %t : !xpu.coop_sums<2, 2>
    ```
  }];
#endif
  let arguments = (ins XPU_CoopSums:$src, XPU_CoopSums:$dest);
  let assemblyFormat = "$src `->` $dest attr-dict `:` qualified(type($src))";
}

// Lowering only: moves the sums' holder tile between the sums and a buffer
// (load: into the sums; store: into the buffer), `stride` elements from one
// row (col_major: column) to the next; `only`: matrix `only` alone, as the
// 16x16 block at `offset`.
class XPU_CoopSumsMoveOp<string mnemonic, string brief>
    : XPU_Op<mnemonic, [XPU_LoweringOnly]> {
  let summary = brief;
  let arguments = (ins XPU_CoopSums:$sums, XPU_AnyBuffer:$buffer, Index:$offset,
                       Index:$stride, UnitAttr:$col_major, OptionalAttr<I64Attr>:$only);
  let assemblyFormat = [{
    $sums `,` $buffer `[` $offset `]` `,` $stride (`col_major` $col_major^)? attr-dict `:`
    qualified(type($sums)) `,` qualified(type($buffer))
  }];
  let hasVerifier = 1;
}

def XPU_CoopSumsLoadOp : XPU_CoopSumsMoveOp<"coop_sums_load",
    "loads a subgroup's sums from a buffer (lowering only)"> {
#ifdef XPU_DOC_EXAMPLES
  let description = [{
    Matrix (i, j) of the sums takes the 16x16 block at `offset + 16 i
    stride + 16 j` (col_major: `offset + 16 j stride + 16 i`, stored by
    columns).

    ```mlir
    xpu.coop_sums_load %s, %c[%o], %ld : !xpu.coop_sums<2, 2>,
        !xpu.buffer<4096xf32, shared>
    ```
  }];
#endif
}

def XPU_CoopSumsStoreOp : XPU_CoopSumsMoveOp<"coop_sums_store",
    "stores a subgroup's sums into a buffer (lowering only)"> {
#ifdef XPU_DOC_EXAMPLES
  let description = [{
    Matrix (i, j) of the sums goes to the 16x16 block at `offset + 16 i
    stride + 16 j` (col_major: `offset + 16 j stride + 16 i`, stored by
    columns).

    ```mlir
    xpu.coop_sums_store %s, %C[%o], %n : !xpu.coop_sums<2, 2>, !xpu.buffer<f32>
    ```
  }];
#endif
}

// Lowering only: how many elements of the sums this invocation holds (the
// elements' order and places are the implementation's; the same for every
// sums of one type).
def XPU_CoopSumsLengthOp : XPU_Op<"coop_sums_length", [XPU_LoweringOnly]> {
  let summary = "how many elements of sums an invocation holds (lowering only)";
#ifdef XPU_DOC_EXAMPLES
  let description = [{
    ```mlir
    %n = xpu.coop_sums_length %s : !xpu.coop_sums<8, 8, workgroup = true>
    ```
  }];
#endif
  let arguments = (ins XPU_CoopSums:$sums);
  let results = (outs Index:$length);
  let assemblyFormat = "$sums attr-dict `:` qualified(type($sums))";
}

// Lowering only: this invocation's element `index` of the sums. Sums loaded
// with stride 0 from 0, 1, 2, ... (row-major: each element's column;
// col_major: its row) say where each element lies.
def XPU_CoopSumsElementOp : XPU_Op<"coop_sums_element", [XPU_LoweringOnly]> {
  let summary = "one of the elements of sums an invocation holds (lowering only)";
#ifdef XPU_DOC_EXAMPLES
  let description = [{
    ```mlir
    %v = xpu.coop_sums_element %s[%i] : !xpu.coop_sums<8, 8, workgroup = true>
    ```
  }];
#endif
  let arguments = (ins XPU_CoopSums:$sums, Index:$index);
  let results = (outs F32:$value);
  let assemblyFormat = "$sums `[` $index `]` attr-dict `:` qualified(type($sums))";
}

// Lowering only (the cooperative-matrix tier's operand copies of a K loop,
// one iteration ahead): `count` 16x16 f16 cooperative matrices of a
// subgroup, held in registers between a load from global memory and a
// store into shared memory.
def XPU_CoopBlocksType : TypeDef<XPU_Dialect, "CoopBlocks"> {
  let mnemonic = "coop_blocks";
  let summary = "a subgroup's 16x16 f16 cooperative matrices in flight (lowering only)";
  let parameters = (ins "int64_t":$count);
  let assemblyFormat = "`<` $count `>`";
}

def XPU_CoopBlocks : Type<CPred<"::llvm::isa<::xpu::CoopBlocksType>($_self)">,
                          "cooperative-matrix blocks", "::xpu::CoopBlocksType">;

def XPU_CoopBlocksAllocOp : XPU_Op<"coop_blocks_alloc", [XPU_LoweringOnly]> {
  let summary = "a subgroup's f16 cooperative matrices in flight (lowering only)";
#ifdef XPU_DOC_EXAMPLES
  let description = [{
    ```mlir
    %r = xpu.coop_blocks_alloc : !xpu.coop_blocks<2>
    ```
  }];
#endif
  let results = (outs XPU_CoopBlocks:$blocks);
  let assemblyFormat = "attr-dict `:` qualified(type($blocks))";
}

// Lowering only: block `index` takes the 16x16 block at `offset` of `src`
// (`stride` elements between rows; col_major: between columns).
def XPU_CoopBlocksLoadOp : XPU_Op<"coop_blocks_load", [XPU_LoweringOnly]> {
  let summary = "loads one of a subgroup's f16 cooperative matrices (lowering only)";
#ifdef XPU_DOC_EXAMPLES
  let description = [{
    ```mlir
    xpu.coop_blocks_load %r[0], %A[%o], %k : !xpu.coop_blocks<2>, !xpu.buffer<f16, ro>
    ```
  }];
#endif
  let arguments = (ins XPU_CoopBlocks:$blocks, I64Attr:$index, XPU_AnyBuffer:$src,
                       Index:$offset, Index:$stride, UnitAttr:$col_major);
  let assemblyFormat = [{
    $blocks `[` $index `]` `,` $src `[` $offset `]` `,` $stride (`col_major` $col_major^)?
    attr-dict `:` qualified(type($blocks)) `,` qualified(type($src))
  }];
  let hasVerifier = 1;
}

// Lowering only: block `index` stored row-major at `offset` of `dest`, `ld`
// elements from one row to the next.
def XPU_CoopBlocksStoreOp : XPU_Op<"coop_blocks_store", [XPU_LoweringOnly]> {
  let summary = "stores one of a subgroup's f16 cooperative matrices (lowering only)";
#ifdef XPU_DOC_EXAMPLES
  let description = [{
    ```mlir
    xpu.coop_blocks_store %r[0] -> %a[%d] {ld = 24 : i64} : !xpu.coop_blocks<2>,
        !xpu.buffer<3072xf16, shared>
    ```
  }];
#endif
  let arguments = (ins XPU_CoopBlocks:$blocks, I64Attr:$index, XPU_AnyBuffer:$dest,
                       Index:$offset, I64Attr:$ld);
  let assemblyFormat = [{
    $blocks `[` $index `]` `->` $dest `[` $offset `]` attr-dict `:` qualified(type($blocks))
    `,` qualified(type($dest))
  }];
  let hasVerifier = 1;
}

// Lowering only: a 16x16 f16 block copied through one cooperative matrix (a
// subgroup's wide loads and stores in place of 256 element copies).
def XPU_CoopBlockCopyOp : XPU_Op<"coop_block_copy", [XPU_LoweringOnly]> {
  let summary = "a subgroup copies a 16x16 f16 block through a cooperative matrix (lowering only)";
#ifdef XPU_DOC_EXAMPLES
  let description = [{
    For r, c < 16: `dest[dest_offset + r ld + c] = src[src_offset + r
    src_stride + c]` (col_major: `src[src_offset + c src_stride + r]`).
    Every invocation of a subgroup executes it with the same operands.

    ```mlir
    xpu.coop_block_copy %A[%o], %k -> %a[%d] {ld = 40 : i64} : !xpu.buffer<f16, ro>,
        !xpu.buffer<5120xf16, shared>
    ```
  }];
#endif
  let arguments = (ins XPU_AnyBuffer:$src, Index:$src_offset, Index:$src_stride,
                       UnitAttr:$col_major, XPU_AnyBuffer:$dest, Index:$dest_offset,
                       I64Attr:$ld);
  let assemblyFormat = [{
    $src `[` $src_offset `]` `,` $src_stride (`col_major` $col_major^)? `->` $dest `[`
    $dest_offset `]` attr-dict `:` qualified(type($src)) `,` qualified(type($dest))
  }];
  let hasVerifier = 1;
}

// Lowering only: the sums' share of a mac, with the operands in row-major
// buffers (the tiles' shared storage).
def XPU_CoopSumsMacOp : XPU_Op<"coop_sums_mac", [XPU_LoweringOnly, AttrSizedOperandSegments]> {
  let summary = "a subgroup's sums += a·b with cooperative matrices (lowering only)";
#ifdef XPU_DOC_EXAMPLES
  let description = [{
    For the sums' matrix (i, j) and its elements (r, c) < 16: `sums(i, j)[r,
    c] += sum over k < K of a[a_offset + (16 i + r) lda + k] * b[b_offset +
    k ldb + 16 j + c]`, in K/16 steps of 16x16x16 cooperative-matrix
    multiply-adds (f16 operands, f32 sums); each step loads the rows x 16
    blocks of A and the 16 x cols blocks of B once. Every invocation of a
    subgroup executes it with the same operands (subgroup-uniform control
    flow). Workgroup sums: one multiply-add of the whole rows x K A and
    K x cols B, every invocation of the workgroup with the same operands;
    `a_stride` (`b_stride`), when given, replaces lda (ldb) and A (B) may
    then be a storage buffer, read where its rows start 16-byte aligned.

    ```mlir
    xpu.coop_sums_mac %s, %a[%ao], %b[%bo] {k = 32 : i64, lda = 32 : i64,
        ldb = 64 : i64} : !xpu.coop_sums<2, 2>, !xpu.buffer<2048xf16, shared>,
        !xpu.buffer<2048xf16, shared>
    ```
  }];
#endif
  let arguments = (ins XPU_CoopSums:$sums, XPU_AnyBuffer:$a, Index:$a_offset,
                       XPU_AnyBuffer:$b, Index:$b_offset, I64Attr:$k, I64Attr:$lda,
                       I64Attr:$ldb, Optional<Index>:$a_stride, Optional<Index>:$b_stride);
  let assemblyFormat = [{
    $sums `,` $a `[` $a_offset `]` (`stride` $a_stride^)? `,` $b `[` $b_offset `]`
    (`stride` $b_stride^)? attr-dict `:`
    qualified(type($sums)) `,` qualified(type($a)) `,` qualified(type($b))
  }];
  let hasVerifier = 1;
}

#endif // XPU_TILE_OPS_TD
