/* 6_quadsums.cuh - what cuda-quadsums (6_quadsums.cu) lends the rungs
 * after it: a quad's sums, as one value when its 4 pixels share a label. */
#ifndef SEGBENCH_KM_6_QUADSUMS_CUH
#define SEGBENCH_KM_6_QUADSUMS_CUH

#include "km_quads.cuh"

/* A quad of one label (the usual case) goes in as one value, otherwise
 * pixel by pixel.  Every lane of the warp calls it. */
struct km_add_quad {
    __device__ __forceinline__ void operator()(unsigned *acc, bool live, unsigned inside, const unsigned (&lab)[4],
                                               const unsigned (&rgb)[4][3]) const
    {
        bool whole = inside == 4 && lab[0] == lab[1] && lab[0] == lab[2] && lab[0] == lab[3];
        if (__all_sync(KM_FULL_MASK, whole || !live))
            km_warp_add(acc, whole, lab[0], rgb[0][0] + rgb[1][0] + rgb[2][0] + rgb[3][0],
                        rgb[0][1] + rgb[1][1] + rgb[2][1] + rgb[3][1], rgb[0][2] + rgb[1][2] + rgb[2][2] + rgb[3][2],
                        4u);
        else
            km_add_pixels()(acc, live, inside, lab, rgb);
    }
};

#endif
