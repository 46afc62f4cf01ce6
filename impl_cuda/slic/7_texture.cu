/* 7_texture.cu - cuda-texture.  A branch of cuda-warpagg.  The idea: the
 * colour read through a texture. */
#include "slic_tiles.cuh"

/* The converted colour through the texture path: tex1Dfetch on a 1-D
 * linear texture of ushort4. */
struct TextureColour {
    cudaTextureObject_t tex;
    __device__ __forceinline__ ushort4 operator()(size_t i) const { return tex1Dfetch<ushort4>(tex, (int)i); }
};

static __global__ void __launch_bounds__(TILE_THREADS)
    slic_tile_pass(TextureColour load, sb_slic_geometry g, const sb_slic_centre *centres, int32_t *labels,
                   unsigned long long *sums)
{
    TileShared t = slic_tile_stage(g, centres);
    TileCentres at = { t.xyc, t.c2, t.cx0, t.cy0, t.span };
    int x0 = blockIdx.x * TILE, y0 = blockIdx.y * TILE;
    int x = x0 + threadIdx.x, gx = x / g.S;       /* the pixel's cell column: once a thread */
    for (int r = 0; r < TILE / TILE_ROWS; r++) {
        int y = y0 + threadIdx.y + r * TILE_ROWS;
        int local = -1;
        unsigned v[6] = { 0, 0, 0, 0, 0, 0 };
        if (x < g.width && y < g.height) {         /* whole warps reach slic_warp_add below */
            size_t i = (size_t)y * g.width + x;
            ushort4 c = load(i);
            const float pc[3] = { (float)c.x, (float)c.y, (float)c.z };
            int cx, cy;
            int32_t label = slic_nearest(at, g, gx, y / g.S, (float)(SB_SLIC_XY_UNIT * x),
                                         (float)(SB_SLIC_XY_UNIT * y), pc, &cx, &cy);
            labels[i] = label;
            local = (cy - t.cy0) * t.span + (cx - t.cx0);
            slic_sum_values(v, x, y, c);
        }
        slic_warp_add(t.acc, local, v);
    }
    slic_tile_flush(t, g, sums);
}

struct rung_state {
    slic_device dev;       /* first: the shared upload and fetch read it */
    cudaTextureObject_t tex;
};

static sb_status rung_prepare(void **state, const sb_image *in, const void *params, void *output,
                              const sb_exec *exec, sb_error *err)
{
    sb_status st = slic_device_open(state, sizeof(rung_state), in, params, output, exec, err);
    if (st)
        return st;
    rung_state *s = (rung_state *)*state;
    slic_device *d = &s->dev;
    cudaResourceDesc res = {};
    res.resType = cudaResourceTypeLinear;
    res.res.linear.devPtr = d->colour;
    res.res.linear.desc = cudaCreateChannelDesc<ushort4>();
    res.res.linear.sizeInBytes = (size_t)d->n * sizeof(ushort4);
    cudaTextureDesc desc = {};
    desc.readMode = cudaReadModeElementType;
    SB_CUDA_TRY(cudaCreateTextureObject(&s->tex, &res, &desc, NULL), err, d->who);
    return slic_allow_shared(slic_tile_pass, slic_tile_shared_bytes(d->geo.S), d, err);
}

static sb_status rung_run(void *state, sb_error *err)
{
    rung_state *s = (rung_state *)state;
    slic_device *d = &s->dev;
    TextureColour load = { s->tex };
    return slic_run(d, [&](sb_error *e) { return slic_tile_iterate(d, slic_tile_pass, load, e); }, err);
}

static void rung_release(void *state)
{
    rung_state *s = (rung_state *)state;
    if (s && s->tex)
        cudaDestroyTextureObject(s->tex);
    slic_device_close(s);
}

SB_CUDA_RUNG("slic", "cuda-texture", "cuda-warpagg", "cuda-texture", 0,
             "the converted colour through a texture object (a branch)",
             rung_prepare, slic_cuda_upload, rung_run, slic_cuda_fetch, rung_release)
