"""How to run each kernel of corpus/ and what it must compute: for each
kernel, a function of a NumPy random generator that returns a Case (launch
shape, arguments, and the host reference of every output)."""
import dataclasses

import numpy as np

I32 = np.int32


@dataclasses.dataclass
class Case:
    grid: tuple
    block: tuple
    args: list                # NumPy arrays (copied in and out), scalars, views
    expect: dict              # argument index -> the array it must hold after
    dynamic_shared: int = 0
    # Float outputs: index -> (rtol, atol); everything else must be equal.
    tolerance: dict = dataclasses.field(default_factory=dict)
    # Outputs whose values depend on the device (wave width): index ->
    # function(array) asserting what does not.
    invariants: dict = dataclasses.field(default_factory=dict)


def ints(rng, shape, lo=-1000, hi=1000):
    return rng.integers(lo, hi, shape).astype(I32)


def wrap(a):
    """int32 arithmetic as the kernels do it (two's complement)."""
    return np.asarray(a).astype(np.int64).astype(np.uint32).astype(I32)


def ceil_div(a, b):
    return (a + b - 1) // b


def vector_add(rng):
    n = int(rng.integers(1000, 5000))
    a, b = ints(rng, n), ints(rng, n)
    return Case((ceil_div(n, 128),), (128,), [np.zeros(n, I32), a, b], {0: a + b})


def saxpy_index(rng):
    n = int(rng.integers(1000, 5000))
    x = rng.uniform(-1, 1, n).astype(np.float32)
    y = rng.uniform(-1, 1, n).astype(np.float32)
    a = np.float32(rng.uniform(-2, 2))
    return Case((ceil_div(n, 64) + 1,), (64,), [y.copy(), x, a, n], {0: a * x + y})


def reduce_shared_tree(rng):
    n = int(rng.integers(2000, 9000))
    x = ints(rng, n)
    groups = ceil_div(n, 256)
    pad = np.zeros(groups * 256, I32)
    pad[:n] = x
    return Case((groups,), (256,), [np.zeros(groups, I32), x, n],
                {0: wrap(pad.reshape(groups, 256).astype(np.int64).sum(1))})


def reduce_all_reduce(rng):
    groups, size = int(rng.integers(3, 9)), 128
    x = ints(rng, groups * size, -2**31, 2**31 - 1)
    g = x.reshape(groups, size)
    return Case((groups,), (size,), [np.zeros(groups, I32), np.zeros(groups, I32),
                                     np.zeros(groups, I32), x],
                {0: wrap(g.astype(np.int64).sum(1)), 1: g.min(1),
                 2: np.bitwise_xor.reduce(g, axis=1)})


def reduce_region(rng):
    groups, size = int(rng.integers(3, 9)), 64
    x = ints(rng, groups * size, -2**31, 2**31 - 1)
    m = x.view(np.uint32).reshape(groups, size).max(1).view(I32)
    return Case((groups,), (size,), [np.zeros(groups * size, I32), x],
                {0: np.repeat(m, size)})


def histogram_global(rng):
    n = int(rng.integers(3000, 9000))
    x = ints(rng, n, 0, 1 << 20)
    return Case((ceil_div(n, 256),), (256,), [np.zeros(64, I32), x, n],
                {0: np.bincount(x & 63, minlength=64).astype(I32)})


def histogram_shared(rng):
    n = int(rng.integers(3000, 9000))
    x = ints(rng, n, 0, 1 << 20)
    return Case((ceil_div(n, 128),), (128,), [np.zeros(32, I32), x, n],
                {0: np.bincount(x & 31, minlength=32).astype(I32)})


def scan_inclusive(rng):
    groups = int(rng.integers(2, 9))
    x = ints(rng, groups * 128)
    return Case((groups,), (128,), [np.zeros_like(x), x],
                {0: np.cumsum(x.reshape(groups, 128), 1).astype(I32).ravel()})


def scan_exclusive(rng):
    groups = int(rng.integers(2, 9))
    x = ints(rng, groups * 64).reshape(groups, 64)
    ex = np.cumsum(x, 1) - x
    return Case((groups,), (64,), [np.zeros(x.size, I32), x.ravel()],
                {0: ex.astype(I32).ravel()})


def transpose_attribution(rng):
    r, c = int(rng.integers(20, 90)), int(rng.integers(20, 90))
    x = ints(rng, (r, c))
    return Case((ceil_div(c, 16), ceil_div(r, 16)), (16, 16),
                [np.zeros((c, r), I32), x], {0: x.T.copy()})


def transpose_alloca(rng):
    r, c = int(rng.integers(20, 90)), int(rng.integers(20, 90))
    x = ints(rng, (r, c))
    return Case((ceil_div(c, 16), ceil_div(r, 16)), (16, 16),
                [np.zeros(c * r, I32), x.ravel(), r, c], {0: x.T.ravel()})


def matmul_naive(rng):
    m, k, n = (int(v) for v in rng.integers(5, 40, 3))
    a, b = ints(rng, (m, k), -50, 50), ints(rng, (k, n), -50, 50)
    return Case((ceil_div(n, 8), ceil_div(m, 8)), (8, 8), [np.zeros((m, n), I32), a, b],
                {0: (a.astype(np.int64) @ b).astype(I32)})


def matmul_tiled(rng):
    m, k, n = (16 * int(v) for v in rng.integers(1, 4, 3))
    a, b = ints(rng, (m, k), -50, 50), ints(rng, (k, n), -50, 50)
    return Case((n // 16, m // 16), (16, 16), [np.zeros((m, n), I32), a, b],
                {0: (a.astype(np.int64) @ b).astype(I32)})


def stencil_1d(rng):
    n = int(rng.integers(200, 2000))
    x = ints(rng, n)
    left = np.concatenate([[x[0]], x[:-1]])
    right = np.concatenate([x[1:], [x[-1]]])
    return Case((ceil_div(n, 64),), (64,), [np.zeros(n, I32), x],
                {0: (left + 2 * x + right).astype(I32)})


def stencil_2d(rng):
    h, w = int(rng.integers(5, 60)), int(rng.integers(5, 60))
    x = ints(rng, (h, w))
    out = x.copy()
    out[1:-1, 1:-1] = (x[:-2, 1:-1] + x[2:, 1:-1] + x[1:-1, :-2] + x[1:-1, 2:]
                       - 4 * x[1:-1, 1:-1])
    return Case((ceil_div(w, 8), ceil_div(h, 8)), (8, 8), [np.zeros_like(x), x], {0: out})


def strided_view(rng):
    h, w = int(rng.integers(5, 40)), int(rng.integers(5, 40))
    base = ints(rng, (w + 3, h + 5))
    view = base[2:2 + w, 1:1 + h].T  # an offset, transposed view
    k = int(rng.integers(-9, 9))
    return Case((ceil_div(w, 8), ceil_div(h, 8)), (8, 8),
                [np.zeros((h, w), I32), view, k], {0: (view * k).astype(I32)})


def subview_block(rng):
    bh, bw = int(rng.integers(1, 5)), int(rng.integers(1, 5))
    m = ints(rng, (8 * bh, 8 * bw))
    return Case((bw, bh), (8, 8), [m.copy(), np.zeros(8 * bh, I32)],
                {0: m + 1, 1: (m + 1).sum(1).astype(I32)})


def reshape_ops(rng):
    n = 2 * int(rng.integers(20, 400))
    flat = ints(rng, 4 * n)
    m = flat.reshape(4, n)
    return Case((ceil_div(n, 64),), (64,), [np.zeros(n, I32), flat, n],
                {0: m.sum(0).astype(I32)})


def vector_rows(rng):
    rows = int(rng.integers(10, 300))
    x = ints(rng, (rows, 16))
    out = np.zeros_like(x)
    out[:, :8] = 3 * x[:, :8]
    out[:, 8:] = x[:, 8:] + x[:, 1:9].sum(1, keepdims=True)
    return Case((ceil_div(rows, 32),), (32,), [np.zeros_like(x), x], {0: out})


def transfer_edges(rng):
    n = int(rng.integers(100, 1000)) | 1  # not a multiple of 4
    x = ints(rng, n)
    rows = int(rng.integers(1, 4))  # fewer rows than lanes: padding 0
    m = ints(rng, (rows, 4))
    return Case((ceil_div(ceil_div(n, 4), 64),), (64,),
                [np.zeros(n, I32), x, np.zeros(4, I32), m],
                {0: 2 * x, 2: m.sum(0).astype(I32)})


def dynamic_shared_reduce(rng):
    groups, size = int(rng.integers(2, 9)), int(rng.choice([32, 64, 128]))
    x = ints(rng, groups * size)
    return Case((groups,), (size,), [np.zeros(groups, I32), x],
                {0: x.reshape(groups, size).sum(1).astype(I32)}, dynamic_shared=4 * size)


def dynamic_shared_typed(rng):
    groups = int(rng.integers(2, 6))
    x = ints(rng, groups * 128, -40000, 40000)
    nxt = np.roll(x.reshape(groups, 128), -1, axis=1).ravel()
    return Case((groups,), (128,),
                [np.zeros_like(x), np.zeros(x.size, np.int64), x],
                {0: nxt, 1: nxt.astype(np.int64) ** 2}, dynamic_shared=2048)


def atomics_all(rng):
    n = int(rng.integers(500, 3000))
    x = ints(rng, n, -2**31, 2**31 - 1)
    f = rng.integers(-1000, 1000, n).astype(np.float32) / 8  # exact sums
    init = np.array([0, 2**31 - 1, -2**31, -1, 0, -1, 0, 0, 12345], I32)
    u = x.view(np.uint32)
    combined = np.array([wrap(x.astype(np.int64).sum()), x.min(), x.max(),
                         u.min().view(I32), u.max().view(I32),
                         np.bitwise_and.reduce(x), np.bitwise_or.reduce(x),
                         np.bitwise_xor.reduce(x)], I32)

    def check(acc):
        assert np.array_equal(acc[:8], combined), (acc[:8], combined)
        assert acc[8] in set(x.tolist()), "assign must leave one input's value"

    return Case((ceil_div(n, 128),), (128,), [init, np.zeros(1, np.float32), x, f],
                {1: np.array([f.sum()], np.float32)}, invariants={0: check})


def helper_calls(rng):
    rows, cols = int(rng.integers(10, 200)), int(rng.integers(1, 30))
    m = ints(rng, (rows, cols))
    lo, hi = -2000, 3000
    return Case((ceil_div(rows, 64),), (64,), [np.zeros(rows, I32), m, lo, hi],
                {0: np.clip(m.sum(1), lo, hi).astype(I32)})


def private_sort(rng):
    rows = int(rng.integers(10, 300))
    d = ints(rng, (rows, 8))
    return Case((ceil_div(rows, 64),), (64,), [d.copy()], {0: np.sort(d, 1)})


def copy_rank3(rng):
    planes = int(rng.integers(3, 100))
    x = ints(rng, (planes, 4, 4))
    return Case((ceil_div(planes, 32),), (32,), [np.zeros_like(x), x],
                {0: x.transpose(0, 2, 1).copy()})


def branches_cf(rng):
    n = 64 * int(rng.integers(4, 40))  # the kernel has no bounds guard
    x = ints(rng, n, 0, 1 << 16)
    ref = np.array([np.where(k & 1, k, 2 * k).sum() for k in
                    (np.arange(v & 15) for v in x)], I32)
    return Case((n // 64,), (64,), [np.zeros(n, I32), x], {0: ref})


def subgroup_ids(rng):
    groups, size = int(rng.integers(1, 5)), int(rng.choice([32, 64, 96, 128]))
    invocations = groups * size

    def check_counts(check):
        assert check[0] == invocations, check
        assert 1 <= check[1] / groups <= size, check

    def check_hits(hits):
        assert hits.sum() == invocations
        assert set(np.unique(hits).tolist()) <= {0, groups}, np.unique(hits)

    return Case((groups,), (size,), [np.zeros(2, I32), np.zeros(4 * size, I32)], {},
                invariants={0: check_counts, 1: check_hits})


def reduce_float(rng):
    groups, size = int(rng.integers(3, 8)), 64
    # Sums of multiples of 1/16 this small are exact in any order.
    x = (rng.integers(-4000, 4000, groups * size) / 16).astype(np.float32)
    g = x.reshape(groups, size)
    g[1, rng.integers(0, size)] = np.nan  # one NaN: maxnum ignores it
    g[2, :] = np.nan                      # all NaN: maxnum is NaN
    maxnum = np.array([np.nan if np.isnan(r).all() else np.nanmax(r) for r in g],
                      np.float32)
    return Case((groups,), (size,),
                [np.zeros(groups, np.float32), np.zeros(groups, np.float32),
                 np.zeros(groups, np.float32), x],
                {0: g.sum(1), 1: maxnum, 2: g.min(1)})


def shared_view_static(rng):
    groups = int(rng.integers(2, 9))
    a = ints(rng, groups * 64)
    b = (rng.integers(-1000, 1000, groups * 64) / 4).astype(np.float32)
    ra = a.reshape(groups, 64)[:, ::-1].ravel()
    rb = b.reshape(groups, 64)[:, ::-1].ravel()
    return Case((groups,), (64,), [np.zeros_like(a), a, b],
                {0: (ra + (rb * 2).astype(I32)).astype(I32)})


def shuffle_butterfly(rng):
    groups, size = int(rng.integers(2, 6)), int(rng.choice([32, 64, 96, 100]))
    x = ints(rng, groups * size)
    return Case((groups,), (size,), [np.zeros(1, I32), x], {0: np.array([x.sum()], I32)})


def segmented_prefix(block, values):
    """An invariant: `prefix` is the inclusive sum of `values` within waves
    of one width W (consecutive invocations of a workgroup of `block`;
    the width is the device's, found from where the sums restart)."""
    def check(prefix):
        n = values.size
        starts = [i for i in range(n) if prefix[i] == values[i]]
        width = next((i for i in starts if i % block), None) or \
            next((i for i in starts if i), block)
        width = min(width, block)
        for g0 in range(0, n, block):
            for w0 in range(g0, g0 + block, width):
                seg = values[w0:min(w0 + width, g0 + block)]
                np.testing.assert_array_equal(prefix[w0:w0 + seg.size], np.cumsum(seg),
                                              f"wave of width {width} at {w0}")
    return check


def subgroup_reduce_scan(rng):
    groups, size = int(rng.integers(2, 6)), int(rng.choice([32, 64, 128]))
    x = ints(rng, groups * size, 1, 1000)  # positive: a prefix equals its value only at a wave's start
    total = np.array([x.sum(), x.max(), np.bitwise_xor.reduce(x)], I32)
    return Case((groups,), (size,), [np.array([0, -2**31, 0], I32), np.zeros_like(x), x],
                {0: total}, invariants={1: segmented_prefix(size, x)})


CASES = {f.__name__: f for f in [
    vector_add, saxpy_index, reduce_shared_tree, reduce_all_reduce, reduce_region,
    histogram_global, histogram_shared, scan_inclusive, scan_exclusive,
    transpose_attribution, transpose_alloca, matmul_naive, matmul_tiled, stencil_1d,
    stencil_2d, strided_view, subview_block, reshape_ops, vector_rows, transfer_edges,
    dynamic_shared_reduce, dynamic_shared_typed, atomics_all, helper_calls,
    private_sort, copy_rank3, branches_cf, subgroup_ids, reduce_float,
    shared_view_static, shuffle_butterfly, subgroup_reduce_scan]}
