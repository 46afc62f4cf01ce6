/* cases.h - turning a dataset image into an sb_case: load it in the
 * algorithm's format, copy it to pinned memory, compute the reference. */
#ifndef SEGBENCH_CASES_H
#define SEGBENCH_CASES_H

#include "harness.h"

typedef struct sb_case_data {
    sb_case c;
    sb_image input;               /* pinned copy (data from sb_host_alloc) */
    void *params;
    void *reference;
    void *upstream;               /* algo->upstream's data (pipeline stages) */
} sb_case_data;

/* `loaded` is the image as sb_image_load gave it in algo->load_mode.
 * params: NULL for the stage's defaults. */
sb_status sb_case_open(sb_case_data *cd, const sb_algo *algo, int stage, const void *params,
                       const sb_image *loaded, sb_error *err);
void sb_case_close(sb_case_data *cd);

#endif
