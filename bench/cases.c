/* cases.c - image -> sb_case (see cases.h). */
#include "cases.h"

#include "outputs.h"
#include "registry.h"

#include <stdlib.h>
#include <string.h>

sb_status sb_case_open(sb_case_data *cd, const sb_algo *algo, int stage, const void *params,
                       const sb_image *loaded, sb_error *err)
{
    memset(cd, 0, sizeof *cd);
    cd->c.algo = algo;
    cd->params = calloc(1, algo->params_size);
    if (!cd->params)
        return sb_fail(err, SB_ERR_NOMEM, "out of memory");
    if (params)
        memcpy(cd->params, params, algo->params_size);
    else
        algo->params_default(cd->params, stage);

    /* a pipeline step's input comes from the reference of the steps before */
    sb_image derived = { 0 };
    if (algo->upstream) {
        sb_status st = algo->upstream(loaded, cd->params, &derived, &cd->upstream, err);
        if (st) {
            sb_case_close(cd);
            return st;
        }
        loaded = &derived;
    }
    size_t bytes = loaded->stride * (size_t)loaded->height;
    cd->input = *loaded;
    cd->input.data = sb_host_alloc(bytes);
    if (cd->input.data)
        memcpy(cd->input.data, loaded->data, bytes);
    sb_image_free(&derived);
    if (!cd->input.data) {
        sb_case_close(cd);
        return sb_fail(err, SB_ERR_NOMEM, "out of memory preparing a %dx%d image", cd->input.width, cd->input.height);
    }

    cd->c.stage = stage;
    cd->c.params = cd->params;
    cd->c.input = &cd->input;

    const sb_variant *ref = sb_reference_variant(algo);
    cd->c.reference_variant = ref;
    sb_status st = sb_output_alloc(algo, &cd->reference, &cd->input, cd->params, err);
    if (!st) {
        sb_output_poison(cd->reference);
        st = sb_run_once(&cd->c, ref, 1, NULL, cd->reference, 1, &cd->c.ref_times, err);
    }
    if (st) {
        sb_case_close(cd);
        return st;
    }
    cd->c.reference = cd->reference;
    return SB_OK;
}

void sb_case_close(sb_case_data *cd)
{
    if (cd->reference)
        sb_output_free(cd->reference);
    if (cd->upstream)
        cd->c.algo->upstream_free(cd->upstream);
    sb_host_free(cd->input.data);
    free(cd->params);
    memset(cd, 0, sizeof *cd);
}

sb_status sb_case_params(const sb_algo *algo, int stage, const int rect[4], void **params, int *usable, char *why,
                         size_t why_size, sb_error *err)
{
    *usable = 1;
    *params = calloc(1, algo->params_size);
    if (!*params)
        return sb_fail(err, SB_ERR_NOMEM, "out of memory");
    algo->params_default(*params, stage);
    if (algo->image_params)
        *usable = algo->image_params(*params, rect, why, why_size);
    return SB_OK;
}
