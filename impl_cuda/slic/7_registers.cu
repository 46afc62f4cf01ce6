/* 7_registers.cu - SLIC with each thread's candidate centres held in
 * registers across its rows (variant "cuda-registers").
 *
 * Its parent is cuda-tilesums (rung 4): the same tiles, the same staged
 * centres, the same sums in shared memory (TileAtomics).  Rungs 5 and 6
 * change the sums; this one changes the distance loop, where the time
 * goes (the tile pass is issue-bound: 9 candidates x ~22 instructions a
 * pixel).  Against rung 4:
 *   - A thread takes 4 consecutive rows of its column instead of every
 *     8th row, so its 4 pixels nearly always share one cell, and so the
 *     same 9 candidates.  It reads them from shared memory once per cell
 *     row into registers (9 x 5 floats), not once per pixel.
 *   - x is the same down a column, so dx^2 is squared once per candidate
 *     and cell row too (sb_slic_distance_dx2: the same operations as
 *     sb_slic_distance, so the same value).
 *   - Cells outside the grid are staged at infinity (slic_tile_stage), so
 *     the loop has no bounds tests: such a centre is never nearer than
 *     another, and slic.h skips it.  The nearest is kept as an index 0..8.
 * A warp is still 32 columns of one row, so loads and label stores stay
 * coalesced, and a warp's pixels change cell row together: the reload is
 * a uniform branch.  The cell row is tracked down the rows, so a thread
 * divides by S once, not once a row.
 * What it bought on the H100 (ncu, one 1920x1080 pass, S = 16): 26.5M ->
 * 17.6M warp instructions, but only 49.0 -> 45.8 us, because the 9 held
 * centres take 80 registers: 3 blocks an SM instead of 7, and the issue
 * slots in use fall from 71 % to 52 %.  The stage, 10 passes and
 * connectivity: 0.612 -> 0.565 ms at 1080p, 2.125 -> 2.051 ms at 4K (a
 * quick bench; the run of record is in NOTES.md).  Prefetching the next
 * row's colour did not help (0.573 ms).
 */
#include "tile_pass.cuh"

enum { ROWS_PER_THREAD = TILE / TILE_ROWS };

/* A candidate centre as a thread holds it: its x is only needed as dx^2. */
struct HeldCentre {
    float dx2, y, c[3];
};

/* 80 registers, 3 blocks an SM.  Capping them for more blocks spills and
 * loses (ncu, 1080p pass: 2 blocks 59.2 us, 3 45.8, 4 49.3, 5 55.5). */
__global__ void __launch_bounds__(TILE_THREADS, 3)
    slic_registers_pass(const ushort4 *colour, sb_slic_geometry g, const sb_slic_centre *centres, int32_t *labels,
                        unsigned long long *sums)
{
    TileShared t = slic_tile_stage(g, centres, true);
    int x = blockIdx.x * TILE + threadIdx.x, gx = x / g.S;
    float px = (float)(SB_SLIC_XY_UNIT * x);
    HeldCentre held[9];
    int held_gy = -1, first_slot = 0;   /* the cell row `held` is for; its (-1, -1) candidate's slot */
    int y = blockIdx.y * TILE + threadIdx.y * ROWS_PER_THREAD;
    int gy = y / g.S, next_cell_row = (gy + 1) * g.S;   /* one division a thread, not one a row */
    bool in_x = x < g.width;
    size_t i = (size_t)y * g.width + x;
    for (int r = 0; r < ROWS_PER_THREAD; r++, y++, i += g.width) {
        if (y >= g.height)              /* the same for the whole warp */
            break;
        if (y == next_cell_row) {
            gy++;
            next_cell_row += g.S;
        }
        if (gy != held_gy) {            /* also the same for the whole warp */
            held_gy = gy;
            first_slot = (gy - 1 - t.cy0) * t.span + (gx - 1 - t.cx0);
#pragma unroll
            for (int k = 0; k < 9; k++) {
                int slot = first_slot + (k / 3) * t.span + k % 3;
                float4 v = t.xyc[slot];
                float dx = sb_fadd(px, -v.x);
                held[k] = { sb_fmul(dx, dx), v.y, { v.z, v.w, t.c2[slot] } };
            }
        }
        int local = -1;
        unsigned v[6] = { 0, 0, 0, 0, 0, 0 };
        if (in_x) {
            ushort4 c = __ldg(&colour[i]);
            const float pc[3] = { (float)c.x, (float)c.y, (float)c.z };
            float py = (float)(SB_SLIC_XY_UNIT * y), best = INFINITY;
            int nearest = 0;
#pragma unroll
            for (int k = 0; k < 9; k++) {   /* slic.h's order; strict <, so ties keep the first */
                float d = sb_slic_distance_dx2(g.cn, g.wxy, held[k].dx2, py, pc, held[k].y, held[k].c);
                if (d < best) {
                    best = d;
                    nearest = k;
                }
            }
            labels[i] = (gy + nearest / 3 - 1) * g.grid_w + gx + nearest % 3 - 1;
            local = first_slot + (nearest / 3) * t.span + nearest % 3;
            slic_sum_values(v, x, y, c);
        }
        TileAtomics::add(t.acc, local, v, nullptr);
    }
    slic_tile_flush(t, g, sums);
}

static sb_status rung_prepare(void **state, const sb_image *in, const void *params, void *output,
                              const sb_exec *exec, sb_error *err)
{
    sb_status st = slic_device_open(state, sizeof(slic_device), in, params, output, exec, err);
    return st ? st : slic_allow_tile_shared(slic_registers_pass, (slic_device *)*state, err);
}

static sb_status rung_iterate(slic_device *d, sb_error *err)
{
    const sb_slic_geometry &g = d->geo;
    dim3 block(TILE, TILE_ROWS), grid(sb_div_up(g.width, TILE), sb_div_up(g.height, TILE));
    slic_registers_pass<<<grid, block, slic_tile_shared_bytes(g.S), d->stream>>>(d->colour, g, d->centres,
                                                                                 d->labels, d->sums);
    SB_CUDA_LAUNCHED(err, d->who);
    return slic_enqueue_update(d, err);
}

static sb_status rung_run(void *state, sb_error *err)
{
    slic_device *d = (slic_device *)state;
    return slic_run(d, [&](sb_error *e) { return rung_iterate(d, e); }, err);
}

SB_VARIANT("slic", "cuda-registers", "cuda-shared", CUDA, SB_DEVICE, ALL_STAGES,
           "cuda-tilesums with a thread's 9 candidates and their dx^2 held in registers down 4 rows",
           rung_prepare, slic_cuda_upload, rung_run, slic_cuda_fetch, slic_device_close)
SB_RUNG("slic", "cuda-registers", "cuda-tilesums",
        "a thread walks 4 rows with its 9 candidates and their dx^2 held in registers")
