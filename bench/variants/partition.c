/* partition.c - compare two labellings as partitions (see partition.h). */
#include "variants/partition.h"

#include <stdlib.h>

long sb_partition_diff(const int32_t *a, const int32_t *b, long n, long *first, sb_error *err)
{
    /* a's label -> b's label and back, through open-addressed tables of pairs */
    size_t cap = 16;
    while (cap < 2 * (size_t)n + 16)
        cap *= 2;
    int32_t(*ab)[2] = malloc(cap * sizeof *ab), (*ba)[2] = malloc(cap * sizeof *ba);
    uint8_t *used_ab = calloc(cap, 1), *used_ba = calloc(cap, 1);
    if (!ab || !ba || !used_ab || !used_ba) {
        free(ab), free(ba), free(used_ab), free(used_ba);
        return sb_fail(err, SB_ERR_NOMEM, "partition compare: out of memory"), -1;
    }
    long bad = 0;
    *first = -1;
    for (long i = 0; i < n; i++) {
        int ok = 1;
        for (int dir = 0; dir < 2; dir++) {
            int32_t key = dir ? b[i] : a[i], val = dir ? a[i] : b[i];
            int32_t(*t)[2] = dir ? ba : ab;
            uint8_t *used = dir ? used_ba : used_ab;
            size_t h = ((uint32_t)key * 2654435761u) & (cap - 1);
            while (used[h] && t[h][0] != key)
                h = (h + 1) & (cap - 1);
            if (!used[h]) {
                used[h] = 1;
                t[h][0] = key;
                t[h][1] = val;
            } else if (t[h][1] != val) {
                ok = 0;
            }
        }
        if (!ok && bad++ == 0)
            *first = i;
    }
    free(ab), free(ba), free(used_ab), free(used_ba);
    return bad;
}
